package e2e

import (
	"net/http"
	"testing"
)

// TestReview63oRawMidStreamError: what each door streams when an
// OpenAI-compatible (or Gemini / Anthropic) upstream breaks mid-stream
// with its error event, and what the decision record says.
func TestReview63oRawMidStreamError(t *testing.T) {
	plan := func(r p63oReq) p63oTurn {
		return p63oTurn{Text: []string{"Partial answer that ", "will break"}, ErrAfter: true, In: 100, Out: 3}
	}
	for _, route := range []string{"r-oai", "r-gem", "r-ant"} {
		for _, door := range []string{"/v1/messages", "/v1/chat/completions", "/v1/responses"} {
			t.Run(route+door, func(t *testing.T) {
				g, _, _, _ := startP63oWith(t, plan)
				body := `{"model":"` + route + `","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"hi"}]}`
				if door == "/v1/responses" {
					body = `{"model":"` + route + `","stream":true,"input":"hi"}`
				}
				r := g.raw(t, http.MethodPost, door, body, "x-api-key", "k", "anthropic-version", "2023-06-01")
				d := g.recs.wait(t, 1)
				t.Logf("status %d; decision outcome %q steps %v\n%s", r.Status, d.Outcome, steps(d), r.Body)
				if d.Outcome == "ok" {
					t.Errorf("a stream that broke with the upstream's error event is recorded ok")
				}
			})
		}
	}
}

// TestReview63oRawMessagesUsage: message_start and message_delta of a
// successful Messages-door stream per target.
func TestReview63oRawMessagesUsage(t *testing.T) {
	plan := func(r p63oReq) p63oTurn {
		return p63oTurn{Text: []string{"Recovered: ", "ok"}, In: 100, Out: 4}
	}
	for _, route := range []string{"r-oai", "r-gem", "r-ant"} {
		t.Run(route, func(t *testing.T) {
			g, _, _, _ := startP63oWith(t, plan)
			body := `{"model":"` + route + `","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"hi"}]}`
			r := g.raw(t, http.MethodPost, "/v1/messages", body, "x-api-key", "k", "anthropic-version", "2023-06-01")
			for _, e := range r.events() {
				if e.Name == "message_start" || e.Name == "message_delta" {
					t.Logf("%s %s", e.Name, e.Data)
				}
			}
		})
	}
}
