package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// The other doors (docs/doors.md): /v1/messages passthrough to an
// Anthropic provider, /v1/responses passthrough to a responses: true
// provider, /v1/embeddings. An upstream that echoes the key it was sent
// (and its own address) must not put either in front of the client, as
// TestUpstreamTextNeverCarriesSecretsOut proves for /v1/chat/completions
// (docs/security.md, "Operator secrets").

const doorsSecretsCfg = `
client_keys: [` + clientKey + `]
providers:
  - {name: ant, dialect: anthropic, base_url: "{ant}", api_key: ` + anthropicKey + `}
  - {name: oai, dialect: openai, base_url: "{oai}/v1", api_key: ` + openaiKey + `, responses: true}
targets:
  - {name: t-ant, model: claude-sonnet-4-5, providers: [ant]}
  - {name: t-oai, model: gpt-4o, providers: [oai]}
  - {name: t-emb, model: text-embedding-3-small, providers: [oai]}
`

// echoDoorKey answers in the door's native shape with the key it got and
// the URL it was called at, in an error message: a plain 401 for a whole
// request, an error event after some content for a stream.
func echoDoorKey(dialect string, self *string) upstreamtest.Script {
	return func(_ int, r upstreamtest.Request) upstreamtest.Step {
		key := r.Header.Get("X-Api-Key") + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		m, _ := json.Marshal(fmt.Sprintf("Incorrect API key provided: %s; request to %s%s refused", key, *self, r.Path))
		if dialect == "anthropic" {
			errBody := `{"type":"error","error":{"type":"authentication_error","message":` + string(m) + `}}`
			if !r.Streamed() {
				return upstreamtest.Step{Status: 401, Body: errBody}
			}
			return upstreamtest.Step{Events: []string{
				"event: message_start\ndata: " + `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"usage":{"input_tokens":1,"output_tokens":0}}}`,
				"event: content_block_start\ndata: " + `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
				"event: content_block_delta\ndata: " + `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}`,
				"event: error\ndata: " + errBody,
			}}
		}
		errBody := `{"error":{"message":` + string(m) + `,"type":"invalid_request_error","code":"invalid_api_key","param":null}}`
		if !r.Streamed() {
			return upstreamtest.Step{Status: 401, Body: errBody}
		}
		ev := nativeEvents()
		return upstreamtest.Step{Events: append(ev[:4:4],
			"event: error\ndata: "+`{"type":"error","sequence_number":4,"code":"invalid_api_key","param":null,"message":`+string(m)+`}`)}
	}
}

func TestDoorsNeverCarrySecretsOut(t *testing.T) {
	urls := map[string]*string{"ant": new(string), "oai": new(string)}
	fs := fakes(t, map[string]upstreamtest.Script{
		"ant": echoDoorKey("anthropic", urls["ant"]),
		"oai": echoDoorKey("openai", urls["oai"]),
	})
	for name, u := range urls {
		*u = fs[name].URL
	}
	g := start(t, doorsSecretsCfg, fs)
	secrets := []string{openaiKey, anthropicKey, clientKey}
	var places []string
	for _, s := range fs {
		places = append(places, s.URL, strings.TrimPrefix(s.URL, "http://"))
	}
	auth := []string{"Authorization", "Bearer " + clientKey}
	cases := []struct{ name, path, body string }{
		{"messages", "/v1/messages", `{"model":"t-ant","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}`},
		{"messages stream", "/v1/messages", `{"model":"t-ant","max_tokens":16,"stream":true,"messages":[{"role":"user","content":"hi"}]}`},
		{"responses", "/v1/responses", `{"model":"t-oai","input":"hi"}`},
		{"responses stream", "/v1/responses", `{"model":"t-oai","input":"hi","stream":true}`},
		{"embeddings", "/v1/embeddings", `{"model":"t-emb","input":"hi"}`},
	}
	for _, c := range cases {
		r := g.raw(t, http.MethodPost, c.path, c.body, auth...)
		if !strings.Contains(string(r.Body), "Incorrect API key provided") {
			t.Errorf("%s: %d, the upstream's own message did not reach the client:\n%s", c.name, r.Status, r.Body)
		}
		if l := leaks(string(r.Body), secrets, places); len(l) > 0 {
			t.Errorf("%s: the client's answer (%d) leaks %s:\n%s", c.name, r.Status, strings.Join(l, "; "), r.Body)
		}
		if id := r.Header.Get("X-Detour-Decision"); id != "" {
			if l := leaks(recordJSON(t, g.recs.byID(t, id)), secrets, places); len(l) > 0 {
				t.Errorf("%s: the decision record leaks %s", c.name, strings.Join(l, "; "))
			}
		}
	}
}

// echo200 answers 200 with an error the way relays do (an error envelope
// with status 200, an error object as a stream's data), echoing the key it
// got and its own address.
func echo200(dialect string, self *string) upstreamtest.Script {
	return func(_ int, r upstreamtest.Request) upstreamtest.Step {
		key := r.Header.Get("X-Api-Key") + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		m, _ := json.Marshal(fmt.Sprintf("Incorrect API key provided: %s; request to %s%s refused", key, *self, r.Path))
		var errBody string
		if dialect == "anthropic" {
			errBody = `{"type":"error","error":{"type":"authentication_error","message":` + string(m) + `}}`
		} else {
			errBody = `{"error":{"message":` + string(m) + `,"type":"invalid_request_error","code":"invalid_api_key","param":null}}`
		}
		if !r.Streamed() {
			return upstreamtest.Step{Body: errBody}
		}
		if dialect == "anthropic" {
			return upstreamtest.Step{Events: []string{"event: error\ndata: " + errBody}}
		}
		return upstreamtest.Step{Events: []string{errBody}}
	}
}

func TestErrorsAt200NeverCarrySecretsOut(t *testing.T) {
	urls := map[string]*string{"ant": new(string), "oai": new(string)}
	fs := fakes(t, map[string]upstreamtest.Script{
		"ant": echo200("anthropic", urls["ant"]),
		"oai": echo200("openai", urls["oai"]),
	})
	for name, u := range urls {
		*u = fs[name].URL
	}
	g := start(t, doorsSecretsCfg, fs)
	secrets := []string{openaiKey, anthropicKey, clientKey}
	var places []string
	for _, s := range fs {
		places = append(places, s.URL, strings.TrimPrefix(s.URL, "http://"))
	}
	auth := []string{"Authorization", "Bearer " + clientKey}
	cases := []struct{ name, path, body string }{
		{"chat", "/v1/chat/completions", `{"model":"t-oai","messages":[{"role":"user","content":"hi"}]}`},
		{"chat stream", "/v1/chat/completions", `{"model":"t-oai","stream":true,"messages":[{"role":"user","content":"hi"}]}`},
		{"chat to anthropic", "/v1/chat/completions", `{"model":"t-ant","messages":[{"role":"user","content":"hi"}]}`},
		{"chat stream to anthropic", "/v1/chat/completions", `{"model":"t-ant","stream":true,"messages":[{"role":"user","content":"hi"}]}`},
		{"messages", "/v1/messages", `{"model":"t-ant","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}`},
		{"messages stream", "/v1/messages", `{"model":"t-ant","max_tokens":16,"stream":true,"messages":[{"role":"user","content":"hi"}]}`},
		{"messages to openai", "/v1/messages", `{"model":"t-oai","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}`},
		{"responses", "/v1/responses", `{"model":"t-oai","input":"hi"}`},
		{"responses stream", "/v1/responses", `{"model":"t-oai","input":"hi","stream":true}`},
		{"embeddings", "/v1/embeddings", `{"model":"t-emb","input":"hi"}`},
	}
	for _, c := range cases {
		r := g.raw(t, http.MethodPost, c.path, c.body, auth...)
		t.Logf("%s: %d %s", c.name, r.Status, r.Body)
		if l := leaks(string(r.Body), secrets, places); len(l) > 0 {
			t.Errorf("%s: the client's answer (%d) leaks %s:\n%s", c.name, r.Status, strings.Join(l, "; "), r.Body)
		}
	}
}
