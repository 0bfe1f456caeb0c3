package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 64j. Round 64 records Detour's own reason for an attempt it did
// not send, the client's values masked by maskGoQuoted (a Go-quoted value
// whole) and recordWords (a long word or a run of three words the request
// holds). The Messages door's refusals for a non-Anthropic target quote the
// client's raw JSON with %s (midsystem.go: "clear_at %s"), not %q: a JSON
// string with an escape Go's syntax lacks (`\/`) is no Go-quoted value, and
// an escaped quote inside it ends decision.MaskQuoted's quoted value early,
// so a word after it shorter than recordWords' long word, in a run of
// fewer than three, reaches the record (and the console, the decision log)
// unmasked: the leak review 64i closed for Go-quoted values ("Zq9shortpw").
func TestReview64jUnsentReasonQuotesRawJSON(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai":    script(ok("gpt-4o", "never")),
		"anthropic": script(claudeAnswerWith(`{"input_tokens":3,"output_tokens":2}`)),
	})
	g := start(t, `
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: `+secret+`}
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: `+secret+`}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai]}
  - {name: claude, model: claude-opus-4-5, providers: [anthropic]}
routes:
  - {name: r, targets: [gpt, claude]}
`, fs)
	clearAt := `"\/ a\" Zq9shortpw \/"`
	body := `{"model":"r","max_tokens":16,"messages":[{"role":"user","content":"hi"},` +
		`{"role":"system","content":"x","clear_at":` + clearAt + `},{"role":"user","content":"go on"}]}`
	r := g.raw(t, http.MethodPost, "/v1/messages", body, "anthropic-version", "2023-06-01")
	d := g.recs.wait(t, 1)
	if len(d.Attempts) == 0 {
		t.Fatalf("no attempts; client %d %s", r.Status, r.Body)
	}
	a := d.Attempts[0]
	t.Logf("client %d; attempt %s %d %s %s: %q", r.Status, a.Provider, a.Status, a.Class, a.Evidence, a.Message)
	if a.Evidence != "translate" {
		t.Fatalf("the first attempt is not one Detour could not translate: %+v", a)
	}
	for _, leak := range []string{"Zq9shortpw"} {
		if strings.Contains(a.Message, leak) {
			t.Errorf("the record's reason holds the client's %q: %q", leak, a.Message)
		}
	}
}
