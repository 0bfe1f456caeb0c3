package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// detour check prints a target's audio prices beside its text prices
// (OpenAI's gpt-4o-mini-audio-preview: text $0.15/$0.60, audio $10/$20 per
// million), a tier's too (inherited where it names none), and nothing of
// audio for a target without them (builder 57).
func TestCheckPrintsAudioPricesBuilder57(t *testing.T) {
	path := filepath.Join(t.TempDir(), "detour.yaml")
	if err := os.WriteFile(path, []byte(`providers:
  - {name: o, dialect: openai, base_url: "https://api.openai.com", api_key: x}
targets:
  - {name: voice, model: gpt-4o-mini-audio-preview, providers: [o], price: {input: 0.15, output: 0.60, audio_input: 10, audio_output: 20}}
  - {name: heard, model: gpt-4o-audio-preview, providers: [o], price: {input: 2.5, output: 10, audio_input: 40,
      long_context: {above: 100000, input: 5, output: 20}}}
  - {name: text, model: gpt-4o, providers: [o], price: {input: 2.5, output: 10}}
routes:
  - {name: r, targets: [voice, heard, text]}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"check", "-c", path}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{
		"target voice: model gpt-4o-mini-audio-preview via o, price $0.15/$0.6, audio $10/$20 per million tokens in/out\n",
		"target heard: model gpt-4o-audio-preview via o, price $2.5/$10, audio $40/$10 per million tokens in/out ($5/$20, audio $40/$20 above 100000 input tokens)\n",
		"target text: model gpt-4o via o, price $2.5/$10 per million tokens in/out\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("check does not print %q:\n%s", want, out.String())
		}
	}
}
