package config

import "github.com/detour-llm/detour/internal/policy"

// resolveTables builds every route's Table, once, after validation.
func resolveTables(cfg *Config) {
	for i := range cfg.Routes {
		cfg.Routes[i].Table = cfg.table(&cfg.Routes[i])
	}
}

// table resolves r's failover against the file's health settings.
func (c *Config) table(r *Route) *policy.Table {
	h := c.Health
	return policy.NewTable(policy.Spec{
		Strategy: r.Strategy, FallbackOn: r.FallbackOn, FallbackSet: r.FallbackSet,
		HasTail: len(r.Tail) > 0, TailOn: r.TailOn,
	}, policy.Cooling{
		Durations: policy.Durations{Cooldown: h.Cooldown, UnavailableCooldown: h.UnavailableCooldown,
			AccountCooldown: h.AccountCooldown},
		FailureThreshold: h.FailureThreshold, MaxCooldown: h.MaxCooldown,
	})
}

// DirectRoute is the route a client gets by naming target t directly: t
// alone, ordered, with the default limits and its own Table.
func (c *Config) DirectRoute(t *Target) *Route {
	r := defaultRoute()
	r.Name, r.Targets = t.Name, []string{t.Name}
	r.Table = c.table(&r)
	return &r
}
