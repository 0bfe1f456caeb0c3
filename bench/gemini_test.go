package bench

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// The Gemini door (:generateContent, :streamGenerateContent?alt=sse)
// through the gateway (docs/benchmarks.md, "Round 38"), as the Messages
// door's: passed through to a Gemini-dialect fake, and translated to an
// OpenAI-dialect fake, each against the same fake called directly.

const (
	geminiBody = `{"systemInstruction":{"parts":[{"text":"You are terse."}]},"contents":[{"role":"user","parts":[{"text":"Say hello in five words."}]}],"generationConfig":{"maxOutputTokens":256}}`
	// geminiPath and geminiStreamPath follow the gateway's (or the fake's)
	// base URL; the route is "gemini".
	geminiPath       = "/v1beta/models/gemini:generateContent"
	geminiStreamPath = "/v1beta/models/gemini:streamGenerateContent?alt=sse"
)

// geminiAnswer is the Gemini fake's fixed GenerateContentResponse.
const geminiAnswer = `{"candidates":[{"content":{"role":"model","parts":[{"text":"Hello there, nice to meet."}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":12,"candidatesTokenCount":7,"totalTokenCount":19},"modelVersion":"gemini-2.0-flash-001","responseId":"resp-bench"}`

// geminiStream is a Gemini stream of n text chunks (n events, the last
// with the finish reason and the usage, as Google ends one).
func geminiStream(n int) []string {
	var out []string
	for i, p := range parts(n) {
		c := map[string]any{"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": p}}}, "index": 0}
		v := map[string]any{"candidates": []any{c}, "modelVersion": "gemini-2.0-flash-001", "responseId": "resp-bench"}
		if i == n-1 {
			c["finishReason"] = "STOP"
			v["usageMetadata"] = map[string]any{"promptTokenCount": 12, "candidatesTokenCount": 20, "totalTokenCount": 32}
		}
		b, _ := json.Marshal(v)
		out = append(out, string(b))
	}
	return out
}

// geminiSetup starts a fake answering st and a gateway whose target
// "gemini" is that fake, as dialect ("gemini": passthrough; "openai":
// translated). Its direct URLs are the fake's own for a whole answer and
// a stream.
func geminiSetup(tb testing.TB, dialect string, st upstreamtest.Step) (direct, directStream, gw string) {
	f := fake(tb, st)
	yaml := `
providers:
  - {name: fake, dialect: ` + dialect + `, base_url: "` + f.URL + `", api_key: sk-bench}
targets:
  - {name: gemini, model: gemini-2.0-flash, providers: [fake]}
`
	url, _ := gatewaytest.Start(tb, gatewaytest.Config(tb, yaml), app.Options{Decisions: decision.Discard})
	direct, directStream = f.URL+"/v1beta/models/gemini-2.0-flash:generateContent", f.URL+"/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse"
	if dialect == "openai" {
		direct, directStream = f.URL+"/chat/completions", f.URL+"/chat/completions"
	}
	return direct, directStream, url
}

func geminiOK(b []byte) bool {
	return bytes.HasPrefix(b, []byte(`{"candidates":[{"content":{"role":"model"`)) && bytes.Contains(b, []byte(`"finishReason":"STOP"`))
}

// geminiEnded: the stream's last event carries the finish reason and the
// usage, and the stream ends with a blank line (Detour writes its frames
// "\r\n\r\n" as Google does; the fake called directly "\n\n").
func geminiEnded(b []byte) bool {
	i := bytes.LastIndex(b, []byte("data: "))
	return i >= 0 && bytes.Contains(b[i:], []byte(`"finishReason":"STOP"`)) && bytes.Contains(b[i:], []byte(`"usageMetadata"`)) &&
		(bytes.HasSuffix(b, []byte("\r\n\r\n")) || bytes.HasSuffix(b, []byte("\n\n")))
}

// BenchmarkGeminiDoorDirect: the Gemini fake's answer, called directly.
func BenchmarkGeminiDoorDirect(b *testing.B) {
	direct, _, _ := geminiSetup(b, "gemini", upstreamtest.Step{Body: geminiAnswer})
	run(b, client(1), direct, geminiBody, geminiOK)
}

// BenchmarkGeminiDoorPassthrough: the same through Detour's
// :generateContent (passed through to the Gemini target as sent).
func BenchmarkGeminiDoorPassthrough(b *testing.B) {
	_, _, gw := geminiSetup(b, "gemini", upstreamtest.Step{Body: geminiAnswer})
	run(b, client(1), gw+geminiPath, geminiBody, geminiOK)
}

// BenchmarkGeminiDoorTranslated: :generateContent to an OpenAI-dialect
// target (request and answer translated); compare with BenchmarkDirect.
func BenchmarkGeminiDoorTranslated(b *testing.B) {
	_, _, gw := geminiSetup(b, "openai", upstreamtest.Step{Body: answer})
	run(b, client(1), gw+geminiPath, geminiBody, geminiOK)
}

// BenchmarkGeminiDoorDirectStream: a 20-chunk Gemini stream, called
// directly.
func BenchmarkGeminiDoorDirectStream(b *testing.B) {
	_, direct, _ := geminiSetup(b, "gemini", upstreamtest.Step{Events: geminiStream(20)})
	run(b, client(1), direct, geminiBody, geminiEnded)
}

// BenchmarkGeminiDoorPassthroughStream: the same stream through Detour's
// :streamGenerateContent?alt=sse.
func BenchmarkGeminiDoorPassthroughStream(b *testing.B) {
	_, _, gw := geminiSetup(b, "gemini", upstreamtest.Step{Events: geminiStream(20)})
	run(b, client(1), gw+geminiStreamPath, geminiBody, geminiEnded)
}

// BenchmarkGeminiDoorTranslatedStream: :streamGenerateContent?alt=sse from
// a 20-chunk OpenAI stream (24 events); compare with BenchmarkDirectStream.
func BenchmarkGeminiDoorTranslatedStream(b *testing.B) {
	_, _, gw := geminiSetup(b, "openai", upstreamtest.Step{Events: upstreamtest.ChatStream(model, parts(20)...)})
	run(b, client(1), gw+geminiStreamPath, geminiBody, geminiEnded)
}

// TestGeminiDoorSetup checks that the benchmarks measure successful
// answers, and that the translated stream's words all arrive.
func TestGeminiDoorSetup(t *testing.T) {
	c := client(1)
	for _, tc := range []struct {
		dialect, path string
		st            upstreamtest.Step
		ok            func([]byte) bool
		want          string
	}{
		{"gemini", geminiPath, upstreamtest.Step{Body: geminiAnswer}, geminiOK, "nice to meet"},
		{"openai", geminiPath, upstreamtest.Step{Body: answer}, geminiOK, "nice to meet"},
		{"gemini", geminiStreamPath, upstreamtest.Step{Events: geminiStream(20)}, geminiEnded, "word19"},
		{"openai", geminiStreamPath, upstreamtest.Step{Events: upstreamtest.ChatStream(model, parts(20)...)}, geminiEnded, "word19"},
	} {
		direct, directStream, gw := geminiSetup(t, tc.dialect, tc.st)
		got, err := post(c, gw+tc.path, geminiBody)
		if err != nil || !tc.ok(got) || !bytes.Contains(got, []byte(tc.want)) {
			t.Fatalf("%s %s: %v %q", tc.dialect, tc.path, err, got[max(0, len(got)-500):])
		}
		if tc.dialect == "openai" && tc.path == geminiStreamPath && bytes.Count(got, []byte("data: ")) != 20 {
			t.Errorf("translated stream: %d events, want 20 (one a word, the last with the finish): %s", bytes.Count(got, []byte("data: ")), got)
		}
		if tc.dialect == "gemini" {
			u := direct
			if tc.path == geminiStreamPath {
				u = directStream
			}
			if got, err := post(c, u, geminiBody); err != nil || !tc.ok(got) {
				t.Fatalf("direct %s: %v %.600s", u, err, got)
			}
		}
	}
}
