package process

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// TestSecondSignalEndsTheDrainAndKeepsTheRecords: an operator who sends a
// second SIGTERM (or presses Ctrl-C twice) wants the process gone now, not
// after --grace. Before round 57 the second signal was swallowed for the
// whole main drain, and during the admin listener's drain it killed the
// process before the final flush, so the requests it ended were missing
// from the decision log. Now the second signal ends the drain at once, the
// requests in flight are ended as at the end of the grace (an SSE error
// event, a 503), and their records are written before the process exits 0.
func TestSecondSignalEndsTheDrainAndKeepsTheRecords(t *testing.T) {
	t.Parallel()
	parts := strings.Split(strings.Repeat("word ", 600), " ")
	slow := fake(t, upstreamtest.Step{Events: upstreamtest.ChatStream("gpt-4o", parts...), EventDelay: 200 * time.Millisecond})
	admin := "127.0.0.1:" + strconv.Itoa(freePort(t))
	g := startGateway(t, "G", "admin_listen: "+admin+"\n"+render(`
providers:
  - {name: slow, dialect: openai, base_url: "{slow}", api_key: sk-test}
targets:
  - {name: gpt, model: gpt-4o, providers: [slow]}
`, map[string]string{"slow": slow.URL}), "--grace", "120s")

	resp, err := client.Post(g.URL+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"gpt","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	id := resp.Header.Get("X-Detour-Decision")
	rd := bufio.NewReader(resp.Body)
	var got strings.Builder
	for !strings.Contains(got.String(), "word") { // the stream is committed
		line, err := rd.ReadString('\n')
		got.WriteString(line)
		if err != nil {
			t.Fatalf("stream ended before its first content: %v: %s", err, got.String())
		}
	}
	g.signal(syscall.SIGTERM)
	poll(t, 10*time.Second, "the drain to start", func() bool {
		return strings.Contains(g.stderr.String(), "shutting down: draining")
	})
	start := time.Now()
	g.signal(syscall.SIGTERM)
	rest, _ := io.ReadAll(rd)
	got.Write(rest)
	if body := got.String(); !strings.Contains(body, `"code":"shutdown"`) || strings.Contains(body, "[DONE]") {
		t.Errorf("the stream the second signal ended:\n%.400s", body[max(0, len(body)-400):])
	}
	if code := g.wait(); code != 0 {
		t.Fatalf("exit code %d after the second signal:\n%s", code, g.stderr.String())
	}
	if took := time.Since(start); took > 15*time.Second { // a failure guard: the grace is 120 s
		t.Errorf("the process took %v to exit after the second signal", took)
	}
	d := g.decision(id)
	if d.Outcome != "shutdown" {
		b, _ := json.Marshal(d)
		t.Errorf("the ended stream's record: %s", b)
	}
}
