package alert

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/metrics"
)

func TestOneAlertPerProviderAndClassPerInterval(t *testing.T) {
	clk := newClock()
	h := newHook(t)
	m := metrics.New()
	n := New(Config{Webhook: h.URL, MinInterval: time.Hour, Claimer: &LocalClaimer{Now: clk.Now},
		Now: clk.Now, Metrics: m, Backoff: noBackoff})
	start := clk.Now()

	n.Notify("anthropic", "quota", "phrase:credit balance is too low") // alerts
	clk.Advance(time.Minute)
	second := clk.Now()
	n.Notify("anthropic", "quota", "phrase:credit balance is too low") // suppressed
	clk.Advance(time.Minute)
	n.Notify("anthropic", "quota", "status:402")     // suppressed
	n.Notify("anthropic", "auth", "status:401")      // other class: alerts
	n.Notify("openai", "quota", "code:insufficient") // other provider: alerts
	n.sync()

	clk.Advance(time.Hour)                       // the interval has passed
	n.Notify("anthropic", "quota", "status:402") // alerts, reporting 3 verdicts since the first suppressed one
	closeOK(t, n)

	got := h.Payloads(t)
	if len(got) != 4 {
		t.Fatalf("got %d alerts, want 4: %+v", len(got), got)
	}
	sort.SliceStable(got, func(i, j int) bool { return got[i].Time < got[j].Time })
	byKey := map[string][]Payload{}
	for _, p := range got {
		byKey[p.Provider+"/"+p.Class] = append(byKey[p.Provider+"/"+p.Class], p)
	}
	if a := byKey["anthropic/quota"]; len(a) != 2 ||
		a[0].Count != 1 || a[0].FirstSeen != start.Format(time.RFC3339) ||
		a[1].Count != 3 || a[1].FirstSeen != second.Format(time.RFC3339) || a[1].Evidence != "status:402" {
		t.Errorf("anthropic/quota alerts = %+v, want count 1 since %v, then count 3 since %v", a, start, second)
	}
	if a := byKey["anthropic/auth"]; len(a) != 1 || a[0].Count != 1 {
		t.Errorf("anthropic/auth alerts = %+v, want one with count 1", a)
	}
	if a := byKey["openai/quota"]; len(a) != 1 || a[0].Count != 1 {
		t.Errorf("openai/quota alerts = %+v, want one with count 1", a)
	}
	if v := alerts(t, m, "anthropic", "quota", "sent"); v != 2 {
		t.Errorf("sent = %v, want 2", v)
	}
	if v := alerts(t, m, "anthropic", "quota", "suppressed"); v != 2 {
		t.Errorf("suppressed = %v, want 2", v)
	}
}

func TestReplicasSharingAClaimerPostOnce(t *testing.T) {
	h := newHook(t)
	m := metrics.New()
	shared := &LocalClaimer{} // stands in for the Redis store every replica uses
	a := New(Config{Webhook: h.URL, Claimer: shared, Metrics: m, Backoff: noBackoff})
	b := New(Config{Webhook: h.URL, Claimer: shared, Metrics: m, Backoff: noBackoff})
	a.Notify("anthropic", "quota", "phrase:credit balance is too low")
	b.Notify("anthropic", "quota", "phrase:credit balance is too low")
	a.Notify("anthropic", "quota", "phrase:credit balance is too low")
	b.Notify("anthropic", "quota", "phrase:credit balance is too low")
	closeOK(t, a)
	closeOK(t, b)
	if n := len(h.Posts()); n != 1 {
		t.Fatalf("two replicas posted %d alerts, want 1", n)
	}
	if v := alerts(t, m, "anthropic", "quota", "sent"); v != 1 {
		t.Errorf("sent = %v, want 1", v)
	}
	if v := alerts(t, m, "anthropic", "quota", "suppressed"); v != 3 {
		t.Errorf("suppressed = %v, want 3", v)
	}
}

func TestWebhookFailuresAreRetried(t *testing.T) {
	h := newHook(t, 500, 500, 200)
	m := metrics.New()
	var waits []int
	n := New(Config{Webhook: h.URL, Metrics: m, Backoff: func(i int) time.Duration {
		waits = append(waits, i) // only the delivery goroutine calls it
		return 0
	}})
	n.Notify("anthropic", "auth", "status:401")
	closeOK(t, n)

	posts := h.Posts()
	if len(posts) != 3 {
		t.Fatalf("webhook got %d POSTs, want 3 (500, 500, 200)", len(posts))
	}
	for _, p := range posts[1:] {
		if string(p.body) != string(posts[0].body) {
			t.Errorf("retry sent a different body: %s vs %s", p.body, posts[0].body)
		}
	}
	if len(waits) != 2 || waits[0] != 1 || waits[1] != 2 {
		t.Errorf("backoff called with %v, want [1 2]", waits)
	}
	if v := alerts(t, m, "anthropic", "auth", "sent"); v != 1 {
		t.Errorf("sent = %v, want 1", v)
	}
	if v := alerts(t, m, "anthropic", "auth", "failed"); v != 0 {
		t.Errorf("failed = %v, want 0", v)
	}
}

func TestWebhookGivesUpAfterMaxRetries(t *testing.T) {
	clk := newClock()
	h := newHook(t, 503)
	m := metrics.New()
	var logs logBuf
	n := New(Config{Webhook: h.URL, MaxRetries: 2, Backoff: noBackoff, Metrics: m, Logger: logs.Logger(),
		Now: clk.Now, Claimer: &LocalClaimer{Now: clk.Now}})
	first := clk.Now()
	n.Notify("openai", "quota", "code:insufficient_quota")
	// The delivery runs on its own goroutine: wait for its three tries.
	for i := 0; i < 3; i++ {
		select {
		case <-h.got:
		case <-time.After(guard):
			t.Fatalf("webhook got %d POSTs, want 3", i)
		}
	}
	deadline := time.Now().Add(guard)
	for alerts(t, m, "openai", "quota", "failed") != 1 { // given up after the third
		if time.Now().After(deadline) {
			t.Fatal("the delivery never gave up")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(logs.String(), "alert not delivered") || !strings.Contains(logs.String(), "status 503") {
		t.Errorf("give-up not logged:\n%s", logs.String())
	}

	// The interval passes before the delivery's own next attempt (at least
	// a second after it gave up), which then attempts nothing: the
	// undelivered verdict is reported with the next alert.
	clk.Advance(2 * time.Hour)
	h.mu.Lock()
	h.statuses = []int{200}
	h.mu.Unlock()
	n.Notify("openai", "quota", "code:insufficient_quota")
	closeOK(t, n)
	got := h.Payloads(t)
	if len(got) != 4 {
		t.Fatalf("webhook got %d POSTs, want 4", len(got))
	}
	if last := got[3]; last.Count != 2 || last.FirstSeen != first.Format(time.RFC3339) {
		t.Errorf("next alert = %+v, want count 2 since %v", last, first)
	}
}

func TestNotifyNeverBlocksWhileTheWebhookHangs(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)

	n := New(Config{Webhook: srv.URL, Backoff: noBackoff})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 1000; i++ {
			n.Notify("anthropic", "quota", "status:402")
			n.Notify("openai", "auth", "status:401")
		}
	}()
	select {
	case <-done:
	case <-time.After(guard):
		t.Fatal("Notify blocked while the webhook hangs")
	}
	<-entered // a delivery is hanging in the webhook
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := n.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Close with a hanging webhook = %v, want deadline exceeded", err)
	}
	n.Notify("anthropic", "quota", "status:402") // after Close: dropped, no panic
}

func TestFullQueueDropsWithALogLine(t *testing.T) {
	var logs logBuf
	bc := &blockingClaimer{entered: make(chan struct{}, 1), release: make(chan struct{})}
	m := metrics.New()
	n := New(Config{Claimer: bc, QueueSize: 4, Logger: logs.Logger(), Metrics: m})
	n.Notify("anthropic", "quota", "status:402")
	select {
	case <-bc.entered: // the worker is stuck in a store call
	case <-time.After(guard):
		t.Fatal("worker never claimed")
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 20; i++ {
			n.Notify("anthropic", "quota", "status:402")
		}
	}()
	select {
	case <-done:
	case <-time.After(guard):
		t.Fatal("Notify blocked on a full queue")
	}
	if d := strings.Count(logs.String(), "alert dropped: queue full"); d != 16 {
		t.Errorf("%d drops logged, want 16 (20 verdicts, queue of 4)", d)
	}
	if v := alerts(t, m, "anthropic", "quota", "failed"); v != 16 {
		t.Errorf("failed = %v, want 16", v)
	}
	close(bc.release)
	closeOK(t, n)
}

func TestPayloadShape(t *testing.T) {
	clk := newClock()
	h := newHook(t)
	n := New(Config{Webhook: h.URL, Now: clk.Now})
	n.Notify("anthropic", "quota", "phrase:credit balance is too low")
	closeOK(t, n)

	posts := h.Posts()
	if len(posts) != 1 {
		t.Fatalf("got %d POSTs, want 1", len(posts))
	}
	p := posts[0]
	if p.method != http.MethodPost || p.contentType != "application/json" {
		t.Errorf("method %s, Content-Type %q; want POST, application/json", p.method, p.contentType)
	}
	var got map[string]any
	if err := json.Unmarshal(p.body, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"event":      "page",
		"provider":   "anthropic",
		"class":      "quota",
		"evidence":   "phrase:credit balance is too low",
		"first_seen": "2026-11-30T09:00:00Z",
		"count":      float64(1),
		"time":       "2026-11-30T09:00:00Z",
		"text":       "Detour: provider anthropic: quota (phrase:credit balance is too low) — once since 2026-11-30T09:00:00Z",
	}
	if len(got) != len(want) {
		t.Errorf("payload has fields %v, want exactly %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("payload %s = %#v, want %#v", k, got[k], v)
		}
	}
	if s := newPayload(event{provider: "a", class: "auth", evidence: "status:401"}, tally{count: 3}, time.Time{}).Text; !strings.Contains(s, "— 3 times since") {
		t.Errorf("text for 3 verdicts = %q", s)
	}
}

func TestNoKeyOrHookSecretLeaks(t *testing.T) {
	const key = "sk-ant-api03-AbCdEf0123456789xyz"
	const secret = "T0SECRETPATH"
	h := newHook(t, 500)
	var logs logBuf
	n := New(Config{Webhook: h.URL + "/hook/" + secret, MaxRetries: 1, Backoff: noBackoff, Logger: logs.Logger()})
	n.Notify("anthropic", "auth", "invalid x-api-key "+key+" (Bearer abcdefghijklmnop)")
	closeOK(t, n)

	// A webhook nobody listens on: the network error must not repeat the URL.
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL + "/hook/" + secret
	dead.Close()
	n = New(Config{Webhook: deadURL, MaxRetries: 1, Backoff: noBackoff, Logger: logs.Logger()})
	n.Notify("openai", "auth", "status:401")
	closeOK(t, n)

	for _, p := range h.Posts() {
		if strings.Contains(string(p.body), key) || strings.Contains(string(p.body), "abcdefghijklmnop") {
			t.Errorf("payload leaks a key: %s", p.body)
		}
		if !strings.Contains(string(p.body), "[redacted]") {
			t.Errorf("payload lost the redaction marker: %s", p.body)
		}
	}
	out := logs.String()
	if strings.Contains(out, key) || strings.Contains(out, secret) {
		t.Errorf("logs leak a key or the hook secret:\n%s", out)
	}
	if !strings.Contains(out, "alert not delivered") || !strings.Contains(out, "connection refused") {
		t.Errorf("delivery failures not logged:\n%s", out)
	}
}

func TestNoWebhookStillCountsAndLogs(t *testing.T) {
	var logs logBuf
	m := metrics.New()
	n := New(Config{Logger: logs.Logger(), Metrics: m})
	n.Notify("anthropic", "quota", "status:402")
	n.Notify("anthropic", "quota", "status:402")
	closeOK(t, n)
	if c := strings.Count(logs.String(), "alert (no webhook configured)"); c != 1 {
		t.Errorf("logged %d alerts, want 1:\n%s", c, logs.String())
	}
	// The one that was due is "logged", the repeat de-duplicated
	// "suppressed": an operator who pages from Prometheus, not a webhook,
	// alerts on result!="suppressed" (operator review 50).
	if v := alerts(t, m, "anthropic", "quota", "logged"); v != 1 {
		t.Errorf("logged = %v, want 1", v)
	}
	if v := alerts(t, m, "anthropic", "quota", "suppressed"); v != 1 {
		t.Errorf("suppressed = %v, want 1", v)
	}
}

func TestNilNotifierAndTypedNilMetrics(t *testing.T) {
	var n *Notifier
	n.Notify("anthropic", "quota", "status:402")
	if err := n.Close(context.Background()); err != nil {
		t.Errorf("nil Close = %v", err)
	}
	var m *metrics.Metrics // a typed nil: its methods are no-ops
	h := newHook(t)
	nn := New(Config{Webhook: h.URL, Metrics: m})
	nn.Notify("anthropic", "quota", "status:402")
	closeOK(t, nn)
	closeOK(t, nn) // twice is fine
	if len(h.Posts()) != 1 {
		t.Errorf("got %d POSTs, want 1", len(h.Posts()))
	}
}

func TestLocalClaimer(t *testing.T) {
	clk := newClock()
	c := &LocalClaimer{Now: clk.Now}
	ctx := context.Background()
	if !c.Claim(ctx, "k", time.Minute) {
		t.Fatal("first claim refused")
	}
	if c.Claim(ctx, "k", time.Minute) {
		t.Fatal("second claim within ttl granted")
	}
	if !c.Claim(ctx, "other", time.Minute) {
		t.Fatal("another key refused")
	}
	clk.Advance(time.Minute)
	if !c.Claim(ctx, "k", time.Minute) {
		t.Fatal("claim after ttl refused")
	}
}

func TestDefaultBackoff(t *testing.T) {
	for _, c := range []struct {
		n      int
		lo, hi time.Duration
	}{{1, 500 * time.Millisecond, time.Second}, {2, time.Second, 2 * time.Second},
		{4, 4 * time.Second, 8 * time.Second}, {7, 30 * time.Second, time.Minute}, {50, 30 * time.Second, time.Minute}} {
		for i := 0; i < 100; i++ {
			if d := DefaultBackoff(c.n); d < c.lo || d > c.hi {
				t.Fatalf("DefaultBackoff(%d) = %v, want in [%v, %v]", c.n, d, c.lo, c.hi)
			}
		}
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"phrase:credit balance is too low":          "phrase:credit balance is too low",
		"rule:3":                                    "rule:3",
		"code:model_not_found":                      "code:model_not_found",
		"invalid key sk-proj-abcDEF123456":          "invalid key [redacted]",
		"key AIzaSyA1234567890abcdefgh rejected":    "key [redacted] rejected",
		"Bearer eyJhbGciOiJIUzI1NiJ9.payload":       "[redacted]",
		"token 0123456789abcdef0123456789abcdef012": "token [redacted]",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Redact(strings.Repeat("é", 300)); len(got) > maxEvidence+len("…") || !strings.HasSuffix(got, "…") {
		t.Errorf("long evidence not bounded: %d bytes", len(got))
	}
}

// The page says when the account is tried again, and how to end it sooner
// (operator review 55).
func TestPageSaysWhenTheAccountIsTriedAgain(t *testing.T) {
	h := newHook(t)
	n := New(Config{Webhook: h.URL, MinInterval: time.Hour, Claimer: &LocalClaimer{}, Backoff: noBackoff})
	until := time.Date(2030, 1, 2, 4, 0, 0, 0, time.UTC)
	n.NotifyUntil("gemini", "quota", "status:402", "Your prepayment credits are depleted.", until)
	n.Notify("openai", "auth", "status:401") // not said: neither field nor sentence
	closeOK(t, n)
	for _, p := range h.Payloads(t) {
		switch p.Provider {
		case "gemini":
			// And that the request trying it again gets its answer on a
			// route that does not move on for the class (review 63e).
			if p.TriedAgain != "2030-01-02T04:00:00Z" || !strings.Contains(p.Text, "until 2030-01-02T04:00:00Z") || !strings.Contains(p.Text, "POST /v1/health/reset") ||
				!strings.Contains(p.Text, "fallback_on leaves out quota, that request gets its answer") {
				t.Errorf("gemini's page: %+v", p)
			}
		case "openai":
			if p.TriedAgain != "" || strings.Contains(p.Text, "tries it again") {
				t.Errorf("a page with no end said one: %+v", p)
			}
		}
	}
}
