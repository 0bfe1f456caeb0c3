package config

import (
	"fmt"
	"github.com/detour-llm/detour/classify"
	"strings"
)

// Embeddings routes (docs/config.md, targets: dimensions). A vector index
// holds vectors of one size: a route that fails over from one embeddings
// target to another must get the same size from each, or the answer after a
// failover cannot be stored next to the others. A target declares the size
// it answers with "dimensions" (Detour also asks for that size when the
// client names none), and a route whose targets (tail included) declare
// different sizes is refused: once any target of a route declares
// dimensions, every target of it that can embed must declare the same.
// A target whose providers all speak the anthropic dialect cannot embed
// (dispatch skips it for embeddings) and is not compared.

// validateDimensions refuses routes whose targets declare different
// dimensions, at the route's name.
func (d *decoder) validateDimensions(cfg *Config, r *raw) {
	dims := map[string]int{}
	embeds := map[string]bool{}
	for i := range cfg.Targets {
		t := &cfg.Targets[i]
		dims[t.Name] = t.Dimensions
		for _, pn := range t.Providers {
			if p, ok := cfg.Provider(pn); ok && p.Dialect != classify.Anthropic {
				embeds[t.Name] = true
			}
		}
	}
	for i := range cfg.Routes {
		rt := &cfg.Routes[i]
		var names []string
		for _, n := range append(append([]string(nil), rt.Targets...), rt.Tail...) {
			if embeds[n] {
				names = append(names, n)
			}
		}
		declared, differ := false, false
		for _, n := range names {
			if dims[n] != 0 {
				declared = true
			}
			if dims[n] != dims[names[0]] {
				differ = true
			}
		}
		if !declared || !differ || i >= len(r.routes) || r.routes[i].name.node == nil {
			continue
		}
		var parts []string
		for _, n := range names {
			v := "none"
			if dims[n] != 0 {
				v = fmt.Sprint(dims[n])
			}
			parts = append(parts, n+" "+v)
		}
		d.errorf(r.routes[i].name.node, "route %s: its targets declare different dimensions (%s); embeddings from one route must have one size: declare the same dimensions on every target",
			r.routes[i].name.v.show(), strings.Join(parts, ", "))
	}
}
