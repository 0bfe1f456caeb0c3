package config

import "testing"

// A target's price may say what its audio tokens cost (OpenAI's
// gpt-4o-mini-audio-preview: text $0.15/$0.60, audio $10/$20 per million);
// a tier that names no audio price takes its target's, and a price without
// them leaves audio at the text price (builder 57).
func TestAudioPriceBuilder57(t *testing.T) {
	yaml := `providers: [{name: p, dialect: openai, base_url: "https://x.test"}]
targets:
  - {name: voice, model: gpt-4o-mini-audio-preview, providers: [p], price: {input: 0.15, output: 0.60, audio_input: 10, audio_output: 20}}
  - {name: tiers, model: m, providers: [p], price: {input: 1, output: 2, audio_input: 4, audio_output: 8,
      long_context: {above: 1000, input: 2, output: 4, audio_output: 16},
      fast: {input: 6, output: 12, long_context: {above: 1000, input: 12, output: 24}}}}
  - {name: derived, model: m, providers: [p], price: {input: 1, output: 2, audio_input: 4,
      long_context: {above: 1000, input: 2, output: 4}, fast: {input: 6, output: 12}}}
  - {name: text, model: m, providers: [p], price: {input: 1, output: 2}}
routes: [{name: r, targets: [voice, tiers, derived, text]}]
`
	cfg, err := Parse("c.yaml", []byte(yaml), nil)
	if err != nil {
		t.Fatal(err)
	}
	is := func(what string, p *float64, want float64) {
		t.Helper()
		if p == nil || *p != want {
			t.Errorf("%s: %v, want %v", what, p, want)
		}
	}
	v, tr, d, x := cfg.Targets[0].Price, cfg.Targets[1].Price, cfg.Targets[2].Price, cfg.Targets[3].Price
	is("voice audio_input", v.AudioInput, 10)
	is("voice audio_output", v.AudioOutput, 20)
	is("tiers long_context audio_input (inherited)", tr.LongContext.AudioInput, 4)
	is("tiers long_context audio_output (its own)", tr.LongContext.AudioOutput, 16)
	is("tiers fast audio_input", tr.Fast.AudioInput, 4)
	is("tiers fast long_context audio_output", tr.Fast.LongContext.AudioOutput, 8)
	is("derived fast long_context audio_input", d.Fast.LongContext.AudioInput, 4)
	if d.Fast.LongContext.AudioOutput != nil || d.AudioOutput != nil {
		t.Errorf("derived: an audio_output no price named: %v %v", d.Fast.LongContext.AudioOutput, d.AudioOutput)
	}
	if x.AudioInput != nil || x.AudioOutput != nil {
		t.Errorf("text: audio prices %v %v", x.AudioInput, x.AudioOutput)
	}

	const pre = "providers: [{name: p, dialect: openai, base_url: \"https://x.test\"}]\ntargets:\n"
	for _, c := range []struct {
		name, yaml string
		want       []wantErr
	}{
		{"negative audio_input", pre + "  - {name: t, model: m, providers: [p], price: {input: 1, output: 2, audio_input: -10}}\n",
			[]wantErr{{3, `target price audio_input must not be negative, not "-10"`}}},
		{"audio_output not a number", pre + "  - {name: t, model: m, providers: [p],\n     price: {input: 1, output: 2, audio_output: 20x}}\n",
			[]wantErr{{4, `target price audio_output must be a number of US dollars, not "20x"`}}},
		{"long_context audio_output", pre + "  - {name: t, model: m, providers: [p], price: {input: 1, output: 2, long_context: {above: 5, input: 2, output: 4, audio_output: -1}}}\n",
			[]wantErr{{3, `audio_output must not be negative, not "-1"`}}},
		{"unknown audio key", pre + "  - {name: t, model: m, providers: [p], price: {input: 1, output: 2, audio: 5}}\n",
			[]wantErr{{3, `unknown key "audio" in target price`}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("c.yaml", []byte(c.yaml), nil)
			checkErrors(t, err, c.want)
		})
	}
}
