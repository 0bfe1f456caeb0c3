package e2e

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// An upstream's 2xx answer that a door cannot translate back into its
// client's API is the same failure on every door (docs/behaviour.md,
// "Classes" and API: "on failure also X-Detour-Class"): the attempt fails
// as unknown (evidence answer:untranslatable), and with nothing else to
// try the client gets a 502 in the door's own envelope, with
// X-Detour-Class unknown and the decision's other headers, and the record
// says the same (it once said ok beside the client's 502).
func TestDoorsUntranslatableAnswer(t *testing.T) {
	// A choice whose content is an object and whose tool call's arguments
	// are not JSON: Chat Completions relays it as is, the Messages door
	// cannot express the call's input nor the Responses door the content.
	// (A completion with no choice at all is a server_error on every door:
	// untranslatable_test.go.)
	const answer = `{"id":"chatcmpl-x","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":{"not":"text"},"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{not json"}}]},"finish_reason":"tool_calls"}]}`
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai":    func(int, upstreamtest.Request) upstreamtest.Step { return upstreamtest.Step{Body: answer} },
		"anthropic": script(),
	})
	g := start(t, messagesCfg, fs)
	for _, tc := range []struct {
		door, path, body string
		headers          []string
		// errType reads the envelope's error type.
		errType func(b []byte) string
		want    string
	}{
		{"messages", "/v1/messages", `{"model":"gpt","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}`,
			[]string{"x-api-key", "client-key-1"}, func(b []byte) string {
				var e struct {
					Type  string
					Error struct{ Type string }
				}
				if json.Unmarshal(b, &e) != nil || e.Type != "error" {
					return ""
				}
				return e.Error.Type
			}, "api_error"},
		{"responses", "/v1/responses", `{"model":"gpt","input":"hi"}`,
			[]string{"Authorization", "Bearer client-key-1"}, func(b []byte) string {
				var e struct{ Error struct{ Type string } }
				_ = json.Unmarshal(b, &e)
				return e.Error.Type
			}, "upstream_error"},
	} {
		t.Run(tc.door, func(t *testing.T) {
			r := g.raw(t, http.MethodPost, tc.path, tc.body, tc.headers...)
			r.wantStatus(t, http.StatusBadGateway)
			if got := tc.errType(r.Body); got != tc.want {
				t.Errorf("error type %q, want %q in the door's envelope: %s", got, tc.want, r.Body)
			}
			for k, v := range map[string]string{"X-Detour-Class": "unknown", "X-Detour-Route": "gpt",
				"X-Detour-Target": "gpt", "X-Detour-Provider": "openai", "X-Detour-Attempts": "1"} {
				if got := r.Header.Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			if r.Header.Get("X-Detour-Decision") == "" {
				t.Fatal("no X-Detour-Decision")
			}
			d := g.recs.byID(t, r.Header.Get("X-Detour-Decision"))
			if d.Outcome != "error" || d.Status != http.StatusBadGateway || d.Class != "unknown" ||
				d.Attempts[0].Evidence != "answer:untranslatable" {
				t.Errorf("record: outcome %q status %d class %q attempts %+v", d.Outcome, d.Status, d.Class, d.Attempts)
			}
			r.wantDate(t)
		})
	}
}
