package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// Review 66d: the Claude 5 generation (Sonnet 5, Sonnet 5.5, Opus 5, Opus
// 5.5, Opus 4.8, Fable 5.1) refuses, with a 400, request shapes the older
// models take; each case below is one Detour sent before, from the
// translation or the passthrough (sources in generation.go).

// translated is the Messages body the translation sends model for a chat
// body, decoded.
func translated(t *testing.T, body, model string) map[string]json.RawMessage {
	t.Helper()
	b, err := Translate(&provider.Request{Body: []byte(body)}, model)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// A chat client's temperature and top_p (most send them) reach no model
// that refuses them: Sonnet 5 ("non-default values return a 400 error")
// and every later model, Fable's included, whose name was not read at all.
func TestTranslateSamplingAtClaude5Review66d(t *testing.T) {
	body := `{"model":"r","temperature":0.2,"messages":[{"role":"user","content":"hi"}]}`
	bodyTopP := `{"model":"r","top_p":0.9,"messages":[{"role":"user","content":"hi"}]}`
	for model, refuses := range map[string]bool{
		"claude-sonnet-5":              true,
		"claude-sonnet-5-5":            true,
		"claude-opus-5":                true,
		"claude-opus-5-5":              true,
		"claude-opus-4-8":              true,
		"claude-fable-5-1":             true,
		"anthropic.claude-fable-5-1":   true, // Bedrock
		"claude-mythos-5":              true,
		"claude-sonnet-6":              true, // a later generation takes the newest rules
		"claude-sonnet-4-6":            false,
		"claude-sonnet-4-5-20250929":   false,
		"claude-haiku-4-5-20251001":    false,
		"claude-opus-4-6":              false,
		"claude-3-5-sonnet-20241022":   false,
		"my-finetune-of-something-new": false,
	} {
		for _, b := range []string{body, bodyTopP} {
			m := translated(t, b, model)
			_, temp := m["temperature"]
			_, topP := m["top_p"]
			if sent := temp || topP; sent == refuses {
				t.Errorf("%s: sampling sent = %v, want %v", model, sent, !refuses)
			}
		}
	}
}

// A forced choice — tool_choice required, a named function, a
// response_format's answer tool — is tool_choice auto at a model that
// refuses forcing (Sonnet 5.5, Opus 5.5, Fable 5.1 and later); Sonnet 5,
// Opus 5 and Fable 5 are still forced.
func TestTranslateForcedToolChoiceReview66d(t *testing.T) {
	tools := `"tools":[{"type":"function","function":{"name":"get","parameters":{"type":"object"}}}]`
	schema := `"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{"type":"object","properties":{"a":{"type":"string"}}}}}`
	msgs := `"messages":[{"role":"user","content":"hi"}]`
	cases := map[string]string{
		"required":        `{` + msgs + `,` + tools + `,"tool_choice":"required"}`,
		"named":           `{` + msgs + `,` + tools + `,"tool_choice":{"type":"function","function":{"name":"get"}}}`,
		"schema alone":    `{` + msgs + `,` + schema + `}`,
		"schema beside":   `{` + msgs + `,` + tools + `,` + schema + `}`,
		"json_object":     `{` + msgs + `,"response_format":{"type":"json_object"}}`,
		"schema and none": `{` + msgs + `,` + tools + `,"tool_choice":"none",` + schema + `}`,
	}
	for model, refuses := range map[string]bool{
		"claude-sonnet-5-5": true, "claude-opus-5-5": true, "claude-fable-5-1": true, "claude-fable-5-2": true,
		"claude-opus-6": true, "claude-sonnet-5": false, "claude-opus-5": false, "claude-fable-5": false,
		"claude-opus-4-8": false, "claude-haiku-4-5": false,
	} {
		for name, body := range cases {
			m := translated(t, body, model)
			if _, native := m["output_config"]; native {
				// Review 66f: a json_schema answer at such a model is
				// Anthropic's JSON outputs, beside the client's own choice.
				want := map[string]string{"schema alone": "", "schema beside": "", "schema and none": `{"type":"none"}`}
				if w, ok := want[name]; !refuses || !ok || string(m["tool_choice"]) != w {
					t.Errorf("%s %s: output_config beside tool_choice %s", model, name, m["tool_choice"])
				}
				continue
			}
			var c struct {
				Type string `json:"type"`
				Name string `json:"name"`
			}
			if err := json.Unmarshal(m["tool_choice"], &c); err != nil {
				t.Fatalf("%s %s: tool_choice %s", model, name, m["tool_choice"])
			}
			forced := c.Type == "any" || c.Type == "tool"
			if refuses && (forced || c.Type != "auto" || c.Name != "") {
				t.Errorf("%s %s: tool_choice %s, want auto", model, name, m["tool_choice"])
			}
			if !refuses && !forced && name != "schema and none" {
				t.Errorf("%s %s: tool_choice %s, want it forced", model, name, m["tool_choice"])
			}
			if name == "schema alone" && !json.Valid(m["tools"]) {
				t.Errorf("%s: no answer tool", model)
			}
		}
	}
}

// A client's max_tokens above 128,000 (the output maximum the models
// overview states for every 5-generation model and Opus 4.8) is that
// maximum; Opus 4.6's, which is not stated, is not capped.
func TestTranslateMaxTokensAtClaude5Review66d(t *testing.T) {
	body := `{"max_tokens":200000,"messages":[{"role":"user","content":"hi"}]}`
	for model, want := range map[string]string{
		"claude-sonnet-5-5": "128000", "claude-fable-5-1": "128000", "claude-opus-4-8": "128000",
		"claude-opus-5": "128000", "claude-opus-4-6": "200000", "claude-sonnet-4-5": "64000",
	} {
		if got := string(translated(t, body, model)["max_tokens"]); got != want {
			t.Errorf("%s: max_tokens %s, want %s", model, got, want)
		}
	}
}

// The passthrough fits a body written for one Claude model to another,
// across the 5 generation, in both directions.
func TestFitNativeClaude5Review66d(t *testing.T) {
	for _, c := range []struct{ name, model, in, want string }{
		{"disabled at Sonnet 5.5 is between_tools", "claude-sonnet-5-5",
			`{"max_tokens":1000,"thinking":{"type":"disabled"},"messages":[]}`,
			`{"max_tokens":1000,"thinking":{"type":"between_tools"},"messages":[]}`},
		{"disabled at Sonnet 5.5 at effort max is its default", "claude-sonnet-5-5",
			`{"max_tokens":1000,"thinking":{"type":"disabled"},"output_config":{"effort":"max"},"messages":[]}`,
			`{"max_tokens":1000,"output_config":{"effort":"max"},"messages":[]}`},
		{"disabled at Opus 5.5 is its default", "claude-opus-5-5",
			`{"max_tokens":1000,"thinking":{"type":"disabled"},"messages":[]}`,
			`{"max_tokens":1000,"messages":[]}`},
		{"disabled at Fable 5.1 is its default", "claude-fable-5-1",
			`{"max_tokens":1000,"thinking":{"type":"disabled"},"messages":[]}`,
			`{"max_tokens":1000,"messages":[]}`},
		{"disabled at Opus 5 is taken", "claude-opus-5",
			`{"max_tokens":1000,"thinking":{"type":"disabled"},"messages":[]}`,
			`{"max_tokens":1000,"thinking":{"type":"disabled"},"messages":[]}`},
		{"disabled at Sonnet 5 is taken", "claude-sonnet-5",
			`{"max_tokens":1000,"thinking":{"type":"disabled"},"messages":[]}`,
			`{"max_tokens":1000,"thinking":{"type":"disabled"},"messages":[]}`},
		{"between_tools at Sonnet 4.5 is disabled", "claude-sonnet-4-5-20250929",
			`{"max_tokens":1000,"thinking":{"type":"between_tools"},"messages":[]}`,
			`{"max_tokens":1000,"thinking":{"type":"disabled"},"messages":[]}`},
		{"between_tools at Haiku 4.5 is disabled", "claude-haiku-4-5",
			`{"max_tokens":1000,"thinking":{"type":"between_tools"},"messages":[]}`,
			`{"max_tokens":1000,"thinking":{"type":"disabled"},"messages":[]}`},
		{"between_tools at Opus 5.5 is its default", "claude-opus-5-5",
			`{"max_tokens":1000,"thinking":{"type":"between_tools"},"messages":[]}`,
			`{"max_tokens":1000,"messages":[]}`},
		{"between_tools at 3.5 Haiku, which does not think, is left out", "claude-3-5-haiku-20241022",
			`{"max_tokens":1000,"thinking":{"type":"between_tools"},"messages":[]}`,
			`{"max_tokens":1000,"messages":[]}`},
		{"between_tools at Sonnet 5.5 is taken", "claude-sonnet-5-5",
			`{"max_tokens":1000,"thinking":{"type":"between_tools"},"messages":[]}`,
			`{"max_tokens":1000,"thinking":{"type":"between_tools"},"messages":[]}`},
		{"budget thinking at Sonnet 5 is adaptive", "claude-sonnet-5",
			`{"max_tokens":16000,"thinking":{"type":"enabled","budget_tokens":8000},"messages":[]}`,
			`{"max_tokens":16000,"thinking":{"type":"adaptive"},"messages":[]}`},
		{"budget thinking at Fable 5.1 is adaptive", "claude-fable-5-1",
			`{"max_tokens":16000,"thinking":{"type":"enabled","budget_tokens":8000},"messages":[]}`,
			`{"max_tokens":16000,"thinking":{"type":"adaptive"},"messages":[]}`},
		{"sampling at Sonnet 5 is left out", "claude-sonnet-5",
			`{"max_tokens":100,"temperature":0.7,"top_k":40,"messages":[]}`,
			`{"max_tokens":100,"messages":[]}`},
		{"sampling at Fable 5.1 is left out", "claude-fable-5-1",
			`{"max_tokens":100,"temperature":0.7,"top_p":0.9,"messages":[]}`,
			`{"max_tokens":100,"messages":[]}`},
		{"a forced tool at Sonnet 5.5 is auto", "claude-sonnet-5-5",
			`{"max_tokens":100,"tool_choice":{"type":"tool","name":"get"},"messages":[]}`,
			`{"max_tokens":100,"tool_choice":{"type":"auto"},"messages":[]}`},
		{"any at Opus 5.5 is auto, parallel use still off", "claude-opus-5-5",
			`{"max_tokens":100,"tool_choice":{"type":"any","disable_parallel_tool_use":true},"messages":[]}`,
			`{"max_tokens":100,"tool_choice":{"type":"auto","disable_parallel_tool_use":true},"messages":[]}`},
		{"a forced tool at Sonnet 5 is taken", "claude-sonnet-5",
			`{"max_tokens":100,"tool_choice":{"type":"any"},"messages":[]}`,
			`{"max_tokens":100,"tool_choice":{"type":"any"},"messages":[]}`},
		{"Sonnet 4.6's 200,000 at Sonnet 5.5 is 128,000", "claude-sonnet-5-5",
			`{"max_tokens":200000,"messages":[]}`,
			`{"max_tokens":128000,"messages":[]}`},
		{"adaptive at Sonnet 5.5 is taken", "claude-sonnet-5-5",
			`{"max_tokens":32000,"thinking":{"type":"adaptive"},"messages":[]}`,
			`{"max_tokens":32000,"thinking":{"type":"adaptive"},"messages":[]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := fitNative([]byte(c.in), c.model)
			if string(got) != c.want {
				t.Fatalf("\n got %s\nwant %s", got, c.want)
			}
			if !json.Valid(got) {
				t.Fatalf("not JSON: %s", got)
			}
		})
	}
}

func TestTakesPrefillReview66d(t *testing.T) {
	for model, want := range map[string]bool{
		"claude-sonnet-4-5": true, "claude-3-7-sonnet-20250219": true, "claude-opus-4-1": true,
		"claude-opus-4-6": false, "claude-sonnet-5-5": false, "claude-fable-5-1": false, "my-model": true,
	} {
		if got := TakesPrefill(model); got != want {
			t.Errorf("TakesPrefill(%q) = %v, want %v", model, got, want)
		}
	}
}
