package server_test

import (
	"net/http"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// hostile 68d: the record's client_key is the one the door admitted (review
// 53b) at the OpenAI doors, which read the Bearer token alone; the Messages
// door (and count_tokens) admits by x-api-key when one is sent, as
// Anthropic's SDKs send it, and keyIndex read the Bearer token first there
// too. A client sending both (ANTHROPIC_API_KEY and ANTHROPIC_AUTH_TOKEN
// both set, which the SDKs send side by side) during a rotation was
// admitted on its old key and recorded as the new one: the operator
// counting '"client_key":1' before removing the old key (docs/deploy.md)
// counted none, removed it, and the client's next request was refused.
func TestHostile68dMessagesClientKeyIsTheKeyTheDoorAdmitted(t *testing.T) {
	up := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("m", "hello")}
	})
	t.Cleanup(up.Close)
	url, _, recs := r37aGateway(t, `
client_keys:
  - {name: team-a, key: [key-team-a-old, key-team-a-new]}
providers:
  - {name: p, dialect: openai, base_url: "{up}", api_key: sk-test-provider-key}
targets:
  - {name: m, model: m, providers: [p]}
`, up, nil)
	for i, c := range []struct {
		bearer string
		want   int
	}{{"key-team-a-new", 1}, {"some-other-token", 1}} {
		st, b := r48bDo(t, url, http.MethodPost, "/v1/messages", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`,
			"X-Api-Key", "key-team-a-old", "Authorization", "Bearer "+c.bearer, "Content-Type", "application/json", "Anthropic-Version", "2023-06-01")
		if st != 200 {
			t.Fatalf("%d %s", st, b)
		}
		if d := recs.Wait(t, i+1); d.ClientKey != c.want {
			t.Errorf("messages door, x-api-key key-team-a-old (admitted) beside Bearer %s: record client_key %d, want %d", c.bearer, d.ClientKey, c.want)
		}
	}
}
