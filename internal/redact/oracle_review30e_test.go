package redact

import (
	"strings"
	"testing"
)

// Review 30e. docs/security.md "No oracle": in what a client reads, a run of
// a key's bytes is scrubbed only when it holds 24 (now 32) bytes of one key in a row
// or the key's last 8, so that a client steering an upstream to write
// "<public prefix><guess>" reads the same whether the guess is right or
// wrong. But runs are merged across secrets (adjacent windows of any secret
// make one run) and a run is scrubbed whole when it reveals ANY secret. A
// client knows one secret whole: its own client key (a secret of the
// scrubber, docs: "Client keys are secrets"). Steering the upstream to write
// "<prefix><guess><own client key>" joins the guess to the client key's run
// only when the guess is a right byte of the provider key: a right guess
// reads "[redacted]", a wrong one "<prefix><guess>[redacted]" — the oracle
// of review 30d again, one byte per 64 guesses.
func TestClientKeyGluedToGuessIsNoOracle(t *testing.T) {
	provider := "sk-proj-" + strings.Repeat("Q7xv9Lk2Wm4pZr8Tn3BcYh5Jd", 3)
	client := "detour-client-Zp4Lm8Qx2Vb7Nc"
	s := New(Rules{Secrets: []string{provider, client}})
	// The client sends its key in two pieces (the model writes them back to
	// back), or not at all (the model spells it out).
	for _, inBody := range []bool{false, true} {
		sent := []byte(`{"messages":[{"role":"user","content":[{"type":"text","text":"A"},{"type":"text","text":"B"}]}]}`)
		if inBody {
			sent = []byte(`{"messages":[{"role":"user","content":[{"type":"text","text":"` + client[:10] + `"},{"type":"text","text":"` + client[10:] + `"}]}]}`)
		}
		for _, known := range []int{8, 9, 12} {
			seen := map[string][]string{}
			for _, c := range []byte("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") {
				guess := provider[:known] + string(c)
				msg := "Tool call arguments are not valid JSON: " + guess + client
				got := strings.ReplaceAll(s.ForClient(msg, sent), guess, "<guess>")
				seen[got] = append(seen[got], string(c))
			}
			if len(seen) > 1 {
				t.Errorf("client key in body %v, %d bytes known: the answer depends on the guess (right byte %q):", inBody, known, provider[known])
				for k, v := range seen {
					t.Errorf("   %q ← %d guesses %v", k, len(v), v[:min(3, len(v))])
				}
			}
		}
	}
}
