package config

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/route"
)

// name decodes key as a name: non-empty, no spaces or control characters.
func (f fields) name(key string) (ref, bool) {
	v, ok := f.str(key, false)
	if !ok {
		return ref{}, false
	}
	if !validName(v.s) {
		f.d.errorf(v.node, "%s must be non-empty without spaces or control characters (UTF-8), not %s", f.label(key), v.show())
		return ref{}, false
	}
	return ref{name: v.s, node: v.node, v: v}, true
}

func validName(s string) bool {
	// Valid UTF-8 too: a name from the environment in another encoding
	// (Latin-1 "café") labels metrics, which refuse it (review 32i).
	return s != "" && utf8.ValidString(s) && strings.IndexFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r)
	}) < 0
}

// names decodes key as a list of names; an empty list is an error when
// emptyErr is set.
func (f fields) names(key, emptyErr string) []ref {
	items, n, ok := f.seq(key)
	if n != nil && (ok || isNull(n)) && len(items) == 0 && emptyErr != "" {
		f.d.errorf(n, "%s is empty: %s", f.label(key), emptyErr)
	}
	var out []ref
	for _, n := range items {
		v, ok := f.d.scalar(n, f.label(key)+" entry", false)
		if !ok {
			continue
		}
		if !validName(v.s) {
			f.d.errorf(v.node, "%s entry must be a name in UTF-8 without spaces, not %s", f.label(key), v.show())
			continue
		}
		out = append(out, ref{name: v.s, node: v.node, v: v})
	}
	return out
}

// classes decodes key as a list of class names, without repeats.
func (f fields) classes(key string) []classify.Class {
	items, _, _ := f.seq(key)
	var out []classify.Class
	for _, n := range items {
		v, ok := f.d.scalar(n, f.label(key)+" entry", false)
		if !ok {
			continue
		}
		c, err := classify.ParseClass(v.s)
		if err != nil {
			f.d.errorf(v.node, "%s: %s", f.label(key), classErr(v))
			continue
		}
		for _, prev := range out {
			if prev == c {
				f.d.errorf(v.node, "%s lists %s twice", f.label(key), c)
			}
		}
		out = append(out, c)
	}
	return out
}

var providerKeys = []string{"name", "dialect", "base_url", "api_key", "connect_timeout", "timeout",
	"first_token_timeout", "idle_timeout", "headers", "responses", "completions"}

func (d *decoder) decodeProvider(n *yaml.Node) (Provider, ref) {
	p := defaultProvider()
	g, ok := d.mapping(n, "provider", providerKeys...)
	if !ok {
		return p, ref{}
	}
	g.require("name", "dialect", "base_url")
	name, _ := g.name("name")
	p.Name = name.name
	if v, ok := g.str("dialect", false); ok {
		p.Dialect, _ = d.dialect(v, "provider dialect")
	}
	// A base_url may hold a secret (https://user:password@host, a key in
	// its path): its value is never quoted in an error (docs/security.md).
	if v, ok := g.str("base_url", true); ok && d.token(v, "provider base_url") && d.checkHTTPURL(v, "provider base_url") {
		u, _ := url.Parse(v.s)
		if u.RawQuery != "" || u.Fragment != "" {
			d.errorf(v.node, "provider base_url must not carry a query or fragment")
		} else {
			p.BaseURL = strings.TrimRight(v.s, "/")
		}
	}
	if v, ok := g.str("api_key", true); ok && d.token(v, "provider api_key") {
		p.APIKey = v.s
	}
	g.setDuration("connect_timeout", &p.ConnectTimeout, false)
	g.setDuration("timeout", &p.Timeout, false)
	g.setDuration("first_token_timeout", &p.FirstTokenTimeout, false)
	g.setDuration("idle_timeout", &p.IdleTimeout, false)
	if g.has("headers") {
		p.Headers = d.headers(g.vals["headers"])
	}
	g.decodeResponses(&p)
	g.decodeCompletions(&p)
	return p, name
}

// reservedHeaders are set by the transport or the adapter and cannot be overridden.
var reservedHeaders = []string{"host", "content-length", "transfer-encoding", "connection", "content-type"}

func (d *decoder) headers(n *yaml.Node) map[string]string {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "provider headers must be a mapping of header names to values, not %s", kindName(n))
		return nil
	}
	out := map[string]string{}
	lower := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, vn := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || !validHeaderName(k.Value) {
			// "x-api-key:sk-…", "Authorization Bearer sk-…": a name and its
			// (secret) value run together; the value is never quoted.
			name, hint := unknownName(k.Value, true)
			d.errorf(k, "provider headers: %s is not a valid header name%s", name, hint)
			continue
		}
		if line, dup := lower[strings.ToLower(k.Value)]; dup {
			d.errorf(k, "provider headers: %q is repeated (first at line %d)", k.Value, line)
			continue
		}
		lower[strings.ToLower(k.Value)] = k.Line
		if contains(reservedHeaders, strings.ToLower(k.Value)) {
			d.errorf(k, "provider headers: %q is set by Detour and cannot be configured", k.Value)
			continue
		}
		v, ok := d.scalar(vn, "provider header "+k.Value, true)
		if !ok {
			continue
		}
		if strings.ContainsAny(v.s, "\r\n\x00") {
			d.errorf(v.node, "provider header %s: value contains a line break or NUL", k.Value)
			continue
		}
		out[k.Value] = v.s
	}
	return out
}

// validHeaderName reports whether s is an HTTP token (RFC 9110 §5.6.2).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r > 0x7e || r <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return false
		}
	}
	return true
}

func (d *decoder) decodeTarget(n *yaml.Node) (Target, rawTarget) {
	var t Target
	var rt rawTarget
	g, ok := d.mapping(n, "target", "name", "model", "providers", "context_window", "price",
		"prefill", "dimensions")
	if !ok {
		return t, rt
	}
	g.require("name", "model", "providers")
	rt.name, _ = g.name("name")
	t.Name = rt.name.name
	g.setStr("model", &t.Model, false)
	rt.providers = g.names("providers", "name at least one provider")
	g.setInt("context_window", &t.ContextWindow, 0)
	if g.has("price") {
		t.Price = d.decodePrice(g.vals["price"])
	}
	g.decodePrefill(&t)
	g.setInt("dimensions", &t.Dimensions, 1)
	return t, rt
}

var routeKeys = []string{"name", "strategy", "targets", "fallback_on", "tail", "tail_on",
	"max_attempts", "max_billable_attempts", "deadline", "max_stream_duration",
	"on_stream_cut", "max_continuations"}

func (d *decoder) decodeRoute(n *yaml.Node) (Route, rawRoute) {
	rt := defaultRoute()
	var rr rawRoute
	g, ok := d.mapping(n, "route", routeKeys...)
	if !ok {
		return rt, rr
	}
	g.require("name", "targets")
	rr.name, _ = g.name("name")
	rt.Name = rr.name.name
	if v, ok := g.str("strategy", false); ok && d.oneOf(v, "route strategy", "ordered", "fastest", "pool") {
		rt.Strategy, _ = route.ParseStrategy(v.s)
	}
	rr.targets = g.names("targets", "name at least one target or route")
	rr.tailNode = g.keys["tail"]
	if fn, written := g.vals["fallback_on"]; written {
		if isNull(fn) {
			d.errorf(fn, "route fallback_on has no value: write [] to never move to another target, or remove it for the strategy's default")
		} else {
			rt.FallbackOn, rt.FallbackSet = g.classes("fallback_on"), true
		}
	}
	rr.tail = g.names("tail", "")
	rt.TailOn = g.classes("tail_on")
	g.setInt("max_attempts", &rt.MaxAttempts, 1)
	g.setInt("max_billable_attempts", &rt.MaxBillableAttempts, 0)
	g.setDuration("deadline", &rt.Deadline, false)
	g.setDuration("max_stream_duration", &rt.MaxStreamDuration, false)
	g.decodeContinuation(&rt)
	return rt, rr
}
