package console

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/suggest"
)

// body wraps msg in an OpenAI error envelope, with <, > and & escaped as
// Go's encoder does (escapeHTML) or not.
func body(msg string, escapeHTML bool) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	enc.Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
	return b.Bytes()
}

// groupOf is the console's group for one unknown answer of provider with
// status and msg, recorded as Detour records it.
func groupOf(t *testing.T, provider string, status int, msg string) Group {
	t.Helper()
	c := New(Options{Size: 10})
	c.Write(&decision.Decision{ID: decision.NewID(), Time: time.Now(), Route: "r", Outcome: "error",
		Attempts: []decision.Attempt{{Target: "a", Provider: provider, Status: status, Class: "unknown", Action: "stop",
			Message: decision.UpstreamMessage(msg)}}})
	gs := c.unknowns()
	if len(gs) != 1 {
		t.Fatalf("%q: %d groups", msg, len(gs))
	}
	return gs[0]
}

// asQuota is g's rule with the operator's choice of class: quota.
func asQuota(g Group) string {
	return strings.Replace(g.Rule, ", class: "+g.Class+"}", ", class: quota}", 1)
}

// The suggested rule, pasted into a configuration, classifies the answer
// it was made from, and the next answer that differs only in what is
// masked; it leaves other answers alone.
func TestSuggestedRuleClassifiesTheNextSuchAnswer(t *testing.T) {
	for _, c := range []struct{ msg, next, other string }{
		{"The frobnicator refused request 7781 for model 'gpt-4o'.", "The frobnicator refused request 12 for model 'o3-mini'.", "The model is overloaded."},
		{`Parameter "reasoning_effort" can't be combined with tools <beta> & streaming; see https://x.test/a/b`,
			`Parameter "top_k" can't be combined with tools <beta> & streaming; see https://x.test/c`, "Parameter missing."},
		{"Line one of the error.\nLine two says: try again at 2026-11-30T10:00:00Z", "Line one of the error.\nLine two says: try again at 2027-01-01T00:00:00Z", "Line three."},
		{"账户余额不足, 请充值 (code 1008)", "账户余额不足, 请充值 (code 7)", "余额充足"},
		{"You've hit the organisation's cap of 50 requests/day (org_abc123def)", "You've hit the organisation's cap of 500 requests/day (org_zz99xx11)", "You've been rate limited."},
	} {
		g := groupOf(t, "odd-provider", 400, c.msg)
		if g.Match == "" {
			t.Errorf("%q: no expression", c.msg)
			continue
		}
		line := asQuota(g)
		yaml := `providers:
  - {name: odd-provider, dialect: openai, base_url: "https://x.test/v1"}
targets:
  - {name: t, model: m, providers: [odd-provider]}
classify:
  rules:
    ` + line + "\n"
		cfg, err := config.Parse("c.yaml", []byte(yaml), nil)
		if err != nil {
			t.Errorf("rule %s does not parse: %v", line, err)
			continue
		}
		cl := &classify.Classifier{Rules: cfg.Rules}
		verdict := func(msg string, escape bool, status int) classify.Verdict {
			return cl.Classify(classify.Response{Status: status, Body: body(msg, escape), Dialect: classify.OpenAI, Provider: "odd-provider"})
		}
		for _, m := range []string{c.msg, c.next} {
			for _, esc := range []bool{false, true} {
				if v := verdict(m, esc, 400); v.Class != classify.Quota || v.Evidence != "rule:1" {
					t.Errorf("rule %s on %q (escapeHTML %v): %s %s", line, m, esc, v.Class, v.Evidence)
				}
			}
		}
		if v := verdict(c.other, false, 400); v.Evidence == "rule:1" {
			t.Errorf("rule %s also took %q", line, c.other)
		}
		if v := verdict(c.msg, false, 404); v.Evidence == "rule:1" {
			t.Errorf("rule %s also took another status", line)
		}
	}
}

// The console reads records scrubbed (docs/security.md): where an upstream
// echoed a key or its own address the message says [redacted] or
// [provider NAME]. Those stand for text a rule cannot know: the suggested
// rule must still take the raw answer, and answers differing only there
// are one group.
func TestSuggestedRuleFromAScrubbedMessage(t *testing.T) {
	recorded := "Frobnication failed at [provider up]/v1 with [redacted] and then [address] gave up"
	raw := []string{
		"Frobnication failed at http://10.0.0.5:8000/v1 with sk-live-Aa11Bb22Cc33 and then 10.0.0.9:443 gave up",
		"Frobnication failed at https://gw.internal/v1 with key-Zz99 and then [::1]:80 gave up",
	}
	c := New(Options{Size: 10})
	for _, m := range []string{recorded, "Frobnication failed at [provider other]/v1 with [redacted] and then [address] gave up"} {
		c.Write(&decision.Decision{ID: decision.NewID(), Time: time.Now(), Route: "r", Outcome: "error",
			Attempts: []decision.Attempt{{Target: "a", Provider: "up", Status: 400, Class: "unknown", Action: "stop", Message: m}}})
	}
	gs := c.unknowns()
	if len(gs) != 1 || gs[0].Count != 2 {
		t.Fatalf("one answer, %d groups: %+v", len(gs), gs)
	}
	line := asQuota(gs[0])
	cfg, err := config.Parse("c.yaml", []byte(`providers:
  - {name: up, dialect: openai, base_url: "https://x.test/v1"}
targets:
  - {name: t, model: m, providers: [up]}
classify:
  rules:
    `+line+"\n"), nil)
	if err != nil {
		t.Fatalf("rule %s does not parse: %v", line, err)
	}
	cl := &classify.Classifier{Rules: cfg.Rules}
	for _, m := range raw {
		if v := cl.Classify(classify.Response{Status: 400, Body: body(m, false), Dialect: classify.OpenAI, Provider: "up"}); v.Evidence != "rule:1" {
			t.Errorf("rule %s on %q: %s %s", line, m, v.Class, v.Evidence)
		}
	}
}

func TestUnknownsGroupAndCount(t *testing.T) {
	now := time.Date(2026, 11, 30, 9, 30, 0, 0, time.UTC)
	c := New(Options{Size: 10, Now: func() time.Time { return now }})
	rec := func(at time.Time, provider string, status int, msg string) *decision.Decision {
		return &decision.Decision{ID: decision.NewID(), Time: at, Route: "r", Outcome: "ok",
			Attempts: []decision.Attempt{
				{Target: "a", Provider: provider, Status: status, Class: "unknown", Evidence: "status:400", Action: "next_target", Message: msg},
				{Target: "b", Provider: "up", Status: 200, Action: "done"}}}
	}
	c.Write(rec(now.Add(-3*time.Minute), "odd", 400, "Request 7781 rejected for 'gpt-4o'"))
	c.Write(rec(now.Add(-2*time.Minute), "odd", 400, "Request 12 rejected for 'o3'"))
	c.Write(rec(now.Add(-1*time.Minute), "odd", 422, "Request 12 rejected for 'o3'"))
	c.Write(rec(now, "other", 400, strings.Repeat("x", 296)+"…"))
	gs := c.unknowns()
	if len(gs) != 3 {
		t.Fatalf("%d groups: %+v", len(gs), gs)
	}
	g := gs[2]
	if g.Provider != "odd" || g.Status != 400 || g.Count != 2 || g.Pattern != "Request <n> rejected for <q>" ||
		!g.First.Equal(now.Add(-3*time.Minute)) || !g.Last.Equal(now.Add(-2*time.Minute)) || g.Example != "Request 12 rejected for 'o3'" {
		t.Errorf("group %+v", g)
	}
	if g.Class != "bad_request" || g.Rule != `- {provider: odd, status: 400, match: '(?i)Request[^"]*?rejected[^"]*?for[^"]*?''(?:[^"\\]|\\.)*?''', class: bad_request}` {
		t.Errorf("suggestion %q / %q", g.Class, g.Rule)
	}
	if gs[0].Provider != "other" || strings.Contains(gs[0].Match, "…") {
		t.Errorf("newest first, a truncated message's mark left out: %+v", gs[0])
	}
}

func TestGroupsAreBounded(t *testing.T) {
	g := newGroups(3)
	at := time.Unix(0, 0)
	for i, m := range []string{"alpha one", "beta two", "gamma three", "delta four"} {
		g.add(decision.Attempt{Provider: "p", Status: 400, Message: m}, suggest.Parse(m), at.Add(time.Duration(i)*time.Second))
	}
	l := g.list()
	if len(l) != 3 || l[2].Pattern != "beta two" {
		t.Errorf("kept %+v, want the three most recently seen", l)
	}
}

// An answer the operator's own rule filed as unknown (evidence rule:N) is
// no group on the page: the rule the page offers would undo the
// operator's (operator review 52). Beside it, one the classifier could not
// place is.
func TestUnknownsLeaveTheOperatorsRuleAlone(t *testing.T) {
	c := New(Options{Size: 10})
	c.Write(&decision.Decision{ID: decision.NewID(), Time: time.Now(), Route: "r", Outcome: "error",
		Attempts: []decision.Attempt{
			{Target: "a", Provider: "anthropic", Status: 400, Class: "unknown", Evidence: "rule:1", Action: "next_target",
				Message: decision.UpstreamMessage("Your credit balance is too low to access the Anthropic API.")},
			{Target: "b", Provider: "odd", Status: 400, Class: "unknown", Evidence: "status:400", Action: "stop",
				Message: decision.UpstreamMessage("The frobnicator declined")}}})
	gs := c.unknowns()
	if len(gs) != 1 || gs[0].Provider != "odd" {
		t.Errorf("groups %+v, want only the odd provider's", gs)
	}
}
