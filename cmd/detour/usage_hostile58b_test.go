package main

import (
	"strings"
	"testing"
	"time"
)

// hostile58b: `detour usage` printed its keys raw through text/tabwriter,
// as --summary did before hostile 57c: a log from elsewhere (`-f` reads
// any JSONL) whose client is "x\x1b]0;owned\x07\nteam-b  9 ..." wrote an
// ESC sequence to the operator's terminal and forged a row, and with the
// new --by client,target a client holding NUL (the key separator) moves
// its own text into the TARGET column. config's validName admits U+202E,
// so even the gateway's own log can draw one key's name as another's.
func TestHostile58bUsageShowsHiddenCharacters(t *testing.T) {
	now := time.Now().UTC().Add(-time.Hour).Format(time.RFC3339Nano)
	rec := func(id, client string) string {
		return `{"id":"` + id + `","time":"` + now + `","route":"deep","client":"` + client + `","outcome":"ok","attempts":[` +
			`{"target":"gpt","provider":"openai","action":"done","billable":true,"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15},"cost_usd":0.01}]}` + "\n"
	}
	log := rec("a1", `x\u001b]0;owned\u0007\nteam-b  0  0`) + rec("a2", `evil\u0000mini`) + rec("a3", "ia\u202eneplo")
	for _, by := range []string{"client", "client,target"} {
		out, errs, code := runUsageT(t, "-f", logFile(t, log), "--by", by)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		t.Logf("--by %s: %q", by, out)
		if strings.ContainsAny(out, "\x1b\x07\x00\u202e") {
			t.Errorf("--by %s printed a client name's control/invisible characters raw: %q", by, out)
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "team-b") {
				t.Errorf("--by %s: a client name with a newline forged a row of its own: %q", by, l)
			}
		}
	}
}

// hostile58b: a client key's name may hold a comma (config's validName
// refuses only spaces and controls), and --client split its value on
// commas: the operator could not select that key. Each --client is a name
// whole now, repeated for several.
func TestHostile58bUsageClientNameWithComma(t *testing.T) {
	now := time.Now().UTC().Add(-time.Hour).Format(time.RFC3339Nano)
	log := `{"id":"a1","time":"` + now + `","route":"deep","client":"eng,ops","outcome":"ok","attempts":[` +
		`{"target":"gpt","provider":"openai","action":"done","billable":true,"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15},"cost_usd":0.01}]}` + "\n"
	out, errs, code := runUsageT(t, "-f", logFile(t, log), "--client", "eng,ops")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "eng,ops") {
		t.Errorf("--client eng,ops (one key's name) selected nothing:\n%s", out)
	}
}

// hostile58b: `--client team-a,` (a trailing comma, as a script joining a
// list writes it) split into "team-a" and "", and "" is the client of
// every request made without a client key: team-a's bill then held the
// anonymous requests too, silently. Each --client is one name whole now:
// team-a's bill is team-a's.
func TestHostile58bUsageClientTrailingCommaAddsAnonymous(t *testing.T) {
	now := time.Now().UTC().Add(-time.Hour).Format(time.RFC3339Nano)
	rec := func(id, client string) string {
		c := ""
		if client != "" {
			c = `"client":"` + client + `",`
		}
		return `{"id":"` + id + `","time":"` + now + `","route":"deep",` + c + `"outcome":"ok","attempts":[` +
			`{"target":"gpt","provider":"openai","action":"done","billable":true,"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15},"cost_usd":1}]}` + "\n"
	}
	out, errs, code := runUsageT(t, "-f", logFile(t, rec("a1", "team-a")+rec("a2", "")+rec("a3", "")), "--client", "team-a", "--by", "route")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rows := fields(out)
	if last := rows[len(rows)-1]; len(last) > 1 && last[1] != "1" {
		t.Errorf("--client team-a counted %s requests, want team-a's 1:\n%s", last[1], out)
	}
}
