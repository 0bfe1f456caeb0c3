package server_test

import (
	"net/http"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A client entry listing several keys (a rotation's old and new) records
// which one each request presented, so an operator sees who still uses
// the old key before removing it (operator review 53b: both records were
// the same); an entry of one key records none.
func TestRecordSaysWhichKeyOfTheClient(t *testing.T) {
	up := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("m", "hello")}
	})
	t.Cleanup(up.Close)
	url, _, recs := r37aGateway(t, `
client_keys:
  - {name: team-a, key: [key-team-a-old, key-team-a-new]}
  - {name: team-b, key: key-team-b}
providers:
  - {name: p, dialect: openai, base_url: "{up}", api_key: sk-test-provider-key}
targets:
  - {name: m, model: m, providers: [p]}
`, up, nil)
	for i, c := range []struct {
		header, key string
		want        int
	}{{"Authorization", "Bearer key-team-a-new", 2}, {"Authorization", "Bearer key-team-a-old", 1}, {"Authorization", "Bearer key-team-b", 0}} {
		st, b := r48bDo(t, url, http.MethodPost, "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, c.header, c.key, "Content-Type", "application/json")
		if st != 200 {
			t.Fatalf("%s: %d %s", c.key, st, b)
		}
		if d := recs.Wait(t, i+1); d.ClientKey != c.want {
			t.Errorf("%s: record client %q client_key %d, want %d", c.key, d.Client, d.ClientKey, c.want)
		}
	}
}
