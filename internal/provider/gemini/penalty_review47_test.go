package gemini

import (
	"context"
	"io"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// openWebUIPenalty is what Open WebUI sends with a model's advanced
// parameters (open-webui utils/payload.py apply_model_params_to_body_openai:
// temperature, frequency_penalty, seed), plus presence_penalty, both
// documented by OpenAI's Chat Completions reference for every chat request.
const openWebUIPenalty = `{"model":"route","messages":[{"role":"user","content":"Hello!"}],"temperature":0.8,"frequency_penalty":0.1,"presence_penalty":0.2,"seed":42}`

// Gemini 2.5 and later answer a request carrying frequencyPenalty or
// presencePenalty with 400 INVALID_ARGUMENT "Penalty is not enabled for
// models/gemini-2.5-flash" (vercel/ai#8943, BerriAI/litellm#32273,
// PublicAffairs/openai-gemini#63; Gemini 3: BerriAI/litellm#16907;
// gemini-exp-1206: PublicAffairs/openai-gemini#27), while gemini-2.0 models
// take them (google-gemini/cookbook#1290, PublicAffairs/openai-gemini#63).
// The target's model (ep.Model, "models/" prefix or not) decides: a
// penalty is a sampling hint, its loss changes no answer's shape, while
// sending it makes every request of an Open WebUI chat a 400
// (client review 46).
func TestC47bPenaltiesOnlyToModelsThatTakeThem(t *testing.T) {
	for _, tc := range []struct {
		model string
		sent  bool
	}{
		{"gemini-2.5-flash", false},
		{"models/gemini-2.5-flash", false},
		{"gemini-2.5-pro", false},
		{"gemini-3-pro-preview", false},
		{"gemini-exp-1206", false},
		{"gemini-2.0-flash", true},
		{"models/gemini-2.0-flash-001", true},
		{"gemini-1.5-pro-002", true},
		{"models/gemini-1.5-flash", true},
	} {
		t.Run(tc.model, func(t *testing.T) {
			ep := provider.Endpoint{BaseURL: "http://127.0.0.1:1", Model: tc.model}
			hr, err := Adapter{}.NewRequest(context.Background(), ep, adaptertest.ClientRequest(t, []byte(openWebUIPenalty)))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(hr.Body)
			want := `{"contents":[{"role":"user","parts":[{"text":"Hello!"}]}],"generationConfig":{"temperature":0.8,"seed":42}}`
			if tc.sent {
				want = `{"contents":[{"role":"user","parts":[{"text":"Hello!"}]}],"generationConfig":{"temperature":0.8,"presencePenalty":0.2,"frequencyPenalty":0.1,"seed":42}}`
			}
			adaptertest.SameJSON(t, body, []byte(want))
		})
	}
}

// Translate, the model not named, sends no penalty (a model that takes
// none is the safe guess); TranslateFor follows the model as NewRequest
// does.
func TestC47bTranslateForModel(t *testing.T) {
	req := adaptertest.ClientRequest(t, []byte(`{"model":"route","messages":[{"role":"user","content":"Hello!"}],"frequency_penalty":0.1}`))
	for _, model := range []string{"", "gemini-2.5-flash", "MODELS/GEMINI-2.5-FLASH", "gemma-3-27b-it"} {
		out, err := TranslateFor(req, model)
		if err != nil {
			t.Fatal(err)
		}
		// No generationConfig at all: the penalty was its only member.
		adaptertest.SameJSON(t, out, []byte(`{"contents":[{"role":"user","parts":[{"text":"Hello!"}]}]}`))
	}
	out, err := Translate(req)
	if err != nil {
		t.Fatal(err)
	}
	adaptertest.SameJSON(t, out, []byte(`{"contents":[{"role":"user","parts":[{"text":"Hello!"}]}]}`))
	out, err = TranslateFor(req, "Models/Gemini-2.0-Flash")
	if err != nil {
		t.Fatal(err)
	}
	adaptertest.SameJSON(t, out, []byte(`{"contents":[{"role":"user","parts":[{"text":"Hello!"}]}],"generationConfig":{"frequencyPenalty":0.1}}`))
}
