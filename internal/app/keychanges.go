package app

import (
	"log/slog"
	"strconv"
	"strings"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/limit"
)

// logKeyChanges says, a line a client key, what a reload from old to cfg
// did to the keys' limits: a key added or removed, limits changed, and a
// key's secret that now belongs to another name (a rename, two keys
// swapped, a secret given to a new name: review 60b), which a warning
// explains. Budgets, rates and decision records count by name, so the
// secret's holder now spends against the other name's windows (operator
// review 60: a rename gave a team past its day's budget a fresh one, and
// nothing said so). Never a secret.
func logKeyChanges(log *slog.Logger, old, cfg *config.Config) {
	before := make(map[string]*config.ClientKey, len(old.Clients))
	holder := map[[32]byte]string{} // each old secret's name
	for i := range old.Clients {
		k := &old.Clients[i]
		before[k.Name] = k
		for _, s := range k.Sums {
			holder[s] = k.Name
		}
	}
	now := make(map[string]bool, len(cfg.Clients))
	moved := map[[2]string]bool{} // {from, to}: said once
	gaveAway := map[string]bool{} // old names whose secret another name holds
	for i := range cfg.Clients {
		k := &cfg.Clients[i]
		now[k.Name] = true
		took := false
		for _, s := range k.Sums {
			if from, ok := holder[s]; ok && from != k.Name && !moved[[2]string{from, k.Name}] {
				moved[[2]string{from, k.Name}], gaveAway[from], took = true, true, true
				log.Warn("client key's secret now belongs to another name: budgets, rates and the decision log count by name, so its holder spends against the new name's windows, not the old one's (docs/config.md, client_keys)",
					"from", from, "to", k.Name, "limits", limitsText(k))
			}
		}
		if was, ok := before[k.Name]; ok {
			if from, to := limitsText(was), limitsText(k); from != to {
				log.Info("client key's limits changed by this reload", "client", k.Name, "from", from, "to", to)
			}
			switch {
			case k.Disabled && !was.Disabled:
				log.Info("client key disabled by this reload: its requests are refused with 403 client_key_disabled", "client", k.Name)
			case was.Disabled && !k.Disabled:
				log.Info("client key enabled again by this reload", "client", k.Name)
			}
		} else if !took {
			attrs := []any{"client", k.Name, "limits", limitsText(k)}
			if k.Disabled {
				attrs = append(attrs, "disabled", true)
			}
			log.Info("client key added by this reload", attrs...)
		}
	}
	for i := range old.Clients {
		if n := old.Clients[i].Name; !now[n] && !gaveAway[n] {
			log.Info("client key removed by this reload", "client", n)
		}
	}
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
