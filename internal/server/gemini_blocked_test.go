package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A prompt Google blocked (a 200 with promptFeedback.blockReason and no
// candidates) is a refusal at the Gemini door as at every door
// (docs/doors.md, "Google Gemini"): whether the Gemini target was passed
// the client's body or an OpenAI target answered a translation with its
// own refusal, the client gets one 400 INVALID_ARGUMENT naming the reason,
// the walk does not replay the prompt at the next target, and the record
// says refusal.
func TestGeminiDoorBlockedPromptIsARefusal(t *testing.T) {
	blocked := `{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"},"usageMetadata":{"promptTokenCount":9,"totalTokenCount":9},"modelVersion":"gemini-2.0-flash-001"}`
	g := upstreamtest.New(func(_ int, r upstreamtest.Request) upstreamtest.Step {
		if strings.Contains(r.Path, ":streamGenerateContent") {
			return upstreamtest.Step{Events: []string{blocked}}
		}
		return upstreamtest.Step{Body: blocked}
	})
	next := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o-mini", "replayed")}
	})
	t.Cleanup(g.Close)
	t.Cleanup(next.Close)
	cfg := strings.NewReplacer("{g}", g.URL, "{p}", next.URL).Replace(`
client_keys:
  - {name: app, key: gk-one}
providers:
  - {name: g, dialect: gemini, base_url: "{g}", api_key: sk-gem}
  - {name: p, dialect: openai, base_url: "{p}", api_key: sk-openai}
targets:
  - {name: gem, model: gemini-2.0-flash, providers: [g]}
  - {name: gpt, model: gpt-4o-mini, providers: [p]}
routes:
  - {name: r, targets: [gem, gpt]}
`)
	recs := gatewaytest.NewRecords()
	url, _ := gatewaytest.Start(t, gatewaytest.Config(t, cfg), app.Options{Decisions: recs})
	for i, path := range []string{"/v1beta/models/r:generateContent", "/v1beta/models/r:streamGenerateContent?alt=sse"} {
		resp, body := geminiPost(t, url, path, geminiHello)
		if i == 1 { // streamed: nothing was written, so the refusal is the status
			body = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(body), "data:"))
		}
		var e struct {
			Error struct {
				Code    int
				Message string
				Status  string
			}
		}
		if resp.StatusCode != 400 || json.Unmarshal([]byte(body), &e) != nil || e.Error.Code != 400 ||
			e.Error.Status != "INVALID_ARGUMENT" || !strings.Contains(e.Error.Message, "PROHIBITED_CONTENT") {
			t.Errorf("%s: %d %s, want a 400 INVALID_ARGUMENT naming the block reason", path, resp.StatusCode, body)
		}
		if d := recs.Wait(t, i+1); d.Class != "refusal" || d.Outcome != "error" {
			t.Errorf("%s: recorded %s/%s, want refusal/error", path, d.Class, d.Outcome)
		}
	}
	if n := len(next.Requests()); n != 0 {
		t.Errorf("the blocked prompt was replayed at the next target %d times", n)
	}
}
