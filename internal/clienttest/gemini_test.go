package clienttest

import (
	"encoding/json"
	"strings"
	"testing"
)

// geminiRouterObject answers the JSON request of Gemini CLI's model
// router (its default model "auto" first asks a flash-lite model for a
// complexity score, responseMimeType application/json): a low score picks
// the flash model for the turn. Without it the recorder's text reply is
// invalid JSON, the CLI retries the router call 5 times, then falls back
// to its pro model: the turn still ends.
const geminiRouterObject = `{"complexity_reasoning":"Simple greeting.","complexity_score":10}`

// geminiCall is the part of a Gemini request body the door must read.
type geminiCall struct {
	Contents []struct {
		Role  string            `json:"role"`
		Parts []json.RawMessage `json:"parts"`
	} `json:"contents"`
	SystemInstruction *struct {
		Role  string `json:"role"`
		Parts []struct {
			Text string `json:"text"`
		} `json:"parts"`
	} `json:"systemInstruction"`
	Tools []struct {
		FunctionDeclarations []struct {
			Name                 string          `json:"name"`
			ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
		} `json:"functionDeclarations"`
		GoogleSearch json.RawMessage `json:"googleSearch"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType   string          `json:"responseMimeType"`
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
		ThinkingConfig     *struct {
			IncludeThoughts bool `json:"includeThoughts"`
		} `json:"thinkingConfig"`
	} `json:"generationConfig"`
}

// checkGeminiRequests checks what every request of Gemini CLI carries: a
// POST under /v1beta/models/ (no other endpoint), the key in
// x-goog-api-key (not in ?key=, not as a bearer), streaming calls with
// ?alt=sse, and returns the bodies.
func checkGeminiRequests(t *testing.T, reqs []Request) []geminiCall {
	t.Helper()
	var calls []geminiCall
	for _, r := range reqs {
		t.Logf("%s %s?%s", r.Method, r.Path, r.Query)
		model, method, ok := strings.Cut(strings.TrimPrefix(r.Path, "/v1beta/models/"), ":")
		if r.Method != "POST" || !strings.HasPrefix(r.Path, "/v1beta/models/") || !ok || model == "" {
			t.Errorf("%s %s: not a model call", r.Method, r.Path)
			continue
		}
		switch {
		case method == "streamGenerateContent" && r.Query == "alt=sse":
		case method == "generateContent" && r.Query == "":
		default:
			t.Errorf("%s?%s: want :streamGenerateContent?alt=sse or :generateContent", r.Path, r.Query)
		}
		if k := r.Headers["x-goog-api-key"]; len(k) != 1 || k[0] != "***" {
			t.Errorf("%s: x-goog-api-key = %q, want the key", r.Path, k)
		}
		if a := r.Headers["authorization"]; a != nil {
			t.Errorf("%s: authorization %q besides x-goog-api-key", r.Path, a)
		}
		if ua := strings.Join(r.Headers["user-agent"], ""); !strings.HasPrefix(ua, "GeminiCLI") {
			t.Errorf("%s: user-agent %q", r.Path, ua)
		}
		var c geminiCall
		if err := json.Unmarshal(r.Body, &c); err != nil {
			t.Fatalf("%s: body: %v", r.Path, err)
		}
		if len(c.Contents) == 0 || c.SystemInstruction == nil || len(c.SystemInstruction.Parts) == 0 {
			t.Errorf("%s: no contents or systemInstruction", r.Path)
		}
		calls = append(calls, c)
	}
	return calls
}

// checkMainCall checks the agent's own call: streamed, the system prompt
// in systemInstruction (role "user"), the CLI's tools as function
// declarations with parametersJsonSchema (not parameters), thoughts asked
// for.
func checkMainCall(t *testing.T, r Request, c geminiCall, model string) {
	t.Helper()
	if r.Path != "/v1beta/models/"+model+":streamGenerateContent" || r.Query != "alt=sse" {
		t.Errorf("main call %s?%s, want %s streamed", r.Path, r.Query, model)
	}
	if c.SystemInstruction.Role != "user" || !strings.Contains(c.SystemInstruction.Parts[0].Text, "Gemini CLI") {
		t.Errorf("systemInstruction: role %q, %.80q", c.SystemInstruction.Role, c.SystemInstruction.Parts[0].Text)
	}
	names := map[string]bool{}
	for _, tl := range c.Tools {
		for _, f := range tl.FunctionDeclarations {
			names[f.Name] = true
			if len(f.ParametersJSONSchema) == 0 {
				t.Errorf("tool %s has no parametersJsonSchema", f.Name)
			}
		}
	}
	for _, n := range []string{"read_file", "list_directory", "glob", "grep_search", "google_web_search"} {
		if !names[n] {
			t.Errorf("tool %s not offered (tools %v)", n, names)
		}
	}
	if tc := c.GenerationConfig.ThinkingConfig; tc == nil || !tc.IncludeThoughts {
		t.Errorf("generationConfig.thinkingConfig.includeThoughts not set")
	}
}

// geminiOut is the JSON `gemini -p … --output-format json` prints.
func geminiOut(t *testing.T, res Result) string {
	t.Helper()
	t.Logf("stdout: %.2000s\nstderr: %s", res.Stdout, res.Stderr)
	if res.Err != nil {
		t.Fatalf("gemini: %v", res.Err)
	}
	var out struct {
		Response string          `json:"response"`
		Error    json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &out); err != nil {
		t.Fatalf("gemini --output-format json printed no JSON object: %v", err)
	}
	if len(out.Error) > 0 {
		t.Errorf("gemini reported an error: %s", out.Error)
	}
	return out.Response
}

// TestGeminiCLIOneTurn runs Gemini CLI's headless mode for one turn with
// its default model ("auto": a router call, then the turn on the model it
// picks) and with a model name it does not know, as a Detour route name
// is (one call).
func TestGeminiCLIOneTurn(t *testing.T) {
	for _, tc := range []struct {
		name, fixture string
		args          []string
		// router: the default model's router call comes first; main is
		// the model of the turn's own call.
		router bool
		main   string
	}{
		{"default-model", "gemini-cli-" + GeminiCLIVersion + ".jsonl", nil, true, "gemini-3.8-flash"},
		{"route-model", "gemini-cli-" + GeminiCLIVersion + "-route-model.jsonl", []string{"-m", "detour-route"}, false, "detour-route"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec, err := NewRecorder("hi from the recorder", nil)
			if err != nil {
				t.Fatal(err)
			}
			defer rec.Close()
			rec.Object = geminiRouterObject
			res := RunGemini(t, rec.URL, "say hi", Options{Args: tc.args})
			reqs := rec.Requests()
			if got := geminiOut(t, res); !strings.Contains(got, "hi from the recorder") {
				t.Errorf("gemini's response = %q, want the recorder's reply", got)
			}
			calls := checkGeminiRequests(t, reqs)
			want := 1
			if tc.router {
				want = 2
			}
			if len(calls) != want {
				t.Fatalf("%d model calls, want %d", len(calls), want)
			}
			if tc.router {
				r, c := reqs[0], calls[0]
				if !strings.HasSuffix(r.Path, ":generateContent") || c.GenerationConfig.ResponseMimeType != "application/json" ||
					len(c.GenerationConfig.ResponseJSONSchema) == 0 || len(c.Tools) != 0 {
					t.Errorf("router call %s: responseMimeType %q, responseJsonSchema %s, %d tools; want a JSON answer, no tools",
						r.Path, c.GenerationConfig.ResponseMimeType, c.GenerationConfig.ResponseJSONSchema, len(c.Tools))
				}
			}
			checkMainCall(t, reqs[want-1], calls[want-1], tc.main)
			if *recordFlag {
				writeFixture(t, tc.fixture, res.Home, reqs)
			}
		})
	}
}

// geminiToolRoundTrip runs Gemini CLI (model detour-route) with the
// recorder answering its first call with a functionCall of tool, and
// returns the requests: the CLI runs the tool and sends its result.
func geminiToolRoundTrip(t *testing.T, tool *ToolCall, prompt string, files map[string]string) (home string, reqs []Request, calls []geminiCall) {
	t.Helper()
	rec, err := NewRecorder("done", tool)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	res := RunGemini(t, rec.URL, prompt, Options{Args: []string{"-m", "detour-route"}, Files: files})
	reqs = rec.Requests()
	if got := geminiOut(t, res); !strings.Contains(got, "done") {
		t.Errorf("gemini's response = %q, want the recorder's reply", got)
	}
	calls = checkGeminiRequests(t, reqs)
	if n := len(calls); n < 2 {
		t.Fatalf("%d model calls, want the tool call and the answer to its result", n)
	}
	checkMainCall(t, reqs[0], calls[0], "detour-route")
	checkMainCall(t, reqs[len(reqs)-1], calls[len(calls)-1], "detour-route")
	return res.Home, reqs, calls
}

// checkFunctionRoundTrip checks the last call's history: the model's
// functionCall sent back with an id the CLI made and a thoughtSignature
// beside it, then a user functionResponse with that id and name whose
// response.output holds want.
func checkFunctionRoundTrip(t *testing.T, c geminiCall, name, want string) {
	t.Helper()
	var call, resp map[string]any
	var sig string
	for _, ct := range c.Contents {
		for _, raw := range ct.Parts {
			var p struct {
				FunctionCall     map[string]any `json:"functionCall"`
				FunctionResponse map[string]any `json:"functionResponse"`
				ThoughtSignature string         `json:"thoughtSignature"`
			}
			json.Unmarshal(raw, &p) //nolint:errcheck // checked below
			if p.FunctionCall != nil && ct.Role == "model" {
				call, sig = p.FunctionCall, p.ThoughtSignature
			}
			if p.FunctionResponse != nil && ct.Role == "user" {
				resp = p.FunctionResponse
			}
		}
	}
	if call == nil || call["name"] != name || call["id"] == nil || call["id"] == "" {
		t.Fatalf("functionCall sent back = %v, want %s with an id", call, name)
	}
	if sig == "" {
		t.Errorf("no thoughtSignature beside the functionCall")
	}
	if resp == nil || resp["name"] != name || resp["id"] != call["id"] {
		t.Fatalf("functionResponse = %v, want %s with the call's id %v", resp, name, call["id"])
	}
	out, _ := resp["response"].(map[string]any)["output"].(string)
	if !strings.Contains(out, want) {
		t.Errorf("functionResponse.response.output = %q, want %q in it", out, want)
	}
}

// TestGeminiCLIToolRoundTrip answers the first call with a functionCall
// of the CLI's read_file (a read-only tool, allowed without approval)
// for a file in the workspace; the second call carries its content.
func TestGeminiCLIToolRoundTrip(t *testing.T) {
	home, reqs, calls := geminiToolRoundTrip(t, &ToolCall{Name: "read_file", Input: json.RawMessage(`{"file_path":"notes.txt"}`)},
		"read notes.txt", map[string]string{"notes.txt": "clienttest-file-content\n"})
	if len(calls) != 2 {
		t.Errorf("%d model calls, want 2", len(calls))
	}
	checkFunctionRoundTrip(t, calls[len(calls)-1], "read_file", "clienttest-file-content")
	if *recordFlag {
		writeFixture(t, "gemini-cli-"+GeminiCLIVersion+"-tool.jsonl", home, reqs)
	}
}

// TestGeminiCLIWebSearch answers the first call with a functionCall of
// the CLI's google_web_search: the tool is one more model call, to a
// model of its own (not the one of -m) with Gemini's built-in
// googleSearch tool, and its text answer is the tool's result.
func TestGeminiCLIWebSearch(t *testing.T) {
	home, reqs, calls := geminiToolRoundTrip(t, &ToolCall{Name: "google_web_search", Input: json.RawMessage(`{"query":"detour gateway"}`)},
		"search the web for detour gateway", nil)
	if len(calls) != 3 {
		t.Fatalf("%d model calls, want 3 (the call, the search, the answer)", len(calls))
	}
	search := reqs[1]
	if search.Path != "/v1beta/models/gemini-3-flash-preview:generateContent" || len(calls[1].Tools) != 1 ||
		string(calls[1].Tools[0].GoogleSearch) != "{}" {
		t.Errorf("search call %s with tools %s, want gemini-3-flash-preview:generateContent with [{googleSearch:{}}]",
			search.Path, search.Body)
	}
	checkFunctionRoundTrip(t, calls[2], "google_web_search", "done")
	if *recordFlag {
		writeFixture(t, "gemini-cli-"+GeminiCLIVersion+"-web-search.jsonl", home, reqs)
	}
}
