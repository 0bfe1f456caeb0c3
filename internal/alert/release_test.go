package alert

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/metrics"
	"github.com/detour-llm/detour/internal/redistest"
)

// redisClaimer is a replica's claimer as Detour builds it: the health store
// over a real redis-server, shared by every replica. Its timeout is long
// (state.timeout: 10s): a loaded machine must not turn a slow answer into
// an outage, after which each replica claims locally and both page.
func redisClaimer(t *testing.T, srv *redistest.Server) *health.RedisStore {
	t.Helper()
	return redisClaimerAt(t, srv.URL())
}

// redisClaimerAt is redisClaimer over the Redis at url (a proxy's).
func redisClaimerAt(t *testing.T, url string) *health.RedisStore {
	t.Helper()
	c, err := health.NewRedisClient(health.RedisConfig{URL: url, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	s := health.NewRedis(c, "detour:", slog.New(slog.NewTextHandler(io.Discard, nil)))
	s.SetTimeout(10 * time.Second)
	return s
}

// waitPosts waits for n more POSTs to reach the hook.
func waitPosts(t *testing.T, h *hook, n int) {
	t.Helper()
	for i := range n {
		select {
		case <-h.got:
		case <-time.After(guard):
			t.Fatalf("webhook got %d of %d POSTs", i, n)
		}
	}
}

// TestUndeliveredAlertIsSentByTheNextReplica: replica A wins the claim but
// the webhook fails every try; A gives the claim back, so replica B's
// verdict pages once the webhook has recovered. The operator is told once,
// not zero times, in the interval.
func TestUndeliveredAlertIsSentByTheNextReplica(t *testing.T) {
	srv := redistest.Start(t)
	h := newHook(t, 500, 500, 200)
	m := metrics.New()
	// A retries once at once; its own next attempt would wait an hour.
	a := New(Config{Webhook: h.URL, Claimer: redisClaimer(t, srv), Metrics: m, MaxRetries: 1,
		Backoff: func(n int) time.Duration { return map[bool]time.Duration{true: 0, false: time.Hour}[n <= 1] }})
	b := New(Config{Webhook: h.URL, Claimer: redisClaimer(t, srv), Metrics: m, MaxRetries: 1, Backoff: noBackoff})

	a.Notify("anthropic", "quota", "phrase:credit balance is too low")
	waitPosts(t, h, 2) // both of A's tries fail
	deadline := time.Now().Add(guard)
	for alerts(t, m, "anthropic", "quota", "failed") != 1 { // A has given up
		if time.Now().After(deadline) {
			t.Fatal("A never gave up")
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.Notify("anthropic", "quota", "phrase:credit balance is too low")
	b.sync()
	closeOK(t, b)
	closeOK(t, a)
	posts := h.Payloads(t)
	if len(posts) != 3 {
		t.Fatalf("webhook got %d POSTs, want 3 (A's two failed tries, then B's alert)", len(posts))
	}
	if v := alerts(t, m, "anthropic", "quota", "sent"); v != 1 {
		t.Errorf("sent = %v, want 1: the operator is paged once", v)
	}
}

// TestUndeliveredAlertIsAttemptedAgain: a lone replica whose delivery failed
// every try gives the claim back and tries again itself (no new verdict
// needed: an account that cools sends few), so the operator is paged once
// the webhook recovers.
func TestUndeliveredAlertIsAttemptedAgain(t *testing.T) {
	srv := redistest.Start(t)
	h := newHook(t, 500, 500, 200)
	m := metrics.New()
	n := New(Config{Webhook: h.URL, Claimer: redisClaimer(t, srv), Metrics: m, MaxRetries: 1, Backoff: noBackoff})
	n.Notify("openai", "auth", "status:401")
	waitPosts(t, h, 3)
	closeOK(t, n)
	got := h.Payloads(t)
	if len(got) != 3 || got[2].Count != 1 {
		t.Fatalf("webhook got %+v, want two failed tries and then the alert, count 1", got)
	}
	if v := alerts(t, m, "openai", "auth", "sent"); v != 1 {
		t.Errorf("sent = %v, want 1", v)
	}
}
