package config

import (
	"strings"
	"testing"
)

const embedBase = `providers:
  - {name: o, dialect: openai, base_url: "https://o.test"}
  - {name: g, dialect: gemini, base_url: "https://g.test"}
targets:
  - {name: small, model: text-embedding-3-small, providers: [o], dimensions: 768}
  - {name: gem, model: gemini-embedding-001, providers: [g], dimensions: 768}
  - {name: big, model: text-embedding-3-large, providers: [o], dimensions: 3072}
  - {name: plain, model: text-embedding-3-small, providers: [o]}
`

func TestDimensionsMustAgreeInARoute(t *testing.T) {
	lookup := func(string) (string, bool) { return "", false }
	cfg, err := Parse("c.yaml", []byte(embedBase+"routes:\n  - {name: vec, targets: [small, gem]}\n"), lookup)
	if err != nil {
		t.Fatal(err)
	}
	if tg, _ := cfg.Target("gem"); tg.Dimensions != 768 {
		t.Errorf("gem dimensions = %d, want 768", tg.Dimensions)
	}
	for _, c := range []struct {
		name, routes string
		want         []wantErr
	}{
		{"different sizes", "routes:\n  - name: vec\n    targets: [small, big]\n",
			[]wantErr{{10, `route "vec": its targets declare different dimensions (small 768, big 3072)`}}},
		{"one undeclared", "routes:\n  - {name: vec, targets: [small, plain]}\n",
			[]wantErr{{10, `(small 768, plain none)`}}},
		{"in the tail", "routes:\n  - {name: vec, targets: [small], tail: [big], tail_on: [server_error]}\n",
			[]wantErr{{10, `(small 768, big 3072)`}}},
		{"through a nested route", "routes:\n  - {name: a, targets: [small]}\n  - {name: vec, targets: [a, big]}\n",
			[]wantErr{{11, `route "vec": its targets declare different dimensions`}}},
		{"not a number", "  - {name: bad, model: m, providers: [o], dimensions: 1.5}\n",
			[]wantErr{{9, `target dimensions must be a whole number, not "1.5"`}}},
		{"zero", "  - {name: bad, model: m, providers: [o], dimensions: 0}\n",
			[]wantErr{{9, `target dimensions must be at least 1, not 0`}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("c.yaml", []byte(embedBase+c.routes), lookup)
			checkErrors(t, err, c.want)
		})
	}
}

// A target that cannot embed (anthropic dialect) is not compared.
func TestDimensionsIgnoreChatOnlyTargets(t *testing.T) {
	lookup := func(string) (string, bool) { return "", false }
	yaml := embedBase + "  - {name: claude, model: c, providers: [a]}\nroutes:\n  - {name: vec, targets: [claude, small]}\n"
	yaml = strings.Replace(yaml, "providers:\n", "providers:\n  - {name: a, dialect: anthropic, base_url: \"https://a.test\"}\n", 1)
	if _, err := Parse("c.yaml", []byte(yaml), lookup); err != nil {
		t.Fatal(err)
	}
}
