package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// /v1/health is open to anyone who reaches the gateway, and the words it
// shows for a cooldown must not carry another client's text: a user relies
// on what it sent staying between it and the upstream. docs/security.md
// promises quoted values masked and every word of 12 bytes or more the
// request holds masked, leaving at most two short words of the client's
// own in a row. An upstream that quotes the request back between
// typographic quotes (“…”, 「…」, «…»: the habit of Chinese and European
// servers) got the client's text past both: the quote marks stuck to it, so
// neither the quoted-value mask (ASCII quotes only) nor the echo check (the
// word with its marks is not in the request) saw it. The bodies are
// constructed: OpenAI's 401 envelope with a relay's message quoting the
// client's text, as the review 40b test constructs its own.
func TestHealthWordsMaskTypographicQuotes_review40h(t *testing.T) {
	for _, c := range []struct {
		name, said, secret string
	}{
		{"a long word between curly quotes", "Rejected token for “%s” in this project", "Kx9-passphrase-of-alice"},
		{"Chinese text between curly quotes, no blanks", "无效的令牌“%s”，请检查", "爱丽丝的银行密码是蓝色大象"},
		{"a sentence between corner brackets", "Invalid credential 「%s」 rejected", "alpha bravo charlie delta echo"},
		{"a sentence between guillemets", "Accès refusé : «%s»", "alpha bravo charlie delta echo"},
		{"a long word between full-width brackets", "Rejected token （%s） in this project", "Kx9-passphrase-of-alice"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, _ := json.Marshal(strings.Replace(c.said, "%s", c.secret, 1))
			bad := upstreamtest.Step{Status: 401, Body: `{"error":{"message":` + string(m) + `,"type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`}
			g := start(t, twoTargets, fakes(t, map[string]upstreamtest.Script{"p": script(bad), "q": script(ok("model-b", "from b"))}))
			text, _ := json.Marshal(c.secret)
			g.raw(t, "POST", "/v1/chat/completions", `{"model":"r","messages":[{"role":"user","content":`+string(text)+`}]}`)
			a, _ := g.health(t).Account("p")
			if a.State != "cooling" || a.CoolingClass != "auth" {
				t.Fatalf("account p %+v, want cooling for auth", a)
			}
			t.Logf("cooling_message: %q", a.CoolingMessage)
			if a.CoolingMessage == "" {
				t.Errorf("no words at all: the upstream's own words around the value should stay")
			}
			for _, w := range strings.Fields(c.secret) {
				if len(w) >= 3 && strings.Contains(a.CoolingMessage, w) {
					t.Errorf("cooling_message %q holds the client's %q", a.CoolingMessage, w)
				}
			}
		})
	}
}
