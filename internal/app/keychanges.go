package app

import (
	"log/slog"
	"slices"
	"strconv"
	"strings"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/limit"
)

// logKeyChanges says, a line a client key, what a reload from old to cfg
// did to the keys' limits: a key added or removed, limits changed, and a
// key's secret that moved to another name (a rename), which a warning
// explains. Budgets, rates and decision records count by name, so a
// renamed key's windows start from what the new name spent, and a name
// given to another team inherits the old one's (operator review 60: a
// rename gave a team past its day's budget a fresh one, and nothing
// said so). Never a secret.
func logKeyChanges(log *slog.Logger, old, cfg *config.Config) {
	before := map[string]*config.ClientKey{}
	for i := range old.Clients {
		before[old.Clients[i].Name] = &old.Clients[i]
	}
	now := map[string]bool{}
	renamed := map[string]bool{} // old names whose secret a new name holds
	for i := range cfg.Clients {
		k := &cfg.Clients[i]
		now[k.Name] = true
		if was, ok := before[k.Name]; ok {
			if from, to := limitsText(was), limitsText(k); from != to {
				log.Info("client key's limits changed by this reload", "client", k.Name, "from", from, "to", to)
			}
			continue
		}
		if was := holderOf(old, k); was != nil && !namedIn(cfg, was.Name) {
			renamed[was.Name] = true
			log.Warn("client key renamed by this reload: budgets, rates and the decision log count by name, so the new name's windows start from what it spent, not from what the old name spent (docs/config.md, client_keys)",
				"from", was.Name, "to", k.Name, "limits", limitsText(k))
			continue
		}
		log.Info("client key added by this reload", "client", k.Name, "limits", limitsText(k))
	}
	for i := range old.Clients {
		if n := old.Clients[i].Name; !now[n] && !renamed[n] {
			log.Info("client key removed by this reload", "client", n)
		}
	}
}

// holderOf is the key of old that accepts one of k's secrets; nil for none.
func holderOf(old *config.Config, k *config.ClientKey) *config.ClientKey {
	for i := range old.Clients {
		for _, s := range k.Sums {
			if slices.Contains(old.Clients[i].Sums, s) {
				return &old.Clients[i]
			}
		}
	}
	return nil
}

// namedIn reports whether cfg has a client key named name.
func namedIn(cfg *config.Config, name string) bool {
	return slices.ContainsFunc(cfg.Clients, func(k config.ClientKey) bool { return k.Name == name })
}

// limitsText is k's limits as a line says them ("usd_per_day 5,
// max_concurrent 2"), "none" for none.
func limitsText(k *config.ClientKey) string {
	var parts []string
	for _, n := range limit.LimitNames(k) {
		parts = append(parts, n+" "+strconv.FormatFloat(limit.Cap(k, n), 'f', -1, 64))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
