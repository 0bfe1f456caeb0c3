package config

import "testing"

// A target's price may say what its provider charges per use of a server
// tool, per 1,000 uses: web_search (Anthropic's $10 per 1,000 searches)
// and web_fetch, read from Anthropic's usage.server_tool_use. Neither is guessed: a price without them
// leaves the fees unpriced. They are the target's, not a tier's: a
// long_context or fast price that names one is an error (build 66i).
func TestToolFeePriceBuild66i(t *testing.T) {
	yaml := `providers: [{name: a, dialect: anthropic, base_url: "https://x.test"}]
targets:
  - {name: searched, model: claude-sonnet-4-6, providers: [a], price: {input: 3, output: 15, web_search: 10, web_fetch: 0}}
  - {name: plain, model: claude-sonnet-4-6, providers: [a], price: {input: 3, output: 15}}
routes: [{name: r, targets: [searched, plain]}]
`
	cfg, err := Parse("c.yaml", []byte(yaml), nil)
	if err != nil {
		t.Fatal(err)
	}
	s, p := cfg.Targets[0].Price, cfg.Targets[1].Price
	if s.WebSearch == nil || *s.WebSearch != 10 {
		t.Errorf("web_search: %v, want 10", s.WebSearch)
	}
	if s.WebFetch == nil || *s.WebFetch != 0 {
		t.Errorf("web_fetch: %v, want 0 (written)", s.WebFetch)
	}
	if p.WebSearch != nil || p.WebFetch != nil {
		t.Errorf("plain: fees %v %v, want none (unpriced, never guessed)", p.WebSearch, p.WebFetch)
	}

	const pre = "providers: [{name: a, dialect: anthropic, base_url: \"https://x.test\"}]\ntargets:\n"
	for _, c := range []struct {
		name, yaml string
		want       []wantErr
	}{
		{"negative web_search", pre + "  - {name: t, model: m, providers: [a], price: {input: 1, output: 2, web_search: -10}}\n",
			[]wantErr{{3, `target price web_search must not be negative, not "-10"`}}},
		{"web_search not a number", pre + "  - {name: t, model: m, providers: [a],\n     price: {input: 1, output: 2, web_search: $10}}\n",
			[]wantErr{{4, `target price web_search must be a number of US dollars, not "$10"`}}},
		{"web_fetch not a number", pre + "  - {name: t, model: m, providers: [a], price: {input: 1, output: 2, web_fetch: free}}\n",
			[]wantErr{{3, `target price web_fetch must be a number of US dollars, not "free"`}}},
		{"web_search in fast", pre + "  - {name: t, model: m, providers: [a], price: {input: 1, output: 2,\n      fast: {input: 6, output: 12, web_search: 10}}}\n",
			[]wantErr{{4, `unknown key "web_search" in target price fast`}}},
		{"web_search in long_context", pre + "  - {name: t, model: m, providers: [a], price: {input: 1, output: 2,\n      long_context: {above: 5, input: 2, output: 4, web_search: 10}}}\n",
			[]wantErr{{4, `unknown key "web_search"`}}},
		{"code_execution", pre + "  - {name: t, model: m, providers: [a], price: {input: 1, output: 2, code_execution: 0.05}}\n",
			[]wantErr{{3, `unknown key "code_execution" in target price`}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("c.yaml", []byte(c.yaml), nil)
			checkErrors(t, err, c.want)
		})
	}
}

// Each tier carries the target's fees: an answer priced at fast or
// long_context prices its searches as the target does (build 66i).
func TestToolFeeTiersBuild66i(t *testing.T) {
	yaml := `providers: [{name: a, dialect: anthropic, base_url: "https://x.test"}]
targets:
  - {name: opus, model: claude-opus-4-6, providers: [a], price: {input: 5, output: 25, web_search: 10,
      long_context: {above: 200000, input: 10, output: 37.5}, fast: {input: 30, output: 150}}}
routes: [{name: r, targets: [opus]}]
`
	cfg, err := Parse("c.yaml", []byte(yaml), nil)
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.Targets[0].Price
	for what, q := range map[string]*Price{"long_context": &p.LongContext.Price, "fast": p.Fast, "fast long_context": &p.Fast.LongContext.Price} {
		if q.WebSearch == nil || *q.WebSearch != 10 || q.WebFetch != nil {
			t.Errorf("%s: web_search %v, web_fetch %v; want the target's 10 and none", what, q.WebSearch, q.WebFetch)
		}
	}
}
