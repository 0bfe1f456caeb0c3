package bench

import (
	"bytes"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// The other OpenAI-shaped doors through the whole gateway, against the same
// fake as BenchmarkGateway: their cost beside /v1/chat/completions is what
// the door's translation adds per request and per stream event
// (docs/benchmarks.md, "Doors through the gateway").

const (
	responsesBody       = `{"model":"gpt","instructions":"You are terse.","input":"Say hello in five words."}`
	responsesStreamBody = `{"model":"gpt","instructions":"You are terse.","input":"Say hello in five words.","stream":true}`
	embeddingsBody      = `{"model":"gpt","input":["Say hello in five words."]}`
	embeddingsAnswer    = `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.0023,-0.0093,0.0157,-0.0076,0.0124,0.0031,-0.0189,0.0045]}],"model":"text-embedding-3-small","usage":{"prompt_tokens":6,"total_tokens":6}}`
)

func responseOK(b []byte) bool { return bytes.Contains(b, []byte(`"object":"response"`)) }
func responsesStreamOK(b []byte) bool {
	return bytes.Contains(b, []byte("event: response.completed")) && bytes.Contains(b, []byte("word19"))
}

func doorSetup(b *testing.B, st upstreamtest.Step, path string) string {
	f := fake(b, st)
	return gateway(b, f.URL) + path
}

// BenchmarkGatewayResponses: BenchmarkGateway's answer, asked for through
// /v1/responses (translated to chat and back).
func BenchmarkGatewayResponses(b *testing.B) {
	run(b, client(1), doorSetup(b, upstreamtest.Step{Body: answer}, "/v1/responses"), responsesBody, responseOK)
}

// BenchmarkGatewayResponsesStream: BenchmarkGatewayStream's 20-chunk stream
// through /v1/responses (each chunk re-encoded as Responses events).
func BenchmarkGatewayResponsesStream(b *testing.B) {
	st := upstreamtest.Step{Events: upstreamtest.ChatStream(model, parts(20)...)}
	run(b, client(1), doorSetup(b, st, "/v1/responses"), responsesStreamBody, responsesStreamOK)
}

// BenchmarkGatewayEmbeddings: one small embeddings answer through
// /v1/embeddings (passed through by the openai dialect).
func BenchmarkGatewayEmbeddings(b *testing.B) {
	run(b, client(1), doorSetup(b, upstreamtest.Step{Body: embeddingsAnswer}, "/v1/embeddings"), embeddingsBody,
		func(b []byte) bool { return bytes.Contains(b, []byte(`"embedding"`)) })
}
