package config

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// validate checks the names the file refers to and fills in the routes'
// expanded target lists. It runs after decoding, so every name is known.
func (d *decoder) validate(cfg *Config, r *raw) {
	providers := map[string]*yaml.Node{}
	for _, name := range r.providers {
		d.unique(providers, name, "provider")
	}
	targets := map[string]*yaml.Node{}
	for i, t := range r.targets {
		d.unique(targets, t.name, "target")
		seen := map[string]bool{}
		for _, p := range t.providers {
			switch {
			case providers[p.name] == nil:
				d.errorf(p.node, "target %s: unknown provider %s", t.name.v.show(), p.v.show())
			case seen[p.name]:
				d.errorf(p.node, "target %s lists provider %s twice", t.name.v.show(), p.v.show())
			default:
				cfg.Targets[i].Providers = append(cfg.Targets[i].Providers, p.name)
			}
			seen[p.name] = true
		}
	}
	e := &expander{d: d, targets: targets, routes: map[string]int{}, raw: r.routes,
		state: make([]int, len(r.routes)), done: make([][]string, len(r.routes))}
	routeNodes := map[string]*yaml.Node{}
	for i, rt := range r.routes {
		if rt.name.name == "" {
			continue
		}
		if tn := targets[rt.name.name]; tn != nil {
			d.errorf(rt.name.node, "route %s has the name of a target (line %d); clients may name targets directly, so names must differ",
				rt.name.v.show(), tn.Line)
			continue
		}
		if d.unique(routeNodes, rt.name, "route") {
			e.routes[rt.name.name] = i
		}
	}
	for i := range r.routes {
		cfg.Routes[i].Targets = e.expand(i)
	}
	for i, rt := range r.routes {
		var tail []string
		for _, ref := range rt.tail {
			tail = append(tail, e.resolve(ref)...)
		}
		cfg.Routes[i].Tail = without(dedupe(tail), cfg.Routes[i].Targets)
		if len(rt.tail) > 0 && len(cfg.Routes[i].TailOn) == 0 {
			d.errorf(rt.tailNode, "route %s has a tail but no tail_on: name the classes that may use the tail", rt.name.v.show())
		}
	}
	d.validateClients(cfg, r)
	d.validateDimensions(cfg, r)
	for i, rr := range r.rules {
		if rr.provider.name == "" {
			continue
		}
		// A rule may name a provider this file does not configure (the reference
		// example in docs/config.md does): it is kept, and matches nothing until one is.
		if providers[rr.provider.name] == nil {
			continue
		}
		rule := cfg.Rules[i]
		if p, _ := cfg.Provider(rr.provider.name); rule.Dialect != "" && p.Dialect != "" && p.Dialect != rule.Dialect {
			d.errorf(rr.dialectNode, "classify rule dialect %s can never match provider %s (dialect %s)",
				rule.Dialect, rr.provider.v.show(), p.Dialect)
		}
	}
}

// unique records name in seen, or reports it as a duplicate. It reports
// whether name was new.
func (d *decoder) unique(seen map[string]*yaml.Node, name ref, what string) bool {
	if name.name == "" {
		return false
	}
	if prev := seen[name.name]; prev != nil {
		d.errorf(name.node, "duplicate %s name %s (first at line %d)", what, name.v.show(), prev.Line)
		return false
	}
	seen[name.name] = name.node
	return true
}

// expander expands the routes named in routes' target lists, once each.
type expander struct {
	d       *decoder
	targets map[string]*yaml.Node
	routes  map[string]int // route name -> index in raw
	raw     []rawRoute
	state   []int // 0 not started, 1 expanding, 2 done
	done    [][]string
	stack   []string
}

func (e *expander) expand(i int) []string {
	if e.state[i] == 2 {
		return e.done[i]
	}
	e.state[i] = 1
	e.stack = append(e.stack, e.raw[i].name.name)
	var out []string
	for _, r := range e.raw[i].targets {
		out = append(out, e.resolve(r)...)
	}
	e.stack = e.stack[:len(e.stack)-1]
	e.state[i], e.done[i] = 2, dedupe(out)
	return e.done[i]
}

// resolve is the target names r stands for: itself if a target, the
// expanded targets of a route.
func (e *expander) resolve(r ref) []string {
	if e.targets[r.name] != nil {
		return []string{r.name}
	}
	j, ok := e.routes[r.name]
	if !ok {
		e.d.errorf(r.node, "unknown target or route %s", r.v.show())
		return nil
	}
	if e.state[j] == 1 {
		from := 0
		for k, n := range e.stack {
			if n == r.name {
				from = k
				break
			}
		}
		cycle := append(append([]string{}, e.stack[from:]...), r.name)
		e.d.errorf(r.node, "route cycle: %s", strings.Join(cycle, " -> "))
		return nil
	}
	return e.expand(j)
}

// dedupe drops repeated names, keeping the first of each.
func dedupe(names []string) []string {
	var out []string
	for _, n := range names {
		if !contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// without is names minus those in drop.
func without(names, drop []string) []string {
	var out []string
	for _, n := range names {
		if !contains(drop, n) {
			out = append(out, n)
		}
	}
	return out
}
