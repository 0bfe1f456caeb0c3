package main

import (
	"fmt"
	"io"
	"net"
	"sort"
	"strings"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/config"
)

// printClients says, for `detour check`, what each client key may call and
// what limits it has (never the key), and warns where a budget cannot see
// spend: a target it may reach that has no price.
func printClients(w io.Writer, cfg *config.Config) {
	for _, msg := range openListener(cfg) {
		fmt.Fprintf(w, "warning: %s\n", msg)
	}
	if len(cfg.Clients) == 0 {
		fmt.Fprintf(w, "client keys: none (no client authentication)\n\n")
		return
	}
	where := "counted per replica (state: memory)"
	if cfg.State.Store == config.StoreRedis {
		where = "shared by every replica through Redis"
	}
	fmt.Fprintf(w, "client keys (limits %s):\n", where)
	if msg := openOperatorEndpoints(cfg); msg != "" {
		fmt.Fprintf(w, "  warning: %s\n", msg)
	}
	for i := range cfg.Clients {
		k := &cfg.Clients[i]
		routes := "every route"
		if len(k.Routes) > 0 {
			routes = "routes " + strings.Join(k.Routes, ", ")
		}
		var limits []string
		if n := k.Rate.RequestsPerMinute; n > 0 {
			limits = append(limits, fmt.Sprintf("%d requests/min", n))
		}
		if n := k.Rate.TokensPerMinute; n > 0 {
			limits = append(limits, fmt.Sprintf("%d tokens/min", n))
		}
		if x := k.Budget.USDPerDay; x > 0 {
			limits = append(limits, fmt.Sprintf("$%g/day", x))
		}
		if x := k.Budget.USDPerMonth; x > 0 {
			limits = append(limits, fmt.Sprintf("$%g/month", x))
		}
		if n := k.MaxConcurrent; n > 0 {
			limits = append(limits, fmt.Sprintf("%d in progress at once (per replica)", n))
		}
		if len(limits) == 0 {
			limits = []string{"no limits"}
		}
		state := ""
		if k.Disabled {
			state = " — disabled: every request refused (403 client_key_disabled)"
		}
		fmt.Fprintf(w, "  %s: %s; %s%s\n", k.Name, routes, strings.Join(limits, ", "), state)
		if k.Budget != (config.Budget{}) {
			if free := unpriced(cfg, k); len(free) > 0 {
				fmt.Fprintf(w, "    warning: targets without a price do not count against its budget: %s\n", strings.Join(free, ", "))
			}
			if free := searchUnpriced(cfg, k); len(free) > 0 {
				fmt.Fprintf(w, "    warning: web searches Claude runs at these targets do not count against its budget (their price has no web_search; Anthropic's is $10 per 1,000): %s\n", strings.Join(free, ", "))
			}
		}
	}
	fmt.Fprintln(w)
}

// unpriced are the targets k may reach that have no price.
func unpriced(cfg *config.Config, k *config.ClientKey) []string {
	allowed := cfg.Allowed(k)
	var out []string
	for _, t := range cfg.Targets {
		if t.Price == nil && (allowed == nil || allowed[t.Name]) {
			out = append(out, t.Name)
		}
	}
	sort.Strings(out)
	return out
}

// searchUnpriced are the priced targets k may reach through an Anthropic
// provider whose price names no web_search: the Messages door passes a
// client's server tools to them as written (Claude Code's WebSearch), and
// each search is billed beside the tokens, unseen by the budget. The fee
// is never guessed (docs/config.md, "Usage and cost"); a target without a
// price is warned about already.
func searchUnpriced(cfg *config.Config, k *config.ClientKey) []string {
	allowed := cfg.Allowed(k)
	var out []string
	for _, t := range cfg.Targets {
		if t.Price == nil || t.Price.WebSearch != nil || allowed != nil && !allowed[t.Name] {
			continue
		}
		for _, name := range t.Providers {
			if p, ok := cfg.Provider(name); ok && p.Dialect == classify.Anthropic {
				out = append(out, t.Name)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// openOperatorEndpoints says, when client keys are set and admin_keys is
// not, that every client can read the operator endpoints — every client's
// name, traffic and spend, and upstream error messages — and how to close
// them (docs/config.md, admin_keys); "" when they are closed or no client
// keys are set (a gateway without client keys trusts whoever reaches it).
func openOperatorEndpoints(cfg *config.Config) string {
	if len(cfg.Clients) == 0 || len(cfg.AdminKeys) > 0 {
		return ""
	}
	where := "on the main listener, to every client"
	if cfg.AdminListen != "" {
		where = "to anyone who reaches admin_listen " + cfg.AdminListen
	}
	return "no admin_keys: /metrics, /v1/health and the /ui console are open " + where +
		" (each client's name, traffic and spend, and upstream error messages); set admin_keys to close them"
}

// openListener says, when listen reaches beyond this machine, what is left
// open there: with no client_keys anyone who reaches the port spends the
// providers' keys, and with no allowed_hosts a DNS-rebinding page can
// reach it under its own name (docs/security.md, "Browsers cannot drive
// the gateway"). Nothing on loopback.
func openListener(cfg *config.Config) []string {
	if loopback(cfg.Listen) {
		return nil
	}
	var out []string
	if len(cfg.Clients) == 0 {
		out = append(out, fmt.Sprintf("listen %s reaches beyond this machine and no client_keys are set: "+
			"anyone who reaches the port can spend the providers' keys; set client_keys", cfg.Listen))
	}
	if len(cfg.AllowedHosts) == 0 {
		out = append(out, fmt.Sprintf("listen %s reaches beyond this machine and no allowed_hosts are set: "+
			"a request under any host name is answered; list the names clients use in allowed_hosts", cfg.Listen))
	}
	return out
}

// loopback reports whether addr (host:port) listens on loopback only: a
// loopback address, localhost or a *.localhost name. An empty host, an
// unspecified address, another address or any other name reaches beyond.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if ip := net.ParseIP(host); ip != nil {
		return ip.IsLoopback()
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}
