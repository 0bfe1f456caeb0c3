package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Every failed attempt an upstream answered keeps the upstream's words in
// the decision record: an operator asked "why did my request fail" reads
// what the provider said, not only the class and the rule
// (operator review 50: a 400's record held "phrase:must have" alone).
// Quoted values are masked and the gateway's own key scrubbed, as for
// unknown answers before.
func TestFailedAttemptKeepsTheUpstreamsMessage(t *testing.T) {
	// anthropic-messages-0-all-messages-must-have-non-empty-content-400 (corpus).
	empty := `{"type":"error","error":{"type":"invalid_request_error","message":"messages.0: all messages must have non-empty content except for the optional final assistant message"}}`
	// OpenAI's invalid-key answer (corpus openai-invalid-api-key-401),
	// here naming the gateway's own key in full.
	badKey := `{"error":{"message":"Incorrect API key provided: ` + secret + `. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`
	fs := fakes(t, map[string]upstreamtest.Script{
		"anth": script(upstreamtest.Step{Status: 400, Body: empty}),
		"oa":   script(upstreamtest.Step{Status: 401, Body: badKey}),
	})
	g := start(t, `
providers:
  - {name: anth, dialect: anthropic, base_url: "{anth}", api_key: `+secret+`}
  - {name: oa, dialect: openai, base_url: "{oa}", api_key: `+secret+`}
targets:
  - {name: c, model: claude-sonnet-4-5, providers: [anth]}
  - {name: g, model: gpt-4o, providers: [oa]}
routes:
  - {name: r1, targets: [c]}
  - {name: r2, targets: [g]}
`, fs)
	g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"r1","messages":[{"role":"user","content":"hi"}]}`)
	d := g.recs.wait(t, 1)
	if a := d.Attempts[0]; a.Class != "bad_request" || !strings.Contains(a.Message, "all messages must have non-empty content") {
		t.Errorf("bad_request attempt: class %s, message %q", a.Class, a.Message)
	}
	g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"r2","messages":[{"role":"user","content":"hi"}]}`)
	d = g.recs.wait(t, 2)
	if a := d.Attempts[0]; a.Class != "auth" || !strings.Contains(a.Message, "You can find your API key") || strings.Contains(a.Message, secret) {
		t.Errorf("auth attempt: class %s, message %q", a.Class, a.Message)
	}
}
