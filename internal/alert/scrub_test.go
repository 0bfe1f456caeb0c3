package alert

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// The evidence of a verdict passes through Config.Scrub before it reaches
// the payload (its evidence and its sentence) and the log: a configured key
// that is not key-shaped is only known to the scrubber.
func TestPayloadAndLogAreScrubbed(t *testing.T) {
	const key = "plainKey0123456789"
	h := newHook(t)
	var logs bytes.Buffer
	n := New(Config{Webhook: h.URL, Backoff: noBackoff, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Scrub: func(s string) string { return strings.ReplaceAll(s, key, "[redacted]") }})
	n.Notify("anthropic", "auth", "upstream said: bad key "+key)
	closeOK(t, n)
	got := h.Payloads(t)
	if len(got) != 1 {
		t.Fatalf("%d alerts, want 1", len(got))
	}
	p := got[0]
	if strings.Contains(p.Evidence+p.Text+logs.String(), key) {
		t.Errorf("the key reached the alert: %+v\nlog: %s", p, logs.String())
	}
	if p.Evidence != "upstream said: bad key [redacted]" {
		t.Errorf("evidence %q", p.Evidence)
	}
}

// TestHostile68dPageTextQuotesTheUpstreamInACodeSpan: a page's text quotes
// the upstream's words where Slack-compatible hooks that also read Markdown
// (Mattermost, Discord) neither link nor mention from them.
func TestHostile68dPageTextQuotesTheUpstreamInACodeSpan(t *testing.T) {
	msg := "Your credit balance is too low @channel [top up](https://evil.example/pay) `x` <!here>"
	p := newPayload(event{provider: "a", class: "quota", evidence: "phrase:credit balance"}, tally{count: 1, said: msg}, time.Time{})
	want := "`" + `"Your credit balance is too low @channel [top up](https://evil.example/pay) 'x' &lt;!here&gt;"` + "`"
	if !strings.HasSuffix(p.Text, ": "+want) {
		t.Errorf("text %q, want it to end with %q", p.Text, want)
	}
	if p.Message != msg {
		t.Errorf("message %q, want the upstream's words as written", p.Message)
	}
}
