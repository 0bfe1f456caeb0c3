package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 64i: an attempt Detour did not send records its own reason
// (finish.go, decision.Unsent). Go's %q in an adapter's error writes the
// client's value with its own escapes: a quote inside it ended
// decision.MaskQuoted's quoted value early, and a control character written
// `\a` kept the word after it from matching the request, so the echo mask
// missed it too, and the value (a key pasted by mistake, a user's text)
// reached the decision log and the console. An escaped double quote
// closes no quoted value now (decision.MaskQuoted), so the value is masked
// whole.
func TestReview64iUnsentReasonMasksClientValues(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"gemini": script(ok("never", "never")),
		"openai": script(ok("gpt-4o", "fine")),
	})
	g := start(t, `
providers:
  - {name: gemini, dialect: gemini, base_url: "{gemini}", api_key: `+secret+`}
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: `+secret+`}
targets:
  - {name: gem, model: gemini-2.5-flash, providers: [gemini]}
  - {name: gpt, model: gpt-4o, providers: [openai]}
routes:
  - {name: r, targets: [gem, gpt]}
`, fs)
	const token = "sk-live-51HqZr8x2AbCdEfGhIjKlMn"
	for i, c := range []struct{ name, id string }{
		{"plain", token},
		{"a quote, then a bell", `a\" ` + token + `\u0007`},
		{"a quote, then short words", `a\" pw Zq9shortpw pin 4711`},
		{"a quote, then a long name and a bell", `a\" JonathanSmithersonMRN\u0007`},
		{"a quote, then words and a bell", `a\" diagnosis: Huntington\u0007 disease`},
	} {
		body := `{"model":"r","messages":[{"role":"user","content":"weather?"},` +
			`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"w","arguments":"{}"}}]},` +
			`{"role":"tool","tool_call_id":"` + c.id + `","content":"sunny"}],` +
			`"tools":[{"type":"function","function":{"name":"w","parameters":{"type":"object"}}}]}`
		r := g.raw(t, http.MethodPost, "/v1/chat/completions", body)
		d := g.recs.wait(t, i+1)
		if len(d.Attempts) == 0 {
			t.Fatalf("%s: no attempts; client got %d %s", c.name, r.Status, r.Body)
		}
		a := d.Attempts[0]
		if a.Evidence != "translate" || !strings.HasPrefix(a.Message, "Detour could not translate the request for gemini: ") {
			t.Errorf("%s: attempt %+v, want Detour's reason for an untranslated request", c.name, a)
		}
		for _, leak := range []string{token, "Zq9shortpw", "JonathanSmithersonMRN", "Huntington"} {
			if strings.Contains(a.Message, leak) {
				t.Errorf("%s: the record's message holds the client's %q: %q", c.name, leak, a.Message)
			}
		}
	}
}
