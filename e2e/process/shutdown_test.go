package process

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// TestGraceEndCutsStreamsWithAnErrorEvent: requests still in flight when the
// --grace period ends are not dropped mid-byte. A committed stream gets an
// SSE error event (code "shutdown", no [DONE]); a request that has not
// answered yet gets a 503 with the same code; each decision record says
// outcome "shutdown"; the process exits 0.
func TestGraceEndCutsStreamsWithAnErrorEvent(t *testing.T) {
	t.Parallel()
	parts := strings.Split(strings.Repeat("word ", 60), " ")
	slow := fake(t, upstreamtest.Step{Events: upstreamtest.ChatStream("gpt-4o", parts...), EventDelay: 200 * time.Millisecond})
	late := fake(t, upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o", "late"), Delay: 30 * time.Second})
	g := startGateway(t, "G", render(`
providers:
  - {name: slow, dialect: openai, base_url: "{slow}", api_key: sk-test}
  - {name: late, dialect: openai, base_url: "{late}", api_key: sk-test}
targets:
  - {name: gpt, model: gpt-4o, providers: [slow]}
  - {name: waiting, model: gpt-4o, providers: [late]}
`, map[string]string{"slow": slow.URL, "late": late.URL}), "--grace", "1s")

	resp, err := client.Post(g.URL+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"gpt","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	streamID := resp.Header.Get("X-Detour-Decision")
	rd := bufio.NewReader(resp.Body)
	var got strings.Builder
	for !strings.Contains(got.String(), "word") { // the stream is committed
		line, err := rd.ReadString('\n')
		got.WriteString(line)
		if err != nil {
			t.Fatalf("stream ended before its first content: %v: %s", err, got.String())
		}
	}
	type answer struct {
		r   reply
		err error
	}
	plain := make(chan answer, 1)
	go func() {
		resp, err := client.Post(g.URL+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"waiting","messages":[{"role":"user","content":"hi"}]}`))
		if err != nil {
			plain <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		plain <- answer{r: reply{Status: resp.StatusCode, Header: resp.Header, Body: string(b)}}
	}()
	poll(t, 30*time.Second, "the second request to reach its upstream", func() bool { return late.Calls() == 1 })

	g.signal(syscall.SIGTERM)
	rest, _ := io.ReadAll(rd) // ends when the gateway ends the stream
	got.Write(rest)
	body := got.String()
	if !strings.Contains(body, "event: error\ndata: ") || !strings.Contains(body, `"code":"shutdown"`) || strings.Contains(body, "[DONE]") {
		t.Errorf("the stream cut at the end of the grace period:\n%s", body)
	}

	a := <-plain
	if a.err != nil {
		t.Fatalf("the unanswered request got no answer: %v", a.err)
	}
	var env struct {
		Error struct{ Code, Type string } `json:"error"`
	}
	if a.r.Status != 503 || json.Unmarshal([]byte(a.r.Body), &env) != nil || env.Error.Code != "shutdown" {
		t.Errorf("the unanswered request: %d %s", a.r.Status, a.r.Body)
	}
	// "retry it", the message says: the SDKs retry a 503 after its
	// Retry-After (operator review 48: there was none).
	if ra := a.r.Header.Get("Retry-After"); ra != "1" {
		t.Errorf("the unanswered request's Retry-After is %q, want 1", ra)
	}
	if code := g.wait(); code != 0 {
		t.Fatalf("exit code %d:\n%s", code, g.stderr.String())
	}
	for _, id := range []string{streamID, a.r.Header.Get("X-Detour-Decision")} {
		d := g.decision(id)
		if d.Outcome != "shutdown" || len(d.Attempts) != 1 || d.Attempts[0].Evidence != "shutdown" ||
			d.Attempts[0].Counted || d.Attempts[0].Action != "stop" {
			b, _ := json.Marshal(d)
			t.Errorf("record: %s", b)
		}
	}
}
