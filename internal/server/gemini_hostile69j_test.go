package server_test

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Hostile 69j: the Gemini door's translation under hostile bodies, its
// translated stream, passthrough streams, signatures and countTokens.

// A translated stream holds each tool call until its last frame (Gemini
// sends a call whole): an upstream streaming one call's arguments without
// end was held without bound (20 MiB here, as much as it streams), then
// written as one frame. Past gemini.MaxHeld (16 MiB, the Responses door's
// bound) the stream ends with Google's error event, recorded as the
// answer too large.
func TestHostile69jHeldCallsAreBounded(t *testing.T) {
	piece := strings.Repeat("a", 1<<20)
	ev := func(delta string) string {
		return `{"id":"c1","object":"chat.completion.chunk","model":"gpt-4o-mini","choices":[{"index":0,"delta":` + delta + `,"finish_reason":null}]}`
	}
	events := []string{ev(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\":\""}}]}`)}
	for i := 0; i < 20; i++ {
		events = append(events, ev(`{"tool_calls":[{"index":0,"function":{"arguments":"`+piece+`"}}]}`))
	}
	events = append(events, ev(`{"tool_calls":[{"index":0,"function":{"arguments":"\"}"}}]}`),
		`{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`, "[DONE]")
	p := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step { return upstreamtest.Step{Events: events} })
	t.Cleanup(p.Close)
	cfg := strings.NewReplacer("{p}", p.URL, "{an}", p.URL, "{g}", p.URL, "{down}", p.URL).Replace(geminiDoorCfg)
	recs := gatewaytest.NewRecords()
	url, _ := gatewaytest.Start(t, gatewaytest.Config(t, cfg), app.Options{Decisions: recs})
	resp, body := geminiPost(t, url, "/v1beta/models/to-gpt:streamGenerateContent?alt=sse", geminiHello)
	if resp.StatusCode != 200 || len(body) > 17<<20 || !strings.Contains(body, `"error":{"code":`) {
		t.Errorf("%d, %d bytes (%.200s…), want the stream ended by an error event past 16 MiB held (before: the 20 MiB call held, then written whole)", resp.StatusCode, len(body), body)
	}
	d := recs.Wait(t, 1)
	if d.Outcome != "error" || len(d.Attempts) != 1 || d.Attempts[0].Class != "server_error" || !strings.Contains(d.Attempts[0].Evidence, "too large") {
		t.Errorf("recorded %s/%s, attempts %+v, want server_error, the answer too large", d.Class, d.Outcome, d.Attempts)
	}
}

// A functionCall's thoughtSignature travels to a translated target only
// when the gateway sealed it (detour1.…). One a Gemini target wrote (a turn
// passed through, handed back raw by @google/genai) reached an OpenAI
// target as extra_content, a member OpenAI refuses on some models ("Additional
// properties are not allowed"), and would reach Gemini's OpenAI-compatible
// endpoint as a signature it did not write ("Corrupted thought signature"):
// a route failing over from Gemini to OpenAI broke the client's tool loop.
func TestHostile69jRawSignatureStaysWithGemini(t *testing.T) {
	gw := geminiGateway(t)
	body := `{"contents":[{"role":"user","parts":[{"text":"weather?"}]},
	 {"role":"model","parts":[{"functionCall":{"name":"w","args":{"city":"Paris"}},"thoughtSignature":"CiQB0e2Kb1Yx7Z3lFq9v2bWc0QmV8r3dJ5nTz1pXh4u6sYk="}]},
	 {"role":"user","parts":[{"functionResponse":{"name":"w","response":{"t":"sunny"}}}]}]}`
	resp, out := geminiPost(t, gw.url, "/v1beta/models/to-gpt:generateContent", body)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, out)
	}
	got := gw.p.Requests()
	if len(got) != 1 || strings.Contains(string(got[0].Body), "CiQB0e2K") || strings.Contains(string(got[0].Body), "extra_content") {
		t.Errorf("a Gemini target's raw signature went to the OpenAI target: %.600s", got[0].Body)
	}
}

// An exact count is an upstream's answer, and says X-Should-Retry: false
// as every other upstream answer does (build 67f; the Messages door's
// count_tokens too): the Gemini door's did not.
func TestHostile69jExactCountSaysShouldRetry(t *testing.T) {
	gw := geminiGateway(t)
	resp, out := geminiPost(t, gw.url, "/v1beta/models/to-gem:countTokens", `{"contents":[{"parts":[{"text":"hello"}]}]}`)
	if resp.StatusCode != 200 || out != `{"totalTokens":42}` || resp.Header.Get("X-Should-Retry") != "false" {
		t.Errorf("%d %s, X-Should-Retry %q, want Gemini's count with X-Should-Retry: false", resp.StatusCode, out, resp.Header.Get("X-Should-Retry"))
	}
}
