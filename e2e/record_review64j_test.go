package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 64j. Detour's own reason for an attempt it did not send is
// recorded with every quoted value masked (decision.MaskQuoted). The
// Messages door's refusal of clear_at for a non-Anthropic target quoted the
// client's raw JSON with %s, and an escaped quote inside it ended the
// masked value early, so a short word after it ("Zq9shortpw") reached the
// record, the console and the decision log. Now the refusal names no value,
// and an escaped double quote closes nothing.
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
	// Detour's own words stay readable: they are written unquoted, and
	// only quoted values are masked (review 64k: "clear_at other than
	// \"…\"" told an operator nothing).
	if !strings.Contains(a.Message, "clear_at other than next_user_message") {
		t.Errorf("the record's reason lost Detour's own words: %q", a.Message)
	}
}
