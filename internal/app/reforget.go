package app

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/health"
)

// forgetChanged clears the health of what a reload changed under a name it
// kept (docs/scale.md, "SIGHUP: reloading"): an endpoint whose target now
// asks for another model, or whose provider now has another URL, dialect,
// key or headers, starts healthy — a model found gone, a URL that failed,
// a key's rejections counted against the endpoint, were the old one's —
// and so does an account whose key or headers changed (a rejected key's
// cooldown was the old key's). Everything else keeps its
// state. The trackers of every earlier configuration stop recording those
// endpoints first (ret, gen: the new configuration's generation), so an
// attempt still in flight there (the old model, the old key) cannot cool
// what the new one is.
func forgetChanged(ret *health.Retirements, gen uint64, tr *health.Tracker, old, cfg *config.Config) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	moved, rekeyed := map[string]bool{}, map[string]bool{}
	for i := range cfg.Providers {
		p := &cfg.Providers[i]
		if o, ok := old.Provider(p.Name); ok {
			moved[p.Name] = o.BaseURL != p.BaseURL || o.Dialect != p.Dialect
			rekeyed[p.Name] = o.APIKey != p.APIKey || !maps.Equal(o.Headers, p.Headers)
		}
	}
	var retire, forget []health.Key
	for _, t := range cfg.Targets {
		o, kept := old.Target(t.Name)
		for _, p := range t.Providers {
			if kept && (o.Model != t.Model || moved[p] || rekeyed[p]) {
				k := health.Key{Target: t.Name, Provider: p}
				forget = append(forget, k)
				retire = append(retire, k)
			}
		}
	}
	ret.Retire(retire, gen)
	for _, k := range forget {
		tr.Forget(ctx, k)
	}
	for name, changed := range rekeyed {
		if changed {
			tr.ForgetAccount(ctx, name)
		}
	}
}

// definitions are what each endpoint and account of cfg is, for
// health.Tracker.Define: the same facts whose change makes a reload forget
// (forgetChanged) — an endpoint's model, URL and dialect and its account's
// digest; an account's key and headers, as a one-way digest — so replicas of two configurations
// over one Redis (a rolling deploy) do not read each other's verdicts
// (docs/scale.md, "Rolling deploys").
func definitions(cfg *config.Config) (endpoints map[health.Key]string, accounts map[string]string) {
	endpoints, accounts = map[health.Key]string{}, map[string]string{}
	for i := range cfg.Providers {
		p := &cfg.Providers[i]
		parts := []string{"account", p.Name, p.APIKey}
		for _, h := range slices.Sorted(maps.Keys(p.Headers)) {
			parts = append(parts, h, p.Headers[h])
		}
		accounts[p.Name] = health.Digest(parts...)
	}
	for _, t := range cfg.Targets {
		for _, name := range t.Providers {
			if p, ok := cfg.Provider(name); ok {
				// The account's digest too: a revoked key's 401s count on
				// the endpoint's record (failure_threshold), and the old
				// key's replicas cooled the new key's endpoint during a
				// rolling reload (operator review 56).
				endpoints[health.Key{Target: t.Name, Provider: name}] = health.Digest("endpoint", t.Model, p.BaseURL, string(p.Dialect), accounts[name])
			}
		}
	}
	return endpoints, accounts
}
