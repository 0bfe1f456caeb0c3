package main

import (
	"strings"
	"testing"
	"time"
)

// review58b: with --by client,target, a client name holding NUL (the
// key separator, query.KeySep) was still split at it by writeRow
// (strings.SplitN(r.Key, KeySep, n)): the CLIENT column showed "evil" and
// the TARGET column the rest of the name joined to the target, escaped.
// The key's parts carry a NUL as U+FFFD now.
func TestReview58bUsageNulNameStaysInItsColumn(t *testing.T) {
	now := time.Now().UTC().Add(-time.Hour).Format(time.RFC3339Nano)
	log := `{"id":"a2","time":"` + now + `","route":"deep","client":"evil\u0000mini","outcome":"ok","attempts":[` +
		`{"target":"gpt","provider":"openai","action":"done","billable":true,"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15},"cost_usd":0.01}]}` + "\n"
	out, errs, code := runUsageT(t, "-f", logFile(t, log), "--by", "client,target")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	t.Logf("%s", out)
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && strings.Contains(l, "mini") {
			if f[1] != "gpt" {
				t.Errorf("TARGET column is %q, want gpt (the client's name %q was split at its NUL)", f[1], f[0])
			}
		}
	}
}
