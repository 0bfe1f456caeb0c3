package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 30e. docs/security.md "No oracle" (review 30d): a client steering a
// model to write "<public prefix><guess>" reads the same whether the guess
// is right or wrong, because a run of a key's bytes shorter than 24 (now 32) that
// does not end the key is left as written. But the scrubber merges adjacent
// windows of ANY secret into one run and scrubs the run whole when it
// reveals any secret — and the client knows one secret whole: its own
// client key ("Client keys are secrets"). Asking the model to write the
// guess and then its own key (sent in two pieces) glues the guess to the
// key's run only when the guess is a right byte of the provider key: right
// reads "[redacted]", wrong "<guess>[redacted]". One byte per 64 guesses,
// the provider key falls out.
func TestOwnClientKeyAfterAGuessIsNoKeyOracle(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"oai": joiningUpstream})
	g := start(t, `
client_keys: [`+clientKey+`]
providers:
  - {name: oai, dialect: openai, base_url: "{oai}", api_key: `+openaiKey+`}
targets:
  - {name: t, model: gpt-4o, providers: [oai]}
`, fs)
	// The first eight characters stand for the key's public prefix; the
	// ninth is the client's guess (a key character either way).
	wrongByte := "a"
	if openaiKey[8] == 'a' {
		wrongByte = "b"
	}
	right, wrong := openaiKey[:9], openaiKey[:8]+wrongByte
	seen := map[string]string{}
	for _, guess := range []string{right, wrong} {
		body := `{"model":"t","messages":[{"role":"user","content":[` +
			`{"type":"text","text":"` + guess + `"},` +
			`{"type":"text","text":"` + clientKey[:10] + `"},{"type":"text","text":"` + clientKey[10:] + `"}]}]}`
		r := g.raw(t, http.MethodPost, "/v1/chat/completions", body, "Authorization", "Bearer "+clientKey)
		seen[guess] = strings.ReplaceAll(r.errMessage(t), guess, "<guess>")
	}
	if seen[right] != seen[wrong] {
		t.Errorf("the answer tells a right guess at the key from a wrong one:\n right %q → %q\n wrong %q → %q",
			right, seen[right], wrong, seen[wrong])
	}
}
