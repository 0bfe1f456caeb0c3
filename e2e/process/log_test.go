package process

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestHealthTransitionLoggedOnce: with log.format json, one cooldown is one
// "health transition" line for the endpoint, however many requests follow
// (through the route, which skips it, and naming it, which tries it again).
func TestHealthTransitionLoggedOnce(t *testing.T) {
	t.Parallel()
	f := newGoneFleet(t)
	g := startGateway(t, "G", "log: {format: json}\n"+f.yaml(`
routes:
  - {name: cheap, strategy: fastest, targets: [grok, gpt]}
`))

	for range 4 {
		g.postOK("cheap")
	}
	for range 2 {
		if r := g.post("grok"); r.Status != 404 {
			t.Fatalf("naming the gone model: %d %s", r.Status, r.Body)
		}
	}
	if n := f.gone.Calls(); n != 3 {
		t.Fatalf("gone model called %d times, want 3 (the first routed request and the two naming it)", n)
	}
	if code := g.stop(); code != 0 { // stderr is complete once the process has exited
		t.Fatalf("exit code %d", code)
	}
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(g.stderr.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log.format json, but a stderr line is not JSON: %v: %s", err, line)
		}
		if m["msg"] == "health transition" && m["name"] == "grok/openrouter" {
			lines = append(lines, line)
			if m["from"] != "healthy" || m["to"] != "cooling" || m["class"] != "unavailable" {
				t.Errorf("transition: %s", line)
			}
		}
	}
	if len(lines) != 1 {
		t.Fatalf("%d health transition lines for grok/openrouter, want 1:\n%s", len(lines), strings.Join(lines, "\n"))
	}
}
