package classify

import (
	"strings"
	"testing"
)

// A not-found answer is about the endpoint only when it is about the model
// (or says nothing else): one about something the client named in its
// request — a file, a container, a tool — is the request's
// (docs/behaviour.md, "Not found: whose?"). These bodies are written for the
// test (the corpus holds the published ones).
func TestNotFoundScope(t *testing.T) {
	const model = "claude-sonnet-4-5"
	fileReq := `{"model":"claude","max_tokens":1024,"messages":[{"role":"user","content":[{"type":"text","text":"Summarize."},` +
		`{"type":"document","source":{"type":"file","file_id":"file_011CNha8iCJcU1wXNR6q4V8w"}}]}]}`
	for _, c := range []struct {
		name         string
		status       int
		body, req    string
		model, class string
		ev           string
	}{
		{"anthropic file the client named", 404,
			`{"type":"error","error":{"type":"invalid_request_error","message":"File not found: file_011CNha8iCJcU1wXNR6q4V8w"}}`,
			fileReq, model, "bad_request", "not-found:client-named"},
		{"same, typed not_found_error", 404,
			`{"type":"error","error":{"type":"not_found_error","message":"File not found: file_011CNha8iCJcU1wXNR6q4V8w"}}`,
			fileReq, model, "bad_request", "not-found:client-named"},
		{"no model given: the request refers to a stored file", 404,
			`{"type":"error","error":{"type":"not_found_error","message":"File not found: file_011CNha8iCJcU1wXNR6q4V8w"}}`,
			fileReq, "", "bad_request", "not-found:client-resource"},
		{"no request given: as before", 404,
			`{"type":"error","error":{"type":"not_found_error","message":"File not found: file_011CNha8iCJcU1wXNR6q4V8w"}}`,
			"", model, "unavailable", "type:not_found_error"},
		{"an id the client did not send, to a request that refers to a stored file", 404,
			`{"type":"error","error":{"type":"not_found_error","message":"File not found: file_011XXXXXXXXXXXXXXXXXXXXX"}}`,
			fileReq, model, "bad_request", "not-found:client-resource"},
		{"an id the client did not send", 404,
			`{"type":"error","error":{"type":"not_found_error","message":"File not found: file_011XXXXXXXXXXXXXXXXXXXXX"}}`,
			`{"model":"claude","max_tokens":1024,"messages":[{"role":"user","content":"Summarize file_011CNha8iCJcU1wXNR6q4V8w"}]}`,
			model, "unavailable", "type:not_found_error"},
		{"the model Detour sent", 404,
			`{"type":"error","error":{"type":"not_found_error","message":"model: claude-sonnet-4-5"}}`,
			`{"model":"claude-sonnet-4-5","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`, model, "unavailable", "type:not_found_error"},
		{"the model Detour sent, dated", 404,
			`{"type":"error","error":{"type":"not_found_error","message":"model: claude-sonnet-4-5-20250929"}}`,
			`{"model":"r","max_tokens":10,"messages":[{"role":"user","content":"use claude-sonnet-4-5-20250929"}]}`, model, "unavailable", "type:not_found_error"},
		{"the model named in a path", 404,
			`{"error":{"code":404,"message":"Publisher Model projects/p1/locations/us-central1/publishers/google/models/claude-sonnet-4-5 was not found or your project does not have access to it.","status":"NOT_FOUND"}}`,
			`{"model":"r","messages":[{"role":"user","content":"summarize projects/p1/locations/us-central1/publishers/google/models/claude-sonnet-4-5"}]}`, model, "unavailable", ""},
		// A prompt that is the path and nothing else is a whole value the
		// client sent: its own request does not walk (clientmodel.go), and
		// nothing cools.
		{"the model's path, which the client sent as its whole prompt", 404,
			`{"error":{"code":404,"message":"Publisher Model projects/p1/locations/us-central1/publishers/google/models/claude-sonnet-4-5 was not found or your project does not have access to it.","status":"NOT_FOUND"}}`,
			`{"model":"r","messages":[{"role":"user","content":"projects/p1/locations/us-central1/publishers/google/models/claude-sonnet-4-5"}]}`, model, "bad_request", "not-found:client-named"},
		{"openai file object", 404,
			`{"error":{"message":"No such File object: file-vyA4ivhKGPlD4hezlXpAtOGN","type":"invalid_request_error","param":"id","code":null}}`,
			`{"model":"gpt","input":[{"role":"user","content":[{"type":"input_file","file_id":"file-vyA4ivhKGPlD4hezlXpAtOGN"}]}]}`, "gpt-4.1", "bad_request", "not-found:client-named"},
		{"openai container file", 404,
			`{"error":{"message":"File cfile_68628828cefc819186ceae6b71814a18 not found on container cntr_686287a8b3ac8198ac1c81a5a0484c700c1db168eefb7434.","type":"invalid_request_error","param":null,"code":null}}`,
			`{"model":"gpt","tools":[{"type":"code_interpreter","container":"cntr_686287a8b3ac8198ac1c81a5a0484c700c1db168eefb7434"}],"input":"hi"}`, "gpt-4.1", "bad_request", "not-found:client-named"},
		{"a quoted tool name", 404,
			`{"error":{"message":"Tool 'summarize the doc' not found"}}`,
			`{"model":"m","tools":[{"name":"summarize the doc"}],"messages":[]}`, "gpt-4.1", "bad_request", "not-found:client-named"},
		{"a quoted snake_case name", 404,
			`{"error":{"message":"Vector store \"support_docs\" not found."}}`,
			`{"model":"m","tools":[{"type":"file_search","vector_store_ids":["support_docs"]}]}`, "gpt-4.1", "bad_request", "not-found:client-named"},
		{"gemini file", 404,
			`{"error":{"code":404,"message":"File files/abc123xyz789 is not found.","status":"NOT_FOUND"}}`,
			`{"contents":[{"parts":[{"fileData":{"fileUri":"https://generativelanguage.googleapis.com/v1beta/files/abc123xyz789"}}]}]}`, "gemini-2.5-pro", "bad_request", "not-found:client-named"},
		{"a name after an escaped newline", 404,
			`{"error":{"message":"Not found:\nfile_011CNha8iCJcU1wXNR6q4V8w"}}`,
			fileReq, model, "bad_request", "not-found:client-named"},
		// Plain words every request holds name nothing.
		{"a quoted member name", 404,
			`{"error":{"message":"Unknown path for 'messages'"}}`,
			`{"model":"m","messages":[{"role":"user","content":"hi"}]}`, "gpt-4.1", "unavailable", "status:404"},
		{"prose the client also wrote", 404,
			`{"error":{"code":"404","message":"Resource not found"}}`,
			`{"model":"m","messages":[{"role":"user","content":"Resource not found"}]}`, "gpt-4.1", "unavailable", "status:404"},
		{"a bare 404", 404, ``, fileReq, model, "unavailable", "status:404"},
		{"a plain-text 404", 404, `404 page not found`, fileReq, model, "unavailable", "status:404"},
		{"a URL the client also sent", 404,
			`{"code":"Some requested entity was not found","error":"No handler found on route. Please double check your URL and consult https://api.x.ai/docs for more information."}`,
			`{"model":"m","messages":[{"role":"user","content":"see https://api.x.ai/docs"}]}`, "grok-4", "unavailable", "status:404"},
		// The provider's own words about a model keep it unavailable.
		{"model wording", 404,
			`{"error":{"message":"The model gpt-x-1 does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`,
			`{"model":"m","messages":[{"role":"user","content":"gpt-x-1"}]}`, "gpt-x-1", "unavailable", "code:model_not_found"},
		// A 400 saying not found about what the client named is bad input
		// (otherwise it would walk the route as unknown).
		{"400 not found about a client file", 400,
			`{"type":"error","error":{"type":"invalid_request_error","message":"File not found: file_011CNha8iCJcU1wXNR6q4V8w"}}`,
			fileReq, model, "bad_request", "not-found:client-named"},
		{"400 naming a client id without not-found wording", 400,
			`{"type":"error","error":{"type":"invalid_request_error","message":"Could not process file_011CNha8iCJcU1wXNR6q4V8w"}}`,
			fileReq, model, "unknown", "status:400"},
		// Not-found wording the client wrote itself is no evidence either.
		{"echoed not-found wording", 404,
			`{"error":{"message":"model sonnet_v2 not found"}}`,
			`{"model":"m","messages":[{"role":"user","content":"why does it say model sonnet_v2 not found"}]}`, "claude-sonnet-4-5", "bad_request", "not-found:client-named+echo"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := Response{Status: c.status, Body: []byte(c.body), Model: c.model}
			if c.req != "" {
				r.Request = []byte(c.req)
			}
			v := Classify(r)
			if !v.Failed || v.Class.String() != c.class {
				t.Fatalf("%+v, want %s", v, c.class)
			}
			if c.ev != "" && v.Evidence != c.ev {
				t.Errorf("evidence %q, want %q", v.Evidence, c.ev)
			}
		})
	}
}

// Reading a not-found answer's names allocates nothing, however large the
// request.
func TestNotFoundScopeAllocs(t *testing.T) {
	req := []byte(`{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("lorem ipsum ", 4000) +
		`"},{"role":"user","content":[{"type":"document","source":{"type":"file","file_id":"file_011CNha8iCJcU1wXNR6q4V8w"}}]}]}`)
	for _, body := range []string{
		`{"type":"error","error":{"type":"not_found_error","message":"File not found: file_011CNha8iCJcU1wXNR6q4V8w"}}`,
		`{"type":"error","error":{"type":"not_found_error","message":"File 'a b c' 'd e f' 'g h i' 'j k l' 'm n o' 'p q r' 'x_1' 'y_2' 'z_3' x_11111 y_22222 z_33333 not found"}}`,
	} {
		r := Response{Status: 404, Body: []byte(body), Request: req, Model: "claude-sonnet-4-5"}
		Classify(r)
		if n := testing.AllocsPerRun(50, func() { Classify(r) }); n != 0 {
			t.Errorf("%s: %v allocations, want 0", body, n)
		}
	}
}

// FuzzNotFoundScope: naming the model can only move a not-found answer to
// bad_request (or between the two client not-found evidences), never
// anywhere else, so no request and no model can make an
// answer cool more than it did without them; and the classifier never
// panics on any name, escape or quote.
func FuzzNotFoundScope(f *testing.F) {
	for _, c := range loadCorpus(f) {
		f.Add(c.Status, c.Body, c.Request, c.Model)
	}
	f.Add(404, `{"error":{"message":"File 'a\"b' \"x\\\" file_1 \u0041bc_1"}}`, `{"a":"file_1"}`, "m")
	f.Add(404, `{"error":{"message":"'x`, `'x`, "")
	f.Add(400, `{"error":{"message":"no such thing: abc_123."}}`, `abc_123`, "ABC_123")
	// A gone model the client named in another member (clientmodel.go).
	f.Add(404, "{\"error\":{\"message\":\"The model `my-embedder` does not exist\",\"code\":\"model_not_found\"}}", `{"model":"x","embedding_model":"my-embedder"}`, "gpt-4o")
	f.Add(404, `{"error":"model \"Llama3\" not found"}`, `{"tools":[{"model":"llama3"}],"models":["llama3\u0033"]}`, "openai/llama3")
	f.Add(400, `{"error":{"message":"Model: x\\\" model 'a' model= b."}}`, `{"model":"b","m":"\"a\"","n":"B"}`, "a")
	f.Fuzz(func(t *testing.T, status int, body, req, model string) {
		r := Response{Status: status, Body: []byte(body), Request: []byte(req)}
		without := Classify(r)
		r.Model = model
		with := Classify(r)
		if with == without {
			return
		}
		clientNotFound := func(v Verdict) bool {
			return v.Class == BadRequest && strings.HasPrefix(v.Evidence, "not-found:client-")
		}
		moved := (without.Class == Unavailable || without.Class == Unknown || clientNotFound(without)) && clientNotFound(with)
		if !moved {
			t.Fatalf("model %q moved %+v to %+v", model, without, with)
		}
	})
}

// BenchmarkNotFoundClientNamed: a 404 naming the file a 16 KiB request names
// at its end: the names of the message checked against the whole request.
func BenchmarkNotFoundClientNamed(b *testing.B) {
	b.ReportAllocs()
	req := []byte(`{"model":"m","max_tokens":64,"messages":[{"role":"user","content":[{"type":"text","text":"` + strings.Repeat("Lorem ipsum dolor sit amet. ", 585) +
		`"},{"type":"document","source":{"type":"file","file_id":"file_011CNha8iCJcU1wXNR6q4V8w"}}]}]}`)
	r := Response{Status: 404, Request: req, Model: "claude-sonnet-4-5",
		Body: []byte(`{"type":"error","error":{"type":"invalid_request_error","message":"File not found: file_011CNha8iCJcU1wXNR6q4V8w"}}`)}
	for b.Loop() {
		if v := Classify(r); v.Class != BadRequest {
			b.Fatal(v)
		}
	}
}

// A client's own 404 must not cool the endpoint when the name it sent is
// hard to tell from words: plain letters (a Gemini file name), base62
// without a digit (an OpenAI file id), a name inside the model's, or longer
// than 256 bytes (found by the hostile review: each cooled the endpoint).
func TestNotFoundClientNamesThatLookLikeWords(t *testing.T) {
	long := "file-" + strings.Repeat("a1", 150)
	for _, c := range []struct{ name, body, req, model string }{
		{"gemini file with a letters-only name",
			`{"error":{"code":404,"message":"File files/abcdefgh is not found.","status":"NOT_FOUND"}}`,
			`{"model":"m","messages":[{"role":"user","content":[{"type":"file","file":{"file_id":"files/abcdefgh"}}]}]}`, "gemini-2.5-pro"},
		{"openai file id without a digit (OpenAI's own id shape, corpus openai-no-such-file-object-404)",
			`{"error":{"message":"No such File object: file-abcdefghijklmnopqrstuv","type":"invalid_request_error","param":"id","code":null}}`,
			`{"model":"m","input":[{"role":"user","content":[{"type":"input_file","file_id":"file-abcdefghijklmnopqrstuv"}]}]}`, "gpt-4.1"},
		{"a client name that is part of the model's (passed over as the model's)",
			`{"error":{"code":404,"message":"File files/gemini-2 is not found.","status":"NOT_FOUND"}}`,
			`{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://generativelanguage.googleapis.com/v1beta/files/gemini-2"}}]}]}`, "gemini-2.5-pro"},
		{"an id longer than 256 bytes",
			`{"error":{"message":"No such File object: ` + long + `","type":"invalid_request_error","param":"id","code":null}}`,
			`{"model":"m","input":[{"role":"user","content":[{"type":"input_file","file_id":"` + long + `"}]}]}`, "gpt-4.1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := Classify(Response{Status: 404, Body: []byte(c.body), Request: []byte(c.req), Model: c.model})
			if v.Class == Unavailable {
				t.Errorf("the client's own 404 reads as unavailable (%s): it cools the endpoint", v.Evidence)
			}
		})
	}
}

// A wrong path's 404 (FastAPI's {"detail":"Not Found"}, as vLLM, SGLang
// and LiteLLM answer it) is the endpoint's whatever tools the client
// declares: a tool whose JSON schema has a "file_id" property names nothing
// stored (found by the second hostile review: it read bad_request and the
// broken endpoint never cooled for that traffic).
func TestNotFoundToolSchemaPropertyIsNoStoredResource(t *testing.T) {
	req := []byte(`{"model":"x","messages":[{"role":"user","content":"read my report"}],"tools":[{"type":"function","function":{"name":"read_file","parameters":{"type":"object","properties":{"file_id":{"type":"string"}}}}}]}`)
	for _, body := range []string{`{"detail":"Not Found"}`, `{"error":{"message":"Not Found","type":"invalid_request_error"}}`} {
		v := Classify(Response{Status: 404, Body: []byte(body), Request: req, Model: "gpt-x"})
		if v.Class != Unavailable {
			t.Errorf("404 %s to a request with a file_id tool parameter: %v (%s), want unavailable", body, v.Class, v.Evidence)
		}
	}
	// A bare "Not Found" stays the endpoint's even beside a real file id.
	fileReq := []byte(`{"model":"x","messages":[{"role":"user","content":[{"type":"file","file":{"file_id":"file-abc"}}]}]}`)
	if v := Classify(Response{Status: 404, Body: []byte(`{"detail":"Not Found"}`), Request: fileReq, Model: "gpt-x"}); v.Class != Unavailable {
		t.Errorf("a bare Not Found beside a file id: %v (%s), want unavailable", v.Class, v.Evidence)
	}
}
