package classify

import (
	"strings"
	"testing"
)

// Hostile requests against the client-named gone-model rule. Each
// case is a gone-model answer about a name that only the CLIENT sent, in a
// member other than its top-level model: the endpoint must not be cooled
// (bad_request), per docs/behaviour.md "Not found: whose?".
func TestGoneModelHostileNames(t *testing.T) {
	const msgs = `"messages":[{"role":"user","content":"hi"}]`
	long := "m" + strings.Repeat("x", 300)
	for _, c := range []struct{ name, body, req, model string }{
		{"a path ending in Detour's model, sent by the client",
			"{\"error\":{\"message\":\"The model `nonexistent/gpt-4o` does not exist\",\"code\":\"model_not_found\"}}",
			`{"model":"x",` + msgs + `,"embedding_model":"nonexistent/gpt-4o"}`, "gpt-4o"},
		{"Detour's model in another case, sent by the client",
			"{\"error\":{\"message\":\"The model `GPT-4O` does not exist\",\"code\":\"model_not_found\"}}",
			`{"model":"x",` + msgs + `,"embedding_model":"GPT-4O"}`, "gpt-4o"},
		{"the unprefixed base of Detour's prefixed model, sent by the client",
			"{\"error\":{\"message\":\"The model `gpt-4o` does not exist\",\"code\":\"model_not_found\"}}",
			`{"model":"x",` + msgs + `,"models":["gpt-4o"]}`, "openai/gpt-4o"},
		{"a non-ASCII name the client JSON-escaped",
			"{\"error\":{\"message\":\"The model `caf\xc3\xa9-embed` does not exist\",\"code\":\"model_not_found\"}}",
			`{"model":"x",` + msgs + `,"embedding_model":"caf\u00e9-embed"}`, "gpt-4o"},
		{"a name longer than maxNeedle",
			"{\"error\":{\"message\":\"The model `" + long + "` does not exist\",\"code\":\"model_not_found\"}}",
			`{"model":"x",` + msgs + `,"embedding_model":"` + long + `"}`, "gpt-4o"},
		{"a name with a blank",
			"{\"error\":{\"message\":\"The model `my embedder` does not exist\",\"code\":\"model_not_found\"}}",
			`{"model":"x",` + msgs + `,"embedding_model":"my embedder"}`, "gpt-4o"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := Classify(Response{Status: 404, Body: []byte(c.body), Request: []byte(c.req), Model: c.model})
			if v.Class != BadRequest {
				t.Errorf("%+v: a name only the client sent cools the endpoint", v)
			}
		})
	}
}

// The reverse: a gone endpoint model the client did not name stays
// unavailable.
func TestGoneModelOfTheEndpointStays(t *testing.T) {
	const msgs = `"messages":[{"role":"user","content":"hi"}]`
	for _, c := range []struct{ name, body, req, model string }{
		{"resolved alias not in the request",
			"{\"error\":{\"message\":\"The model `gpt-4o-2024-08-06` does not exist\",\"code\":\"model_not_found\"}}",
			`{"model":"x",` + msgs + `}`, "gpt-4o"},
		{"Vertex path",
			`{"error":{"code":404,"message":"Publisher Model ` + "`projects/p/locations/us/publishers/anthropic/models/claude-x`" + ` was not found","status":"NOT_FOUND"}}`,
			`{"model":"x",` + msgs + `}`, "claude-x"},
		{"ollama other case",
			`{"error":"model \"Llama3\" not found, try pulling it first"}`,
			`{"model":"x",` + msgs + `}`, "llama3"},
		{"a name after many model words",
			`{"error":{"message":"model a1 model a2 model a3 model a4 model a5 model a6 model a7 model a8 model a9 model gpt-4o-x not found"}}`,
			`{"model":"x",` + msgs + `,"t":["a1","a2","a3","a4","a5","a6","a7","a8","a9"]}`, "gpt-4o"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := Classify(Response{Status: 404, Body: []byte(c.body), Request: []byte(c.req), Model: c.model})
			if v.Class != Unavailable {
				t.Errorf("%+v: want unavailable", v)
			}
		})
	}
}

func TestGoneModelHostileAllocs(t *testing.T) {
	req := []byte(`{"model":"x","messages":[{"role":"user","content":"` + strings.Repeat(`caf\u00e9 \"q\" `, 2000) + `"}],"embedding_model":"caf\u00e9-embed","t":["\u006dy-embedder"]}`)
	for _, r := range []Response{
		{Status: 404, Body: []byte("{\"error\":{\"message\":\"The model `my-embedder` does not exist\",\"code\":\"model_not_found\"}}"), Request: req, Model: "gpt-4o"},
		{Status: 404, Body: []byte("{\"error\":{\"message\":\"The model `caf\xc3\xa9-embed` does not exist\",\"code\":\"model_not_found\"}}"), Request: req, Model: "gpt-4o"},
		{Status: 404, Body: []byte(`{"error":{"message":"` + strings.Repeat("model m1 ", 200) + `not found"}}`), Request: req, Model: "gpt-4o"},
		{Status: 429, Body: []byte(`{"type":"error","error":{"type":"rate_limit_error","message":"We're experiencing high traffic right now!"}}`), Request: req, Model: "gpt-4o"},
	} {
		v := Classify(r)
		if n := testing.AllocsPerRun(20, func() { Classify(r) }); n != 0 {
			t.Errorf("%s: %v allocs (%+v)", r.Body[:40], n, v)
		}
	}
}

// BenchmarkGoneModelHugeRequest: a gone-model answer repeating one name
// against a 1.25 MiB request of escapes; each distinct name costs one scan
// of the request, at most maxNamed.
func BenchmarkGoneModelHugeRequest(b *testing.B) {
	req := []byte(`{"model":"x","messages":[{"role":"user","content":"` + strings.Repeat(`\"a\" `, 250000) + `"}]}`)
	body := []byte(`{"error":{"message":"` + strings.Repeat("model m1 ", 7000) + `not found"}}`)
	r := Response{Status: 404, Body: body, Request: req, Model: "gpt-4o"}
	for b.Loop() {
		Classify(r)
	}
}

// A client that writes "model <Detour's model>" into a name of its own
// (a tool model of "nope` model `gpt-4o") gets it echoed back: the names
// inside text the client wrote are its own, Detour's exact model among
// them, and nothing cools.
func TestGoneModelInjectedExactName(t *testing.T) {
	const msgs = `"messages":[{"role":"user","content":"hi"}]`
	for _, c := range []struct{ name, body, req string }{
		{"backticks, as OpenAI quotes",
			"{\"error\":{\"message\":\"The model `nope` model `gpt-4o` does not exist\",\"code\":\"model_not_found\"}}",
			`{"model":"x",` + msgs + ",\"embedding_model\":\"nope` model `gpt-4o\"}"},
		{"bare, as model %s not found",
			`{"error":{"message":"model nope model gpt-4o not found"}}`,
			`{"model":"x",` + msgs + `,"embedding_model":"nope model gpt-4o"}`},
		{"escaped in the request",
			`{"error":{"message":"model nope model gpt-4o not found"}}`,
			`{"model":"x",` + msgs + `,"embedding_model":"nope model gpt\u002d4o"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := Classify(Response{Status: 404, Body: []byte(c.body), Request: []byte(c.req), Model: "gpt-4o"})
			if v.Class != BadRequest {
				t.Errorf("%+v: a gone model only the client sent cools the endpoint", v)
			}
		})
	}
}

// Every name the client sent is its own, whatever its place in the
// message: one found in the request does not stop the others being looked
// for.
func TestGoneModelSecondClientName(t *testing.T) {
	const msgs = `"messages":[{"role":"user","content":"hi"}]`
	for _, c := range []struct{ name, body, req string }{
		{"another case second",
			"{\"error\":{\"message\":\"The model `my-embedder` does not exist; the model `GPT-4O` does not exist\",\"code\":\"model_not_found\"}}",
			`{"model":"x",` + msgs + `,"embedding_model":"my-embedder","tools":[{"model":"GPT-4O"}]}`},
		{"another case first",
			"{\"error\":{\"message\":\"The model `GPT-4O` does not exist; the model `my-embedder` does not exist\",\"code\":\"model_not_found\"}}",
			`{"model":"x",` + msgs + `,"embedding_model":"my-embedder","tools":[{"model":"GPT-4O"}]}`},
		{"a path second",
			"{\"error\":{\"message\":\"The model `my-embedder` does not exist; the model `nonexistent/gpt-4o` does not exist\",\"code\":\"model_not_found\"}}",
			`{"model":"x",` + msgs + `,"embedding_model":"my-embedder","models":["nonexistent/gpt-4o"]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := Classify(Response{Status: 404, Body: []byte(c.body), Request: []byte(c.req), Model: "gpt-4o"})
			if v.Class != BadRequest {
				t.Errorf("%+v: names only the client sent cool the endpoint", v)
			}
		})
	}
}
