package server_test

import (
	"net/http"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// review53b: keyIndex (clients.go) reads X-Api-Key first, else the Bearer
// token, "as the doors read them" — but the OpenAI doors (chat, responses,
// embeddings) authenticate by the Bearer token alone (clientOf), and an
// x-api-key beside it is not theirs (an SDK default header, a proxy's, a
// client configured for both APIs). Such a request is admitted on its
// Bearer key (the new one, 2) and recorded as the key in x-api-key (the
// old one, 1), or as none when x-api-key holds something else: the
// operator counting '"client_key":1' before removing the old key (the
// docs/deploy.md recipe) counts the wrong clients.
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
	for i, c := range []struct {
		xapikey string
		want    int
	}{{"key-team-a-old", 2}, {"sk-ant-some-other-key", 2}} {
		st, b := r48bDo(t, url, http.MethodPost, "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
			"Authorization", "Bearer key-team-a-new", "X-Api-Key", c.xapikey, "Content-Type", "application/json")
		if st != 200 {
			t.Fatalf("%d %s", st, b)
		}
		if d := recs.Wait(t, i+1); d.ClientKey != c.want {
			t.Errorf("chat door, Bearer key-team-a-new (admitted) beside x-api-key %s: record client_key %d, want %d", c.xapikey, d.ClientKey, c.want)
		}
	}
}
