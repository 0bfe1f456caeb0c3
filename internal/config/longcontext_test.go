package config

import "testing"

// A target's price may name a long-context tier: Anthropic (the 1M-token
// context) and Gemini 2.5 Pro bill every token of a request whose prompt
// is over 200,000 tokens at higher prices (hostile 53: a key paid about
// half the bill).
func TestLongContextPrice(t *testing.T) {
	lookup := envLookup(nil)
	c, err := Parse("c.yaml", []byte(`providers: [{name: p, dialect: gemini, base_url: "https://x.test"}]
targets:
  - {name: t, model: gemini-2.5-pro, providers: [p],
     price: {input: 1.25, output: 10, cached_input: 0.31, long_context: {above: 200000, input: 2.5, output: 15, cached_input: 0.625}}}
`), lookup)
	if err != nil {
		t.Fatal(err)
	}
	tg, _ := c.Target("t")
	p := tg.Price
	if lc := p.LongContext; lc == nil || lc.Above != 200000 || lc.Input != 2.5 || lc.Output != 15 || lc.CachedInput == nil || *lc.CachedInput != 0.625 {
		t.Fatalf("long_context %+v", p.LongContext)
	}
	if p.For(200000) != p || p.For(200001) != &p.LongContext.Price {
		t.Fatal("For: the tier starts above 200,000 input tokens")
	}
	var none *Price
	if none.For(1e9) != nil || (&Price{Input: 1}).For(1e9).Input != 1 {
		t.Fatal("For without a tier")
	}
	for _, c := range []struct{ name, price, want string }{
		{"no above", `{input: 1, output: 2, long_context: {input: 2, output: 4}}`, `target price long_context is missing required key "above"`},
		{"no output", `{input: 1, output: 2, long_context: {above: 10, input: 2}}`, `target price long_context is missing required key "output"`},
		{"zero above", `{input: 1, output: 2, long_context: {above: 0, input: 2, output: 4}}`, `above must be at least 1`},
		{"unknown key", `{input: 1, output: 2, long_context: {above: 1, input: 2, output: 4, fast: 3}}`, `unknown key "fast" in target price long_context`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("c.yaml", []byte("providers: [{name: p, dialect: gemini, base_url: \"https://x.test\"}]\ntargets: [{name: t, model: m, providers: [p], price: "+c.price+"}]\n"), lookup)
			checkErrors(t, err, []wantErr{{2, c.want}})
		})
	}
}

// price.fast prices an answer served in Anthropic's fast mode (six times
// Opus 4.6's price; hostile 53).
func TestFastPrice(t *testing.T) {
	c, err := Parse("c.yaml", []byte(`providers: [{name: p, dialect: anthropic, base_url: "https://x.test"}]
targets: [{name: t, model: claude-opus-4-6, providers: [p], price: {input: 5, output: 25, fast: {input: 30, output: 150}}}]
`), envLookup(nil))
	if err != nil {
		t.Fatal(err)
	}
	tg, _ := c.Target("t")
	if f := tg.Price.Fast; f == nil || f.Input != 30 || f.Output != 150 {
		t.Fatalf("fast %+v", tg.Price.Fast)
	}
	_, err = Parse("c.yaml", []byte(`providers: [{name: p, dialect: anthropic, base_url: "https://x.test"}]
targets: [{name: t, model: m, providers: [p], price: {input: 5, output: 25, fast: {input: 30}}}]
`), envLookup(nil))
	checkErrors(t, err, []wantErr{{2, `target price fast is missing required key "output"`}})
}

// A fast answer to a long prompt costs both tiers: price.fast may name its
// own long_context, and without one it is the fast price scaled as the
// long context scales the base one (hostile 53c: it paid the fast price
// alone, half of Anthropic's bill).
func TestFastLongContextPrice(t *testing.T) {
	for _, c := range []struct{ price string }{
		{`{input: 5, output: 25, long_context: {above: 200000, input: 10, output: 37.5}, fast: {input: 30, output: 150}}`},
		{`{input: 5, output: 25, fast: {input: 30, output: 150, long_context: {above: 200000, input: 60, output: 225}}}`},
	} {
		cfg, err := Parse("c.yaml", []byte("providers: [{name: p, dialect: anthropic, base_url: \"https://x.test\"}]\ntargets: [{name: t, model: claude-opus-4-6, providers: [p], price: "+c.price+"}]\n"), envLookup(nil))
		if err != nil {
			t.Fatal(err)
		}
		tg, _ := cfg.Target("t")
		if q := tg.Price.Fast.For(300000); q.Input != 60 || q.Output != 225 {
			t.Errorf("%s: a fast answer to a 300,000-token prompt priced %+v, want 60/225", c.price, q)
		}
		if q := tg.Price.Fast.For(1000); q.Input != 30 {
			t.Errorf("%s: a fast answer to a short prompt priced %+v", c.price, q)
		}
	}
}
