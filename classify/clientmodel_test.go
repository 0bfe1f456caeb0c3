package classify

import (
	"strings"
	"testing"
)

// A gone-model answer about a model the client named in another member of
// its request (a tool's or an extension's own model, a fallback list) is
// the client's: it must not cool the endpoint. One about the model Detour
// sent stays unavailable whatever the request holds (docs/behaviour.md,
// "Not found: whose?"). The bodies are written for the test in the shapes
// the providers use (OpenAI's model_not_found, Ollama's "model \"x\" not
// found", a relay's "Model 'x' is not available").
func TestGoneModelTheClientNamed(t *testing.T) {
	const msgs = `"messages":[{"role":"user","content":"hi"}]`
	for _, c := range []struct {
		name         string
		status       int
		body, req    string
		model, class string
		ev           string
	}{
		// The client's: a model named in another member.
		{"openai model_not_found about an extension's embedding_model", 404,
			"{\"error\":{\"message\":\"The model `my-embedder` does not exist or you do not have access to it.\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"model_not_found\"}}",
			`{"model":"gpt-4o",` + msgs + `,"embedding_model":"my-embedder"}`, "gpt-4o", "bad_request", "not-found:client-named"},
		{"ollama's wording about a tool's rerank_model", 404,
			`{"error":"model \"nomic-embed\" not found, try pulling it first"}`,
			`{"model":"llama3",` + msgs + `,"tools":[{"type":"retrieval","rerank_model":"nomic-embed"}]}`, "llama3", "bad_request", "not-found:client-named"},
		{"a relay's 400 about a guard_model", 400,
			`{"error":{"message":"Model 'guard' is not available"}}`,
			`{"model":"gpt-4",` + msgs + `,"guard_model":"guard"}`, "gpt-4", "bad_request", "not-found:client-named"},
		{"a Responses tool's model, 'model: x not found'", 404,
			`{"error":{"message":"model: mini-judge not found","type":"invalid_request_error","param":null,"code":null}}`,
			`{"model":"gpt-4.1","input":"hi","tools":[{"type":"image_generation","model":"mini-judge"}]}`, "gpt-4.1", "bad_request", "not-found:client-named"},
		{"a fallback list: 'model mistral-small not found.'", 404,
			`{"error":{"message":"model mistral-small not found."}}`,
			`{"model":"llama3",` + msgs + `,"models":["mistral-small","qwen"]}`, "llama3", "bad_request", "not-found:client-named"},
		{"a plain name in a fallback list, code only", 404,
			`{"error":{"message":"The model mistral does not exist","code":"model_not_found"}}`,
			`{"model":"gpt-4",` + msgs + `,"models":["Mistral"]}`, "gpt-4", "bad_request", "not-found:client-named"},

		// The endpoint's: unchanged.
		{"the model Detour sent, plain", 404,
			"{\"error\":{\"message\":\"The model `gpt-4` does not exist or you do not have access to it.\",\"code\":\"model_not_found\"}}",
			`{"model":"gpt-4",` + msgs + `,"embedding_model":"gpt-4"}`, "gpt-4", "unavailable", "code:model_not_found"},
		{"the model Detour sent, other case, named in a tool too", 404,
			`{"error":"model \"Llama3\" not found, try pulling it first"}`,
			`{"model":"x",` + msgs + `,"tools":[{"rerank_model":"llama3"}]}`, "llama3", "unavailable", ""},
		{"the client's top-level model is the one named", 404,
			"{\"error\":{\"message\":\"The model `my-route` does not exist\",\"code\":\"model_not_found\"}}",
			`{"model":"my-route",` + msgs + `}`, "gpt-4o", "unavailable", "code:model_not_found"},
		{"the name only inside a prompt's text", 404,
			`{"error":{"message":"model my-embedder not found"}}`,
			`{"model":"gpt-4o","messages":[{"role":"user","content":"please embed with my-embedder"}]}`, "gpt-4o", "unavailable", ""},
		{"a prompt that is the name and nothing else is a whole value", 404,
			`{"error":{"message":"model llama-guard not found"}}`,
			`{"model":"x","messages":[{"role":"user","content":"llama-guard"}]}`, "gpt-4o", "bad_request", "not-found:client-named"},
		{"the prompt is the name but the model named is Detour's", 404,
			`{"error":{"message":"model gpt-4o not found"}}`,
			`{"model":"x","messages":[{"role":"user","content":"gpt-4o"}]}`, "gpt-4o", "unavailable", ""},
		{"the endpoint's model inside the name (a dated variant) the request does not hold", 404,
			`{"error":{"message":"The model gpt-4o-2024-05-13 does not exist","code":"model_not_found"}}`,
			`{"model":"x",` + msgs + `,"embedding_model":"gpt-4o-mini"}`, "gpt-4o", "unavailable", "code:model_not_found"},
		// A variant of Detour's model that the client sent itself, in
		// another member, is the client's: only Detour's model exactly
		// (or behind a provider prefix) is the endpoint's whatever the
		// request holds.
		{"a variant of the endpoint's model that the client named", 404,
			`{"error":{"message":"The model gpt-4o-2024-05-13 does not exist","code":"model_not_found"}}`,
			`{"model":"x",` + msgs + `,"embedding_model":"gpt-4o-2024-05-13"}`, "gpt-4o", "bad_request", "not-found:client-named"},
		{"a bogus name holding the endpoint's model, named by the client", 400,
			`{"error":{"message":"model gpt-4o-bogus not found"}}`,
			`{"model":"x",` + msgs + `,"tools":[{"type":"x","model":"gpt-4o-bogus"}]}`, "gpt-4o", "bad_request", "not-found:client-named"},
		{"the endpoint's model behind a provider prefix", 404,
			`{"error":{"message":"model gpt-4o not found"}}`,
			`{"model":"x",` + msgs + `,"guard_model":"llama-guard"}`, "openai/gpt-4o", "unavailable", ""},
		// The same name sent by the client itself is the client's
		// (clientmodel_hostile_test.go has the other spellings).
		{"the endpoint's model's base, which the client sent too", 404,
			`{"error":{"message":"model gpt-4o not found"}}`,
			`{"model":"x",` + msgs + `,"guard_model":"gpt-4o"}`, "openai/gpt-4o", "bad_request", "not-found:client-named"},
		{"Detour's model named beside the client's", 404,
			`{"error":{"message":"model my-embedder not found; model gpt-4o not found"}}`,
			`{"model":"x",` + msgs + `,"embedding_model":"my-embedder"}`, "gpt-4o", "unavailable", ""},
		{"the name is a member's name, not a value", 404,
			`{"error":{"message":"model my-embedder not found"}}`,
			`{"model":"x",` + msgs + `,"my-embedder":{"k":1}}`, "gpt-4o", "unavailable", ""},
		{"a longer value holding the name", 404,
			`{"error":{"message":"model my-embedder not found"}}`,
			`{"model":"x",` + msgs + `,"embedding_model":"my-embedder-v2"}`, "gpt-4o", "unavailable", ""},
		{"no model given", 404,
			`{"error":{"message":"model my-embedder not found"}}`,
			`{"model":"x",` + msgs + `,"embedding_model":"my-embedder"}`, "", "unavailable", ""},
		{"no name after model", 404,
			`{"error":{"message":"The model does not exist","code":"model_not_found"}}`,
			`{"model":"x",` + msgs + `,"tool":"does"}`, "gpt-4o", "unavailable", "code:model_not_found"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := Classify(Response{Status: c.status, Body: []byte(c.body), Request: []byte(c.req), Model: c.model})
			if !v.Failed || v.Class.String() != c.class {
				t.Fatalf("%+v, want %s", v, c.class)
			}
			if c.ev != "" && v.Evidence != c.ev {
				t.Errorf("evidence %q, want %q", v.Evidence, c.ev)
			}
			// Without the request, every one of them is the endpoint's.
			if w := Classify(Response{Status: c.status, Body: []byte(c.body), Model: c.model}); w.Class != Unavailable {
				t.Errorf("without the request: %+v, want unavailable", w)
			}
		})
	}
}

// Reading the model a gone-model answer names allocates nothing, whether
// the rule fires or not, however large the request.
func TestGoneModelTheClientNamedAllocs(t *testing.T) {
	req := []byte(`{"model":"gpt-4o","messages":[{"role":"user","content":"` + strings.Repeat("lorem ipsum ", 4000) +
		`"}],"embedding_model":"my-embedder"}`)
	for _, body := range []string{
		"{\"error\":{\"message\":\"The model `my-embedder` does not exist\",\"code\":\"model_not_found\"}}",
		`{"error":{"message":"model \"gpt-4o\" not found, try pulling it first"}}`,
		`{"error":{"message":"model a_1 b_2 c_3 model 'd-4' model e-5 model f6 model g7 model h8 model i9 model j10 not found"}}`,
	} {
		r := Response{Status: 404, Body: []byte(body), Request: req, Model: "gpt-4o"}
		Classify(r)
		if n := testing.AllocsPerRun(50, func() { Classify(r) }); n != 0 {
			t.Errorf("%s: %v allocations, want 0", body, n)
		}
	}
}
