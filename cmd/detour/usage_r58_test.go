package main

import (
	"strings"
	"testing"
)

// Finance's question, "each team's spend last week, by model" (operator
// review 58), is one command: --by joins groupings (a column each),
// --until bounds the window from above, --client keeps some keys' requests.
func TestUsageByClientAndTargetInABoundedWindow(t *testing.T) {
	p := usageLog(t)
	out, errs, code := runUsageT(t, "-f", p, "--by", "client,target")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rows := fields(out)
	if got := strings.Join(rows[0][:3], " "); got != "CLIENT TARGET REQUESTS" {
		t.Errorf("header %q", got)
	}
	want := map[string]string{"team-a gpt": "2", "team-a mini": "1", "ci mini": "1"}
	for _, r := range rows[1 : len(rows)-1] {
		if w, ok := want[r[0]+" "+r[1]]; !ok || r[2] != w {
			t.Errorf("row %v (want %v)", r, want)
		}
		delete(want, r[0]+" "+r[1])
	}
	if len(want) > 0 {
		t.Errorf("missing rows %v in\n%s", want, out)
	}
	// ci's request is 49 hours old: --until 24h keeps it alone, --client
	// team-a drops it.
	out, _, _ = runUsageT(t, "-f", p, "--until", "24h")
	if !strings.Contains(out, "ci") || strings.Contains(out, "team-a") {
		t.Errorf("--until 24h:\n%s", out)
	}
	out, _, _ = runUsageT(t, "-f", p, "--client", "team-a", "--by", "target")
	if rows := fields(out); len(rows) != 4 || rows[1][0] != "gpt" || rows[2][0] != "mini" || rows[2][1] != "1" {
		t.Errorf("--client team-a --by target:\n%s", out)
	}
	for _, bad := range [][]string{{"--by", "client,client"}, {"--by", "client,model"}, {"--until", "yesterday"}} {
		if _, errs, code := runUsageT(t, append([]string{"-f", p}, bad...)...); code != 2 || errs == "" {
			t.Errorf("%v: exit %d, %q", bad, code, errs)
		}
	}
}
