package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runC(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runClassify(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestClassifyFile(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "body.json")
	body := `{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API."}}`
	if err := os.WriteFile(f, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runC(t, "", "--status", "400", "--dialect", "anthropic", f)
	if code != 0 || out != `{"class":"quota","evidence":"phrase:credit balance is too low"}`+"\n" {
		t.Fatalf("code %d out %q err %q", code, out, errs)
	}
	// Flags after the file, body from stdin with "-".
	code, out, _ = runC(t, body, "-", "--status", "400")
	if code != 0 || !strings.Contains(out, `"class":"quota"`) {
		t.Fatalf("stdin: %d %q", code, out)
	}
	if code, _, _ := runC(t, "", filepath.Join(dir, "missing.json")); code != 1 {
		t.Fatalf("missing file: exit %d", code)
	}
}

func TestClassifyStatusHeaders(t *testing.T) {
	code, out, _ := runC(t, "", "--status", "429", "--header", "Retry-After: 7", "--header", "x-other:1")
	if code != 0 || out != `{"class":"rate_limited","evidence":"status:429","retry_after_ms":7000}`+"\n" {
		t.Fatalf("%d %q", code, out)
	}
	code, out, _ = runC(t, `{"choices":[{"message":{"content":"hi"},"finish_reason":"stop"}]}`)
	if code != 0 || out != `{"class":"ok","evidence":"status:200"}`+"\n" {
		t.Fatalf("success: %d %q", code, out)
	}
	code, out, _ = runC(t, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n", "--stream")
	if code != 0 || !strings.Contains(out, `"class":"server_error"`) {
		t.Fatalf("stream: %d %q", code, out)
	}
	code, out, _ = runC(t, "", "--status", "403", "--header", "x-amzn-errortype:UnrecognizedClientException")
	if code != 0 || !strings.Contains(out, `"class":"auth"`) {
		t.Fatalf("header: %d %q", code, out)
	}
	if code, _, _ := runC(t, "", "--header", "nocolon"); code != 2 {
		t.Fatalf("bad header: exit %d", code)
	}
	if code, _, _ := runC(t, "", "--dialect", "cobol"); code != 2 {
		t.Fatalf("bad dialect: exit %d", code)
	}
	if code, _, _ := runC(t, "", "a", "b"); code != 2 {
		t.Fatalf("two files: exit %d", code)
	}
}

func TestClassifyJSONL(t *testing.T) {
	in := strings.Join([]string{
		`{"status":429,"headers":{"retry-after":"2"}}`,
		`not json`,
		`{"status":400,"body":"{\"error\":{\"message\":\"No endpoints found for x:free.\",\"code\":400}}"}`,
		``,
		`{"status":200,"stream":true,"body":{"type":"message_delta","delta":{"stop_reason":"refusal"}}}`,
		`{"status":400,"dialect":"klingon"}`,
		`{"status":404,"unknown_field":1}`,
		`{"status":401,"provider":"p","dialect":"openai"}`,
	}, "\n") + "\n"
	code, out, _ := runC(t, in, "--jsonl")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (bad lines)", code)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	want := []string{
		`{"class":"rate_limited","evidence":"status:429","retry_after_ms":2000}`,
		`{"error":"line 2: `,
		`{"class":"unavailable","evidence":"phrase:no endpoints found"}`,
		`{"error":"line 4: empty line"}`,
		`{"class":"refusal","evidence":"anthropic:stop_reason=refusal"}`,
		`{"error":"line 6: unknown dialect`,
		`{"error":"line 7: `,
		`{"class":"auth","evidence":"status:401"}`,
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), out)
	}
	for i := range want {
		if !strings.HasPrefix(lines[i], want[i]) {
			t.Errorf("line %d: %s, want prefix %s", i+1, lines[i], want[i])
		}
		if !json.Valid([]byte(lines[i])) {
			t.Errorf("line %d is not JSON: %s", i+1, lines[i])
		}
	}
	code, out, _ = runC(t, `{"status":500}`+"\n", "--jsonl")
	if code != 0 || out != `{"class":"server_error","evidence":"status:500"}`+"\n" {
		t.Fatalf("clean batch: %d %q", code, out)
	}
}

func TestClassifyConfigRules(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "detour.yaml")
	yaml := `providers:
  - {name: openai, dialect: openai, base_url: https://api.openai.com/v1, api_key: "x"}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai]}
classify:
  rules:
    - {status: 400, match: "(?i)teapot", class: server_error}
`
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runC(t, `{"error":{"message":"I am a Teapot"}}`, "-c", cfg, "--status", "400")
	if code != 0 || out != `{"class":"server_error","evidence":"rule:1"}`+"\n" {
		t.Fatalf("%d %q %q", code, out, errs)
	}
	code, out, _ = runC(t, `{"status":400,"body":"teapot"}`+"\n", "-c", cfg, "--jsonl")
	if code != 0 || !strings.Contains(out, `"evidence":"rule:1"`) {
		t.Fatalf("jsonl with rules: %d %q", code, out)
	}
	if code, _, _ := runC(t, "", "-c", filepath.Join(dir, "nope.yaml")); code != 1 {
		t.Fatalf("missing config: exit %d", code)
	}
}

// A --jsonl line may carry the client's request and the model sent
// upstream, which decide whose a not-found is (docs/behaviour.md, "Not
// found: whose?"): the same 404 is bad_request when it names a file the
// client sent, unavailable otherwise.
func TestClassifyJSONLRequestAndModel(t *testing.T) {
	answer := `"status":404,"body":"{\"error\":{\"message\":\"No such File object: file-abc123\",\"type\":\"invalid_request_error\",\"param\":\"id\",\"code\":null}}"`
	in := `{` + answer + `,"request":"{\"model\":\"gpt-4o\",\"file_id\":\"file-abc123\"}","model":"gpt-4o"}` + "\n" +
		`{` + answer + `}` + "\n" +
		`{"status":404,"request":{"not":"a string"}}` + "\n"
	code, out, _ := runC(t, in, "--jsonl")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 1 || len(lines) != 3 {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
	if !strings.HasPrefix(lines[0], `{"class":"bad_request"`) {
		t.Errorf("with the request that names the file: %s, want bad_request", lines[0])
	}
	if strings.HasPrefix(lines[1], `{"class":"bad_request"`) {
		t.Errorf("without the request: %s, want the provider's class", lines[1])
	}
	if !strings.HasPrefix(lines[2], `{"error":"line 3: request`) {
		t.Errorf("a request that is not a string: %s, want an error naming it", lines[2])
	}
}

// TestClassifyJSONLHeaderLists: a header's value may be given as Go's
// http.Header writes it, a list (a header may repeat), as well as a
// string; a list of anything but strings is a clear error.
func TestClassifyJSONLHeaderLists(t *testing.T) {
	in := strings.Join([]string{
		`{"status":429,"headers":{"Retry-After":["60"]}}`,
		`{"status":429,"headers":{"Retry-After":"60"}}`,
		`{"status":400,"headers":{"X-Amzn-Errortype":["ValidationException"]},"body":"{\"message\":\"Malformed input request\"}"}`,
		`{"status":429,"headers":{"Retry-After":[60]}}`,
	}, "\n") + "\n"
	code, out, _ := runC(t, in, "--jsonl")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (one bad line)", code)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	want := []string{
		`{"class":"rate_limited","evidence":"status:429","retry_after_ms":60000}`,
		`{"class":"rate_limited","evidence":"status:429","retry_after_ms":60000}`,
		`{"class":"`,
		`{"error":"line 4: headers: `,
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), out)
	}
	for i := range want {
		if !strings.HasPrefix(lines[i], want[i]) {
			t.Errorf("line %d: %s, want prefix %s", i+1, lines[i], want[i])
		}
	}
	if strings.Contains(lines[2], `"status:400"`) {
		t.Errorf("the listed AWS error type was not read: %s", lines[2])
	}
}

// A stream given whole is read event by event, as the gateway reads it: an
// error event after more than MaxBody bytes of content decides (it read as
// a success when only the first 4 KiB were read: hunt 36e's llama.cpp
// stream), a stream whose events all succeed is a success, and an `event:
// error` whose data proves nothing is unknown.
func TestClassifyStreamGivenWholeReadsEveryEvent(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 200; i++ {
		b.WriteString(`data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"1"},"finish_reason":null}]}` + "\n\n")
	}
	content := b.String()
	cases := []struct{ name, body, want string }{
		{"error after 20 KiB of content", content + `data: {"error":{"code":500,"message":"Context size has been exceeded.","type":"server_error"}}` + "\n\n", `"class":"context_length"`},
		{"all content", content + "data: [DONE]\n\n", `"class":"ok"`},
		{"an error event saying nothing", content + "event: error\ndata: {}\n\n", `"class":"unknown","evidence":"stream:error event"`},
		{"comments, then an error", ": OPENROUTER PROCESSING\n\n" + content + `data: {"error":{"message":"Overloaded","code":529}}` + "\n\n", `"class":"server_error"`},
	}
	for _, c := range cases {
		code, out, _ := runC(t, c.body, "--stream")
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("%s: %d %q, want %s", c.name, code, out, c.want)
		}
		line, _ := json.Marshal(map[string]any{"status": 200, "stream": true, "body": c.body})
		code, out, _ = runC(t, string(line)+"\n", "--jsonl")
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("%s, --jsonl: %d %q, want %s", c.name, code, out, c.want)
		}
	}
}
