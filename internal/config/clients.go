package config

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ClientKey is one accepted client key with its name and limits. A bare
// string in client_keys is a ClientKey with only Key set, named "key:" and
// the first 8 hex digits of the key's SHA-256, and no limits. See
// docs/config.md.
type ClientKey struct {
	// Line is the line the entry begins at in its file (0: not from a
	// file), for `detour check`'s warnings.
	Line int
	// Name identifies the client in decision records and metrics; never the key.
	Name string
	// Key is the literal key; empty when SHA256 is set instead.
	Key string
	// SHA256 is the SHA-256 of the key (HasSHA256 says it is set): the file
	// need not hold the key itself.
	SHA256    [32]byte
	HasSHA256 bool
	// Sums are the SHA-256 of every key the client may present: Key's or
	// SHA256, and the others of a list (`key: [old, new]`, a rotation's
	// window in which both work, on one name and one budget).
	Sums [][32]byte
	// Routes are the route names this key may call (with their targets);
	// empty means every route and target.
	Routes []string
	Rate   Rate
	Budget Budget
	// MaxConcurrent caps the key's requests in progress on one replica
	// (a stream's until it ends); 0 means no cap.
	MaxConcurrent int
	// Disabled suspends the key: every request it makes is refused with
	// 403 client_key_disabled before anything else is read, while its
	// name, limits and spend stay (docs/config.md, "client_keys").
	// false (the zero value) serves it.
	Disabled bool
}

// Rate limits a client per minute; 0 means no limit.
type Rate struct {
	RequestsPerMinute int
	TokensPerMinute   int
}

// Budget limits a client's spend in USD per UTC day and month; 0 means no limit.
type Budget struct {
	USDPerDay   float64
	USDPerMonth float64
}

// Price is a target's price in USD per million tokens. CachedInput nil
// means cached input costs the Input price; CacheWrite nil, that input
// written to the prompt cache does; CacheWrite1h nil, that input written to
// Anthropic's 1-hour cache costs what CacheWrite says (docs/config.md,
// "Usage and cost").
type Price struct {
	Input, Output float64
	CachedInput   *float64
	CacheWrite    *float64
	CacheWrite1h  *float64
	// AudioInput and AudioOutput price the prompt's and the output's
	// audio tokens, where the usage says which were audio (OpenAI's
	// audio_tokens, Gemini's AUDIO modality); nil: audio at the Input or
	// Output price. A long_context or fast price that names none takes the
	// target's (docs/config.md, "Usage and cost").
	AudioInput, AudioOutput *float64
	// LongContext, when set, prices a request whose input (cached and
	// cache-written tokens included) is above LongContext.Above tokens:
	// every token of it, input and output, at its prices, as Anthropic
	// (the 1M-token context) and Gemini 2.5 Pro bill a prompt over 200,000
	// tokens. nil: one price at every size.
	LongContext *LongContextPrice
	// Fast prices an answer served in a provider's premium fast mode
	// (Anthropic's usage.speed "fast", six times the model's price); nil:
	// such an answer costs the price above (an undercount).
	Fast *Price
	// WebSearch and WebFetch are what the provider charges per 1,000 uses
	// of its server-run web search and web fetch, beside the tokens, read
	// from the counts the answer reports (Anthropic's
	// usage.server_tool_use): USD per 1,000. nil: unpriced, never guessed
	// (docs/config.md, "Usage and cost", "Server tools"). The target's
	// alone: a tier (long_context, fast) bills a use as the target does.
	WebSearch, WebFetch *float64
}

// LongContextPrice is a target's price above a prompt size (Price's
// LongContext); its own LongContext is nil.
type LongContextPrice struct {
	Above int
	Price
}

// For is the price of a request whose input is input tokens: p's long
// context price above its threshold, else p.
func (p *Price) For(input int) *Price {
	if p != nil && p.LongContext != nil && input > p.LongContext.Above {
		return &p.LongContext.Price
	}
	return p
}

// Limited reports whether k has a rate or a budget.
func (k *ClientKey) Limited() bool { return k.Rate != (Rate{}) || k.Budget != (Budget{}) }

var clientKeyKeys = []string{"name", "key", "key_sha256", "routes", "rate", "budget", "max_concurrent", "disabled"}

// rawClient is where a client key's names were written, for validate.
type rawClient struct {
	name   ref
	routes []ref
}

// decodeClients decodes client_keys: bare strings and objects.
func (d *decoder) decodeClients(items []*yaml.Node, cfg *Config, r *raw) {
	for _, n := range items {
		if n.Kind == yaml.ScalarNode {
			if v, ok := d.scalar(n, "client_keys entry", true); ok && v.s != "" && d.token(v, "client_keys entry") {
				cfg.ClientKeys = append(cfg.ClientKeys, v.s)
				sum := sha256.Sum256([]byte(v.s))
				name := "key:" + hex.EncodeToString(sum[:4])
				cfg.Clients = append(cfg.Clients, ClientKey{Line: n.Line, Name: name, Key: v.s, Sums: [][32]byte{sum}})
				r.clients = append(r.clients, rawClient{name: ref{name: name, node: n, v: value{s: name, node: n}}})
			}
			continue
		}
		g, ok := d.mapping(n, "client key", clientKeyKeys...)
		if !ok {
			continue
		}
		k := ClientKey{Line: n.Line}
		var rc rawClient
		g.require("name")
		rc.name, _ = g.name("name")
		k.Name = rc.name.name
		if k.Name != "" {
			g.what = "client key " + rc.name.v.show() // `client key "tpm" key: …`, not "client key key"
		}
		for i, v := range d.oneOrMore(g, "key") {
			if v.s == "" || !d.token(v, "client key key") {
				if v.s == "" {
					d.errorf(v.node, "client key %s: key is empty (an unset variable?)", rc.name.v.show())
				}
				continue
			}
			if i == 0 {
				k.Key = v.s
			}
			cfg.ClientKeys = append(cfg.ClientKeys, v.s)
			k.Sums = append(k.Sums, sha256.Sum256([]byte(v.s)))
		}
		// A key pasted here in place of its hash is a secret: its value is
		// never quoted in an error.
		for i, h := range d.oneOrMore(g, "key_sha256") {
			b, err := hex.DecodeString(strings.ToLower(h.s))
			if err != nil || len(b) != 32 {
				d.errorf(h.node, "client key key_sha256 must be 64 hex digits (the SHA-256 of the key), not %s", h.show())
				continue
			}
			var sum [32]byte
			copy(sum[:], b)
			if i == 0 {
				k.SHA256, k.HasSHA256 = sum, true
			}
			k.Sums = append(k.Sums, sum)
		}
		_, keyWritten := g.vals["key"]
		_, shaWritten := g.vals["key_sha256"]
		switch {
		case keyWritten && shaWritten:
			d.errorf(g.node, "client key %s has both key and key_sha256: write one", rc.name.v.show())
		case !keyWritten && !shaWritten:
			d.errorf(g.node, "client key %s needs key or key_sha256", rc.name.v.show())
		}
		if _, written := g.vals["routes"]; written {
			rc.routes = g.names("routes", "name at least one route, or remove routes to allow every route")
		}
		if g.has("rate") {
			if rg, ok := d.mapping(g.vals["rate"], "client key "+rc.name.v.show()+" rate", "requests_per_minute", "tokens_per_minute"); ok {
				rg.setInt("requests_per_minute", &k.Rate.RequestsPerMinute, 1)
				rg.setInt("tokens_per_minute", &k.Rate.TokensPerMinute, 1)
			}
		}
		g.setInt("max_concurrent", &k.MaxConcurrent, 1)
		if v, ok := g.str("disabled", false); ok {
			d.boolean(v, g.label("disabled"), &k.Disabled)
		}
		if g.has("budget") {
			if bg, ok := d.mapping(g.vals["budget"], "client key "+rc.name.v.show()+" budget", "usd_per_day", "usd_per_month"); ok {
				const stop = " (to stop a key, give it disabled: true, or remove it from client_keys)"
				bg.setUSD("usd_per_day", &k.Budget.USDPerDay, false, stop)
				bg.setUSD("usd_per_month", &k.Budget.USDPerMonth, false, stop)
			}
		}
		cfg.Clients = append(cfg.Clients, k)
		r.clients = append(r.clients, rc)
	}
}

// oneOrMore reads key of g as one secret value or a non-empty list of
// them (a client key's old and new keys during a rotation); nil when key
// is not written.
func (d *decoder) oneOrMore(g fields, key string) []value {
	n, ok := g.vals[key]
	if !ok {
		return nil
	}
	if n = deref(n); n.Kind != yaml.SequenceNode {
		v, ok := g.str(key, true)
		if !ok {
			return nil
		}
		return []value{v}
	}
	if len(n.Content) == 0 {
		d.errorf(n, "%s is an empty list: give one key, or a list of them", g.label(key))
		return nil
	}
	out := make([]value, 0, len(n.Content))
	for _, item := range n.Content {
		if v, ok := d.scalar(item, g.label(key)+" entry", true); ok {
			out = append(out, v)
		}
	}
	return out
}

// setUSD sets *dst to key's amount in USD when written: a finite number,
// > 0 (or >= 0 with allowZero); zero is said after a zero refused.
func (f fields) setUSD(key string, dst *float64, allowZero bool, zero string) {
	v, ok := f.str(key, false)
	if !ok {
		return
	}
	x, err := strconv.ParseFloat(v.s, 64)
	switch {
	case err != nil || math.IsNaN(x) || math.IsInf(x, 0):
		f.d.errorf(v.node, "%s must be a number of US dollars, not %s", f.label(key), v.show())
	case x < 0 && allowZero:
		f.d.errorf(v.node, "%s must not be negative, not %s", f.label(key), v.show())
	case x < 0:
		f.d.errorf(v.node, "%s must be greater than zero, not %s", f.label(key), v.show())
	case x == 0 && !allowZero:
		f.d.errorf(v.node, "%s must be greater than zero, not %s%s", f.label(key), v.show(), zero)
	default:
		*dst = x
	}
}

// decodePrice decodes a target's price.
func (d *decoder) decodePrice(n *yaml.Node) *Price {
	g, ok := d.mapping(n, "target price", "input", "output", "cached_input", "cache_write", "cache_write_1h", "audio_input", "audio_output", "long_context", "fast", "web_search", "web_fetch")
	if !ok {
		return nil
	}
	p := &Price{}
	g.prices(p)
	p.WebSearch = g.optionalUSD("web_search")
	p.WebFetch = g.optionalUSD("web_fetch")
	p.LongContext = d.longContext(g)
	if lc := p.LongContext; lc != nil {
		lc.inheritAudio(p)
	}
	if g.has("fast") {
		if fg, ok := d.mapping(g.vals["fast"], "target price fast", "input", "output", "cached_input", "cache_write", "cache_write_1h", "audio_input", "audio_output", "long_context"); ok {
			p.Fast = &Price{}
			fg.prices(p.Fast)
			p.Fast.LongContext = d.longContext(fg) // Anthropic bills a fast answer to a long prompt at both (hostile 53c)
			p.Fast.inheritAudio(p)
			if lc := p.Fast.LongContext; lc != nil {
				lc.inheritAudio(p.Fast)
			}
		}
	}
	if f, lc := p.Fast, p.LongContext; f != nil && f.LongContext == nil && lc != nil && p.Input > 0 && p.Output > 0 {
		// Unwritten, a fast answer to a long prompt costs the fast price
		// scaled as the long context scales the base one (Anthropic's fast
		// mode above 200K tokens: $60/$225 for Opus 4.6's $30/$150).
		in, out := lc.Input/p.Input, lc.Output/p.Output
		scaled := func(v *float64) *float64 { // a cache price of fast's, scaled as its input is (review 53b)
			if v == nil {
				return nil
			}
			x := *v * in
			return &x
		}
		f.LongContext = &LongContextPrice{Above: lc.Above, Price: Price{Input: f.Input * in, Output: f.Output * out,
			CachedInput: scaled(f.CachedInput), CacheWrite: scaled(f.CacheWrite), CacheWrite1h: scaled(f.CacheWrite1h),
			AudioInput: f.AudioInput, AudioOutput: f.AudioOutput}}
	}
	// A use of a server tool costs the same at every tier: each tier's
	// price carries the target's fees, so pricing an answer at a tier
	// prices its uses too.
	for _, q := range []*Price{p.Fast, tier(p.LongContext), fastLong(p)} {
		if q != nil {
			q.WebSearch, q.WebFetch = p.WebSearch, p.WebFetch
		}
	}
	return p
}

// tier is lc's price, nil for none.
func tier(lc *LongContextPrice) *Price {
	if lc == nil {
		return nil
	}
	return &lc.Price
}

// fastLong is p's fast price's long-context price, nil for none.
func fastLong(p *Price) *Price {
	if p.Fast == nil {
		return nil
	}
	return tier(p.Fast.LongContext)
}

// inheritAudio gives p the audio prices of base that p does not name: a
// tier (long_context, fast) written without them does not price audio as
// text when its target does not.
func (p *Price) inheritAudio(base *Price) {
	if p.AudioInput == nil {
		p.AudioInput = base.AudioInput
	}
	if p.AudioOutput == nil {
		p.AudioOutput = base.AudioOutput
	}
}

// longContext decodes f's long_context, nil when not written.
func (d *decoder) longContext(f fields) *LongContextPrice {
	if !f.has("long_context") {
		return nil
	}
	lg, ok := d.mapping(f.vals["long_context"], f.label("long_context"), "above", "input", "output", "cached_input", "cache_write", "cache_write_1h", "audio_input", "audio_output")
	if !ok {
		return nil
	}
	lc := &LongContextPrice{}
	lg.require("above")
	lg.setInt("above", &lc.Above, 1)
	lg.prices(&lc.Price)
	return lc
}

// prices sets p's prices from f: input and output required.
func (f fields) prices(p *Price) {
	f.require("input", "output")
	f.setUSD("input", &p.Input, true, "")
	f.setUSD("output", &p.Output, true, "")
	p.CachedInput = f.optionalUSD("cached_input")
	p.CacheWrite = f.optionalUSD("cache_write")
	p.CacheWrite1h = f.optionalUSD("cache_write_1h")
	p.AudioInput = f.optionalUSD("audio_input")
	p.AudioOutput = f.optionalUSD("audio_output")
}

// optionalUSD is the price key, ≥ 0, or nil when it is not there.
func (f fields) optionalUSD(key string) *float64 {
	if _, ok := f.vals[key]; !ok {
		return nil
	}
	var c float64
	f.setUSD(key, &c, true, "")
	return &c
}

// validateClients checks client names are unique, no key is repeated
// (compared by their SHA-256: a key written once as key and once as
// key_sha256 is one key, and the first entry would shadow the second's
// routes and limits), no key is also an admin key, and every route a key
// names exists; it expands each key's routes to every name it may call.
func (d *decoder) validateClients(cfg *Config, r *raw) {
	names := map[string]*yaml.Node{}
	keys := map[[32]byte]string{}
	for i, rc := range r.clients {
		d.unique(names, rc.name, "client key")
		k := &cfg.Clients[i]
		for _, sum := range k.Sums {
			if prev, dup := keys[sum]; dup {
				if prev == k.Name {
					d.errorf(rc.name.node, "client key %s lists the same key twice (value not shown)", rc.name.v.show())
				} else {
					d.errorf(rc.name.node, "client key %s has the same key as %q (value not shown): the first entry would take every request with it", rc.name.v.show(), prev)
				}
			}
			keys[sum] = k.Name
		}
		for _, a := range cfg.AdminKeys { // client keys must not open the operator endpoints
			if sum := sha256.Sum256([]byte(a)); slices.Contains(k.Sums, sum) {
				d.errorf(rc.name.node, "client key %s has the same key as an entry of admin_keys (value not shown): a client holding it could read /metrics, /v1/health and the console", rc.name.v.show())
				break
			}
		}
		for _, rt := range rc.routes {
			if _, ok := cfg.Route(rt.name); ok {
				k.Routes = append(k.Routes, rt.name)
				continue
			}
			if _, ok := cfg.Target(rt.name); ok {
				k.Routes = append(k.Routes, rt.name)
				continue
			}
			d.errorf(rt.node, "client key %s: unknown route %s", rc.name.v.show(), rt.v.show())
		}
	}
}

// Allowed returns the names k may send as model: its routes and every
// target they reach (targets and tail); nil means every name (also for a
// nil k: no client keys).
func (c *Config) Allowed(k *ClientKey) map[string]bool {
	if k == nil || len(k.Routes) == 0 {
		return nil
	}
	out := map[string]bool{}
	for _, n := range k.Routes {
		out[n] = true
		if rt, ok := c.Route(n); ok {
			for _, t := range append(append([]string{}, rt.Targets...), rt.Tail...) {
				out[t] = true
			}
		}
	}
	return out
}
