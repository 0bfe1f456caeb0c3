package server_test

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Build 69p: a Gemini client's OpenAPI schemas (responseSchema, a
// declaration's parameters) reach an OpenAI target with their properties
// in the client's order — propertyOrdering's where given, else as sent —
// not sorted: OpenAI's structured outputs write an answer's members in
// the schema's order.
func TestGeminiDoorOpenAPISchemaKeepsItsOrder(t *testing.T) {
	gw := geminiGateway(t)
	const req = `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],
 "generationConfig":{"responseMimeType":"application/json","responseSchema":{"type":"OBJECT","properties":{"answer":{"type":"INTEGER"},"reasoning":{"type":"STRING","description":"a < b"}},"propertyOrdering":["reasoning","answer"],"required":["reasoning","answer"]}},
 "tools":[{"functionDeclarations":[{"name":"route","parameters":{"type":"OBJECT","properties":{"zeta":{"type":"STRING"},"alpha":{"type":"NUMBER","nullable":true}}}}]}]}`
	resp, body := geminiPost(t, gw.url, "/v1beta/models/to-gpt:generateContent", req)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	got := gw.p.Requests()
	if len(got) != 1 {
		t.Fatalf("OpenAI got %d requests", len(got))
	}
	for _, w := range []string{
		`"schema":{"type":"object","properties":{"reasoning":{"type":"string","description":"a < b"},"answer":{"type":"integer"}},"required":["reasoning","answer"]}`,
		`"parameters":{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":["number","null"]}}}`,
	} {
		if !strings.Contains(string(got[0].Body), w) {
			t.Errorf("OpenAI's request %s\nlacks %s", got[0].Body, w)
		}
	}
}

// Build 69p: a relay in front of Gemini that ends a passed-through stream
// with OpenAI's data: [DONE] (which Google never sends) had it forwarded
// to the Gemini client, which would parse it as a GenerateContentResponse.
// The stream ends normally without it.
func TestGeminiDoorRelaysDoneIsNotForwarded(t *testing.T) {
	up := upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Events: []string{
		`{"candidates":[{"content":{"role":"model","parts":[{"text":"str"}]},"index":0}]}`,
		`{"candidates":[{"content":{"role":"model","parts":[{"text":"eamed"}]},"index":0}],"usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":2,"totalTokenCount":6}}`,
		`[DONE]`}}))
	t.Cleanup(up.Close)
	cfg := `
client_keys: [gk-one]
providers:
  - {name: g, dialect: gemini, base_url: "` + up.URL + `", api_key: sk-gem}
targets:
  - {name: gem, model: gemini-2.0-flash, providers: [g]}
routes:
  - {name: to-gem, targets: [gem]}
`
	recs := gatewaytest.NewRecords()
	url, _ := gatewaytest.Start(t, gatewaytest.Config(t, cfg), app.Options{Decisions: recs})
	resp, body := postWith(t, url, "/v1beta/models/to-gem:streamGenerateContent?alt=sse",
		`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`, "X-Goog-Api-Key", "gk-one")
	if resp.StatusCode != 200 || !strings.Contains(body, `"text":"eamed"`) || strings.Contains(body, "DONE") || strings.Contains(body, `"error"`) {
		t.Errorf("%d %q, want both events and no [DONE]", resp.StatusCode, body)
	}
	if d := recs.Wait(t, 1); d.Outcome != "ok" {
		t.Errorf("recorded %s/%s, want ok", d.Class, d.Outcome)
	}
}
