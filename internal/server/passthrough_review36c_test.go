package server_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
)

// claudeCodeSession is Claude Code's recorded tool turn (e2e/testdata/
// clients) grown to about size bytes by repeating its tool call and
// result: a long session of short tool calls, as the CLI sends it.
func claudeCodeSession(t *testing.T, model string, size int) string {
	t.Helper()
	f, err := os.Open("../../e2e/testdata/clients/claude-code-2.1.337-tool.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	sc.Scan()
	sc.Scan()
	var r struct{ Body map[string]json.RawMessage }
	if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	var msgs []json.RawMessage
	json.Unmarshal(r.Body["messages"], &msgs)
	base, _ := json.Marshal(r.Body)
	per := len(msgs[2]) + len(msgs[3]) + 2
	out := append([]json.RawMessage{}, msgs[:len(msgs)-1]...)
	for n := len(base); n+per < size; n += per {
		out = append(out, msgs[2], msgs[3])
	}
	out = append(out, msgs[len(msgs)-1])
	r.Body["messages"], _ = json.Marshal(out)
	r.Body["model"], _ = json.Marshal(model)
	r.Body["stream"] = json.RawMessage("false")
	b, _ := json.Marshal(r.Body)
	return string(b)
}

// Review 36c. A Messages request for an Anthropic target goes to it as
// the client sent it (passthrough): nothing needs translating. Yet the
// door translates it into chat first, inside a reservation, and since
// e306fc1 a translation past MaxTranslationCost is refused with 413 —
// so a Claude Code session under max_body_bytes, for a Claude-only
// route, is refused outright where before it was served (as the
// overdraft), and its count_tokens, an advisory estimate the docs say is
// never refused, too.
func TestReview36cPassthroughRefusedForATranslationItNeverNeeds(t *testing.T) {
	url, _, an, _, _ := overdraftGateway(t) // max_body 1 MiB, allowance 4 MiB: the cap is 40 MiB
	body := claudeCodeSession(t, "claude", 1000_000)
	if len(body) > 1<<20 {
		t.Fatalf("body %d past max_body_bytes", len(body))
	}
	calls := an.Calls()
	resp, got := post(t, url, "/v1/messages", body)
	if resp.StatusCode != http.StatusOK || an.Calls() == calls {
		t.Errorf("a Claude Code session of %d bytes (max_body_bytes 1 MiB) to its Anthropic target, passed through as sent: %d %.300s (upstream called %d times)",
			len(body), resp.StatusCode, got, an.Calls()-calls)
	}
	ct := strings.Replace(body, `"stream":false,`, ``, 1)
	resp, got = post(t, url, "/v1/messages/count_tokens", ct)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("count_tokens of the same session (an estimate, never refused): %d %.300s", resp.StatusCode, got)
	}
}
