package server_test

import (
	"net/http"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// The record's client_key is the key the door admitted, read as that door
// reads keys.
//
// review53b: the OpenAI doors (chat, responses, embeddings) authenticate by
// the Bearer token alone (clientOf), and an x-api-key beside it is not
// theirs (an SDK default header, a proxy's, a client configured for both
// APIs). keyIndex read X-Api-Key first: such a request, admitted on its
// Bearer key (the new one, 2), was recorded as the key in x-api-key (the
// old one, 1), or as none when x-api-key held something else.
//
// hostile 68d: the Messages door (and count_tokens) admits by x-api-key
// when one is sent, as Anthropic's SDKs send it, and keyIndex then read the
// Bearer token first there. A client sending both (ANTHROPIC_API_KEY and
// ANTHROPIC_AUTH_TOKEN set side by side) during a rotation was admitted on
// its old key and recorded as the new one.
//
// Either way the operator counting '"client_key":1' before removing the
// old key (the docs/deploy.md recipe) counted the wrong clients, removed
// it, and a client's next request was refused.
func TestR53bClientKeyIsTheKeyTheDoorAdmitted(t *testing.T) {
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
	const chat, messages = `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`
	for i, c := range []struct {
		door, path, body, bearer, xapikey string
		want                              int
	}{
		{"chat", "/v1/chat/completions", chat, "key-team-a-new", "key-team-a-old", 2},
		{"chat", "/v1/chat/completions", chat, "key-team-a-new", "sk-ant-some-other-key", 2},
		{"messages", "/v1/messages", messages, "key-team-a-new", "key-team-a-old", 1},
		{"messages", "/v1/messages", messages, "some-other-token", "key-team-a-old", 1},
	} {
		st, b := r48bDo(t, url, http.MethodPost, c.path, c.body,
			"Authorization", "Bearer "+c.bearer, "X-Api-Key", c.xapikey, "Content-Type", "application/json", "Anthropic-Version", "2023-06-01")
		if st != 200 {
			t.Fatalf("%s door: %d %s", c.door, st, b)
		}
		if d := recs.Wait(t, i+1); d.ClientKey != c.want {
			t.Errorf("%s door, Bearer %s beside x-api-key %s: record client_key %d, want %d", c.door, c.bearer, c.xapikey, d.ClientKey, c.want)
		}
	}
}
