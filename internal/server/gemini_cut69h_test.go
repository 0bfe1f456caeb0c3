package server_test

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Probe 69h: a translated stream cut after its first words reaches the
// Gemini door's client as those words and then Google's error envelope, as
// it does at the other doors. The encoder holds the text last said until
// more follows (every frame then carries content); a failure after the
// commit point wrote the error frame alone, so the words the upstream had
// sent (and billed) were lost: @ai-sdk/google's streamText reported an
// error with no text, where the Messages and chat doors give the text
// first.
func TestGeminiDoorCutStreamKeepsItsWords(t *testing.T) {
	ev := upstreamtest.ChatStream("gpt-4o-mini", "first ", "words")
	up := upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Events: ev[:3], Cut: true}))
	t.Cleanup(up.Close)
	cfg := `
client_keys: [gk-one]
providers:
  - {name: p, dialect: openai, base_url: "` + up.URL + `", api_key: sk-openai}
targets:
  - {name: gpt, model: gpt-4o-mini, providers: [p]}
routes:
  - {name: to-gpt, targets: [gpt]}
`
	url, _ := gatewaytest.Start(t, gatewaytest.Config(t, cfg), app.Options{})
	resp, body := postWith(t, url, "/v1beta/models/to-gpt:streamGenerateContent?alt=sse",
		`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`, "X-Goog-Api-Key", "gk-one")
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	frames := strings.Split(strings.TrimSpace(body), "\r\n\r\n")
	if len(frames) != 3 || !strings.Contains(frames[0], `"text":"first "`) || !strings.Contains(frames[1], `"text":"words"`) ||
		strings.Contains(frames[1], "finishReason") || !strings.Contains(frames[2], `"error":{"code":503`) {
		t.Errorf("frames %q, want both words, then the error envelope", frames)
	}
}
