package config

import (
	"testing"

	"github.com/detour-llm/detour/classify"
)

func TestContinuationDefaults(t *testing.T) {
	cfg, err := Parse("c.yaml", []byte(base+"routes:\n  - {name: r, targets: [t]}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := cfg.Route("r")
	if r.OnStreamCut != OnCutError || r.Continues() || r.MaxContinuations != DefaultMaxContinuations {
		t.Errorf("route defaults = %q, %d; want error, 2", r.OnStreamCut, r.MaxContinuations)
	}
	if (&Route{}).Continues() {
		t.Error("the zero Route continues")
	}
	tg, _ := cfg.Target("t")
	if tg.Prefill != nil {
		t.Errorf("unset prefill = %v, want nil", *tg.Prefill)
	}
	for dl, want := range map[classify.Dialect]bool{classify.Anthropic: true, classify.OpenAI: false, classify.Gemini: false} {
		if got := tg.AcceptsPrefill(dl); got != want {
			t.Errorf("default prefill for %s = %v, want %v", dl, got, want)
		}
	}
}

func TestContinuationWritten(t *testing.T) {
	y := `providers:
  - {name: p, dialect: openai, base_url: "https://x.test/v1"}
targets:
  - {name: t, model: m, providers: [p], prefill: true}
  - {name: u, model: m, providers: [p], prefill: false}
routes:
  - {name: r, targets: [t], on_stream_cut: continue, max_continuations: 0}
`
	cfg, err := Parse("c.yaml", []byte(y), nil)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := cfg.Route("r")
	if !r.Continues() || r.MaxContinuations != 0 {
		t.Errorf("route = %q, %d; want continue, 0", r.OnStreamCut, r.MaxContinuations)
	}
	tg, _ := cfg.Target("t")
	if !tg.AcceptsPrefill(classify.OpenAI) {
		t.Error("prefill: true at an openai target is not honoured")
	}
	u, _ := cfg.Target("u")
	if u.AcceptsPrefill(classify.Anthropic) {
		t.Error("prefill: false at an anthropic target is not honoured")
	}
}

func TestContinuationErrors(t *testing.T) {
	cases := []struct {
		name string
		yaml string
		want []wantErr
	}{
		{"unknown on_stream_cut", base + "routes:\n  - {name: r, targets: [t], on_stream_cut: retry}\n",
			[]wantErr{{6, `route on_stream_cut must be one of error, continue`}}},
		{"negative max_continuations", base + "routes:\n  - {name: r, targets: [t], max_continuations: -1}\n",
			[]wantErr{{6, `route max_continuations must be at least 0, not -1`}}},
		{"max_continuations not a number", base + "routes:\n  - {name: r, targets: [t],\n     max_continuations: two}\n",
			[]wantErr{{7, `route max_continuations must be a whole number`}}},
		{"prefill not a bool", `providers:
  - {name: p, dialect: anthropic, base_url: "https://x.test/v1"}
targets:
  - {name: t, model: m, providers: [p], prefill: yes}
`, []wantErr{{4, `target prefill must be true or false, not "yes"`}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Parse("c.yaml", []byte(tc.yaml), nil)
			if cfg != nil {
				t.Errorf("got a config along with the error")
			}
			checkErrors(t, err, tc.want)
		})
	}
}
