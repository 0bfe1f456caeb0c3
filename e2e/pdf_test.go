package e2e

import (
	"net/http"
	"strings"
	"testing"
)

// A PDF reaches every vendor in its own shape, through every door: OpenAI's
// PDF input (a chat file part, a Responses input_file, each a base64 data:
// URL: platform.openai.com/docs/guides/pdf-files), Claude's base64 document
// block (platform.claude.com/docs/en/build-with-claude/pdf-support) and
// Gemini's inline data of type application/pdf
// (ai.google.dev/gemini-api/docs/document-processing). An OpenAI client's
// audio reaches Gemini as inline audio (docs/doors.md, "Chat Completions to
// Claude and Gemini targets"). Before round 48 each was a 400 for every
// target but the client's own vendor.
func TestPDFReachesEveryVendor(t *testing.T) {
	const pdf = "JVBERi0xLjQKJcfsj6IKNSAwIG9iago"
	fs := r40gTextFakes(t)
	g := start(t, clientsCfg, fs)
	doors := []doorBody{
		{"/v1/chat/completions", `{"model":"%s","messages":[{"role":"user","content":[{"type":"file","file":{"filename":"draconomicon.pdf","file_data":"data:application/pdf;base64,` + pdf + `"}},{"type":"text","text":"What is the first dragon in the book?"}]}]}`},
		{"/v1/responses", `{"model":"%s","input":[{"role":"user","content":[{"type":"input_file","filename":"draconomicon.pdf","file_data":"data:application/pdf;base64,` + pdf + `"},{"type":"input_text","text":"What is the first dragon in the book?"}]}]}`},
		{"/v1/messages", `{"model":"%s","max_tokens":1024,"messages":[{"role":"user","content":[{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"` + pdf + `"},"title":"draconomicon.pdf"},{"type":"text","text":"What is the first dragon in the book?"}]}]}`},
	}
	want := map[string][]string{
		"openai":    {`"type":"file"`, `"file_data":"data:application/pdf;base64,` + pdf + `"`},
		"anthropic": {`"type":"document"`, `"media_type":"application/pdf"`, `"data":"` + pdf + `"`},
		"gemini":    {`"mimeType":"application/pdf"`, `"data":"` + pdf + `"`},
	}
	throughEveryRoute(t, g, fs, doors, func(path, route, upstream, sent string) {
		for _, w := range want[upstream] {
			if !strings.Contains(sent, w) {
				t.Errorf("%s %s: the upstream's body lacks %s: %.300s", path, route, w, sent)
			}
		}
	})
	audio := `{"model":"via-gem","messages":[{"role":"user","content":[{"type":"text","text":"What is in this recording?"},{"type":"input_audio","input_audio":{"data":"UklGRiQAAABXQVZF","format":"wav"}}]}]}`
	r := g.raw(t, http.MethodPost, "/v1/chat/completions", audio, "Authorization", "Bearer client-key")
	if r.Status != http.StatusOK {
		t.Fatalf("audio to Gemini: %d %s", r.Status, r.Body)
	}
	reqs := fs["gemini"].Requests()
	if b := string(reqs[len(reqs)-1].Body); !strings.Contains(b, `"inlineData":{"mimeType":"audio/wav","data":"UklGRiQAAABXQVZF"}`) {
		t.Errorf("audio to Gemini: %s", b)
	}
}

// A tool that returned a PDF (the AI SDK's OpenAI and Anthropic providers,
// pydantic-ai: an input_file in a function_call_output, a document in a
// tool_result), and a plain-text document (the AI SDK's Anthropic provider
// sends every text file so), reach every vendor: the tool's PDF follows the
// tool's result as a user's PDF does, the text document is text. Before
// (review 48c) each was a 400 at every later turn of the session.
func TestToolPDFAndTextDocumentReachEveryVendor(t *testing.T) {
	const pdf = "JVBERi0xLjQKJcfsj6IKNSAwIG9iago"
	fs := r40gTextFakes(t)
	g := start(t, clientsCfg, fs)
	doors := []doorBody{
		{"/v1/responses", `{"model":"%s","input":[{"role":"user","content":"Fetch invoice 7."},{"type":"function_call","call_id":"c1","name":"fetch","arguments":"{}"},
			{"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"INV-7"},{"type":"input_file","filename":"INV-7.pdf","file_data":"data:application/pdf;base64,` + pdf + `"}]}],
			"tools":[{"type":"function","name":"fetch","parameters":{"type":"object","properties":{}}}]}`},
		{"/v1/messages", `{"model":"%s","max_tokens":1024,"messages":[{"role":"user","content":[{"type":"text","text":"Fetch invoice 7."}]},
			{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"fetch","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"INV-7"},{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"` + pdf + `"}}]},
			 {"type":"document","source":{"type":"text","media_type":"text/plain","data":"Pay by Friday."},"title":"notes.txt"}]}],
			"tools":[{"name":"fetch","input_schema":{"type":"object","properties":{}}}]}`},
	}
	throughEveryRoute(t, g, fs, doors, func(path, route, _, sent string) {
		if !strings.Contains(sent, pdf) {
			t.Errorf("%s %s: the tool's PDF was not sent: %.400s", path, route, sent)
		}
		if path == "/v1/messages" && !strings.Contains(sent, "Pay by Friday.") {
			t.Errorf("%s %s: the text document was not sent: %.400s", path, route, sent)
		}
	})
}
