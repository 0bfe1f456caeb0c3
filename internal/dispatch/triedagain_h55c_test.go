package dispatch

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/health"
)

// pager records what the walk pages (Notifier).
type pager55c struct {
	mu    sync.Mutex
	until []time.Time
}

func (p *pager55c) NotifyUntil(provider, class, evidence, said string, until time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.until = append(p.until, until)
}

func (p *pager55c) Recovered(string, string, string, time.Time, time.Time) {}

// hostile 55c: a quota page's tried_again is when health says the account
// is tried again. Health keeps cooldowns on its own clock (Redis's TIME in a
// fleet, docs/scale.md "One clock": a host may be hours off), and the
// decision record and /v1/health give that end; the page computes its own
// from the host's time.Now(), so on a host two hours off the page names a
// time two hours away from the cooldown's real end.
func TestH55cTriedAgainIsTheCooldownsEnd(t *testing.T) {
	h := newHarness(t, `  - {name: r, targets: [a]}
`, downAt("p1", classify.Quota))
	h.now = time.Now().Add(2 * time.Hour) // the shared clock: this host runs two hours behind it
	pg := &pager55c{}
	h.d.opt.Alerts = pg
	_, rec := h.do(t, "r", 0, 0)
	var acct time.Time
	for _, tr := range rec.Transitions {
		if tr.Scope == health.ScopeAccount.String() && tr.To == "cooling" {
			acct = tr.Until
		}
	}
	if acct.IsZero() {
		t.Fatalf("no account cooldown recorded: %+v (steps %v)", rec.Transitions, steps(rec))
	}
	pg.mu.Lock()
	defer pg.mu.Unlock()
	if len(pg.until) != 1 {
		t.Fatalf("pages: %v", pg.until)
	}
	if d := pg.until[0].Sub(acct); d > time.Second || d < -time.Second {
		t.Errorf("the page says tried again at %s; health cools the account until %s (%v apart)",
			pg.until[0].UTC().Format(time.RFC3339), acct.UTC().Format(time.RFC3339), d)
	}
}

// hostile 55c: a quota met again by the account's probe doubles its
// cooldown (health Tracker.cool: "A failure while probing doubles the last
// cooldown, up to max(MaxCooldown, base)"), which happens whenever
// account_cooldown is below max_cooldown (config.md sets no order between
// them); the page still says now + account_cooldown.
func TestH55cTriedAgainAfterAFailedProbe(t *testing.T) {
	cfgText := strings.Replace(base, "account_cooldown: 30m", "account_cooldown: 20s", 1) +
		"  - {name: r, targets: [a]}\n"
	cfg, err := config.Parse("test.yaml", []byte(cfgText), nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	var keys []health.Key
	for _, tg := range cfg.Targets {
		for _, p := range tg.Providers {
			keys = append(keys, health.Key{Target: tg.Name, Provider: p})
		}
	}
	hh := health.New(health.NewMemory(), health.Settings{FailureThreshold: cfg.Health.FailureThreshold,
		Cooldown: cfg.Health.Cooldown, MaxCooldown: cfg.Health.MaxCooldown}, keys, func() time.Time { return now })
	f := &fake{script: downAt("p1", classify.Quota)}
	d, err := New(Options{Config: cfg, Health: hh, Decisions: &harness{}, Backoff: func() time.Duration { return 0 },
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	d.call = f.call
	pg := &pager55c{}
	d.opt.Alerts = pg
	d.Do(context.Background(), testCall("r", 0, 0))
	// The cooldown ends; the next request probes p1's account and meets the quota again.
	now = now.Add(21 * time.Second)
	res := d.Do(context.Background(), testCall("r", 0, 0))
	var acct time.Time
	for _, tr := range res.Decision.Transitions {
		if tr.Scope == health.ScopeAccount.String() && tr.To == "cooling" {
			acct = tr.Until
		}
	}
	if acct.IsZero() || len(pg.until) != 2 {
		t.Fatalf("no second account cooldown or page")
	}
	if !pg.until[1].Equal(acct) {
		t.Errorf("the page says the account is tried again at %v; health cools it until %v (the failed probe doubled it)", pg.until[1], acct)
	}
}
