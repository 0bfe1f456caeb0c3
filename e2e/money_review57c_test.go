package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// TestReview57cLeftAnswerAllowanceRace: run under -race (CI does). A
// limited key's whole answer is left after it was sent. A first version
// gave its body's in-flight allowance back from attemptContext's
// AfterFunc, on that function's own goroutine, while the request's
// goroutine later read and wrote the same count (s.end, concurrent.go):
// a race, and a possible second give-back. The allowance now goes back on
// the request's goroutine only, when the answer is read.
func TestReview57cLeftAnswerAllowanceRace(t *testing.T) {
	keys := "client_keys:\n  - {name: leaver, key: key-leaver, rate: {requests_per_minute: 1000}}\n"
	fs := fakes(t, map[string]upstreamtest.Script{"openai": func(n int, r upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Delay: 700 * time.Millisecond, Body: upstreamtest.ChatJSON("gpt-4o", "late")}
	}})
	g := start(t, keys+`providers:
  - {name: openai, dialect: anthropic, base_url: "{openai}", api_key: `+secret+`}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai]}
routes:
  - {name: chat, targets: [gpt]}
`, fs)
	for range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, g.URL+"/v1/chat/completions",
			strings.NewReader(`{"model":"chat","messages":[{"role":"user","content":"`+strings.Repeat("hello ", 2000)+`"}]}`))
		req.Header.Set("Authorization", "Bearer key-leaver")
		req.Header.Set("Content-Type", "application/json")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
		cancel()
		time.Sleep(1500 * time.Millisecond) // the left answer is read and the request ends (s.end)
	}
}
