package config

import (
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/detour-llm/detour/classify"
)

// ref is a name written in the file, with where it was written.
type ref struct {
	name string
	node *yaml.Node
	v    value
}

// raw holds, parallel to the Config's lists, where each name was written,
// for the cross-reference checks of validate.
type raw struct {
	providers []ref // each provider's name
	targets   []rawTarget
	routes    []rawRoute
	rules     []rawRule
	clients   []rawClient
}

type rawTarget struct {
	name      ref
	providers []ref
}

type rawRoute struct {
	name          ref
	targets, tail []ref
	tailNode      *yaml.Node
}

type rawRule struct {
	provider    ref
	dialectNode *yaml.Node
}

const topLevel = "the top level"

var topKeys = append([]string{"listen", "client_keys", "max_body_bytes", "state", "decisions", "alerts",
	"health", "retry", "log", "classify", "providers", "targets", "routes",
	"console", "tracing"}, frontKeys...)

func (d *decoder) decodeRoot(root *yaml.Node, cfg *Config) *raw {
	r := &raw{}
	f, ok := d.mapping(root, topLevel, topKeys...)
	if !ok {
		return r
	}
	if v, ok := f.str("listen", false); ok {
		if d.checkListen(v, "listen") {
			cfg.Listen = v.s
		}
	}
	if items, _, ok := f.seq("client_keys"); ok {
		d.decodeClients(items, cfg, r)
	}
	if v, ok := f.str("max_body_bytes", false); ok {
		if i, err := strconv.ParseInt(v.s, 10, 64); err != nil || i <= 0 {
			d.errorf(v.node, "max_body_bytes must be a whole number of bytes greater than zero, not %s", v.show())
		} else {
			cfg.MaxBodyBytes = i
		}
	}
	d.decodeFront(f, cfg)
	if f.has("state") {
		d.decodeState(f.vals["state"], &cfg.State)
	}
	if f.has("decisions") {
		if g, ok := d.mapping(f.vals["decisions"], "decisions", "path", "sync"); ok {
			if v, ok := g.setStr("path", &cfg.Decisions.Path, false); ok {
				cfg.Decisions.Line = v.node.Line
			}
			if v, ok := g.str("sync", false); ok && d.oneOf(v, "decisions sync", SyncNever, SyncAlways) {
				cfg.Decisions.Sync = v.s
			}
		}
	}
	if f.has("alerts") {
		d.decodeAlerts(f.vals["alerts"], &cfg.Alerts)
	}
	if f.has("health") {
		d.decodeHealth(f.vals["health"], &cfg.Health)
	}
	if f.has("retry") {
		if g, ok := d.mapping(f.vals["retry"], "retry", "max_wait"); ok {
			g.setDuration("max_wait", &cfg.Retry.MaxWait, true)
		}
	}
	if f.has("log") {
		if g, ok := d.mapping(f.vals["log"], "log", "format", "level"); ok {
			if v, ok := g.str("format", false); ok && d.oneOf(v, "log format", "text", "json") {
				cfg.Log.Format = v.s
			}
			if v, ok := g.str("level", false); ok && d.oneOf(v, "log level", "debug", "info", "warn", "error") {
				cfg.Log.Level = v.s
			}
		}
	}
	if f.has("classify") {
		if g, ok := d.mapping(f.vals["classify"], "classify", "rules"); ok {
			items, _, _ := g.seq("rules")
			for _, n := range items {
				rule, rr := d.decodeRule(n)
				cfg.Rules = append(cfg.Rules, rule)
				cfg.RuleLines = append(cfg.RuleLines, n.Line)
				r.rules = append(r.rules, rr)
			}
		}
	}
	items, _, _ := f.seq("providers")
	for _, n := range items {
		p, name := d.decodeProvider(n)
		p.Line = n.Line
		cfg.Providers = append(cfg.Providers, p)
		r.providers = append(r.providers, name)
	}
	if len(items) == 0 {
		d.errorf(keyOr(f, "providers"), "no providers: at least one is required")
	}
	items, _, _ = f.seq("targets")
	for _, n := range items {
		t, rt := d.decodeTarget(n)
		cfg.Targets = append(cfg.Targets, t)
		r.targets = append(r.targets, rt)
	}
	if len(items) == 0 {
		d.errorf(keyOr(f, "targets"), "no targets: at least one is required")
	}
	items, _, _ = f.seq("routes")
	for _, n := range items {
		rt, rr := d.decodeRoute(n)
		rt.Line = n.Line
		cfg.Routes = append(cfg.Routes, rt)
		r.routes = append(r.routes, rr)
	}
	d.decodeObserve(f, cfg)
	return r
}

// keyOr is the node of key if written, else the mapping itself.
func keyOr(f fields, key string) *yaml.Node {
	if k, ok := f.keys[key]; ok {
		return k
	}
	return f.node
}

func (d *decoder) checkListen(v value, what string) bool {
	host, port, err := net.SplitHostPort(v.s)
	if err == nil {
		if p, perr := strconv.Atoi(port); perr != nil || p < 0 || p > 65535 {
			err = errBadPort
		}
	}
	if err != nil || strings.ContainsAny(host, " \t") {
		d.errorf(v.node, "%s must be host:port (e.g. 127.0.0.1:8080 or :8080), not %s", what, v.show())
		return false
	}
	return true
}

type constError string

func (e constError) Error() string { return string(e) }

const errBadPort = constError("bad port")

func (d *decoder) decodeAlerts(n *yaml.Node, a *Alerts) {
	g, ok := d.mapping(n, "alerts", "webhook", "min_interval")
	if !ok {
		return
	}
	if v, ok := g.str("webhook", true); ok && v.s != "" {
		if d.checkHTTPURL(v, "alerts webhook") {
			a.Webhook = v.s
		}
	}
	g.setDuration("min_interval", &a.MinInterval, true)
}

// checkHTTPURL checks that v is an absolute http(s) URL with a host. The
// error never quotes the value (a URL may hold a secret: credentials
// before its host, a key in its path or a webhook's token), only what is
// wrong with it and, where that is the fault, its scheme.
func (d *decoder) checkHTTPURL(v value, what string) bool {
	u, err := url.Parse(v.s)
	if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return true
	}
	why := "it does not parse"
	switch scheme, _, found := strings.Cut(v.s, "://"); {
	case !found:
		why = "it has no scheme"
	case scheme != "http" && scheme != "https" && schemeRe.MatchString(scheme):
		why = "its scheme is " + strconv.Quote(scheme)
	case err == nil && u.Host == "":
		why = "it has no host"
	}
	d.errorf(v.node, "%s must be an http:// or https:// URL with a host: %s (value not shown)", what, why)
	return false
}

// schemeRe is a URL scheme short enough to be one, not a value mistyped.
var schemeRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]{0,15}$`)

func (d *decoder) decodeHealth(n *yaml.Node, h *Health) {
	g, ok := d.mapping(n, "health", "failure_threshold", "cooldown", "max_cooldown",
		"unavailable_cooldown", "account_cooldown", "remeasure_after")
	if !ok {
		return
	}
	g.setInt("failure_threshold", &h.FailureThreshold, 1)
	g.setDuration("cooldown", &h.Cooldown, false)
	g.setDuration("max_cooldown", &h.MaxCooldown, false)
	g.setDuration("unavailable_cooldown", &h.UnavailableCooldown, false)
	g.setDuration("account_cooldown", &h.AccountCooldown, false)
	g.setDuration("remeasure_after", &h.RemeasureAfter, false)
	if h.MaxCooldown < h.Cooldown {
		d.errorf(keyOr(g, "max_cooldown"), "health max_cooldown (%s) is shorter than cooldown (%s)", h.MaxCooldown, h.Cooldown)
	}
}

func (d *decoder) decodeRule(n *yaml.Node) (classify.Rule, rawRule) {
	var rule classify.Rule
	var rr rawRule
	g, ok := d.mapping(n, "classify rule", "dialect", "provider", "status", "match", "class")
	if !ok {
		return rule, rr
	}
	g.require("class")
	if v, ok := g.str("dialect", false); ok {
		if dl, ok := d.dialect(v, "classify rule dialect"); ok {
			rule.Dialect, rr.dialectNode = dl, v.node
		}
	}
	if v, ok := g.str("provider", false); ok {
		rule.Provider, rr.provider = v.s, ref{name: v.s, node: v.node, v: v}
	}
	if sn, ok := g.vals["status"]; ok {
		rule.Status = d.statuses(sn)
	}
	if v, ok := g.str("match", false); ok {
		re, err := regexp.Compile(v.s)
		switch {
		case err != nil && v.secret:
			d.errorf(v.node, "classify rule match is not a valid Go regular expression (value not shown)")
		case err != nil:
			d.errorf(v.node, "classify rule match is not a valid Go regular expression: %v", err)
		default:
			rule.Match = re
		}
	}
	if v, ok := g.str("class", false); ok {
		if c, err := classify.ParseClass(v.s); err != nil {
			d.errorf(v.node, "classify rule class: %s", classErr(v))
		} else {
			rule.Class = c
		}
	}
	return rule, rr
}

// statuses decodes a rule's status: one code or a list of codes.
func (d *decoder) statuses(n *yaml.Node) []int {
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
		if len(items) == 0 {
			d.errorf(n, "classify rule status is an empty list: remove it to match every status")
		}
	}
	var out []int
	for _, c := range items {
		v, ok := d.scalar(c, "classify rule status", false)
		if !ok {
			continue
		}
		s, err := strconv.Atoi(v.s)
		if err != nil || s < 100 || s > 599 {
			d.errorf(v.node, "classify rule status must be an HTTP status from 100 to 599, not %s", v.show())
			continue
		}
		out = append(out, s)
	}
	return out
}

func (d *decoder) dialect(v value, what string) (classify.Dialect, bool) {
	switch dl := classify.Dialect(v.s); dl {
	case classify.OpenAI, classify.Anthropic, classify.Gemini:
		return dl, true
	}
	d.errorf(v.node, "%s must be one of openai, anthropic, gemini, not %s", what, v.show())
	return "", false
}

func classErr(v value) string {
	return "unknown class " + v.show() + " (want one of " + strings.Join(classify.ClassNames(), ", ") + ")"
}
