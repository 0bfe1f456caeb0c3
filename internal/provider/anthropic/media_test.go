package anthropic

import (
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// TestPDFFilePartIsADocument: OpenAI's PDF input in Chat Completions, a
// file part whose file_data is a base64 data: URL (the PDF files guide,
// platform.openai.com/docs/guides/pdf-files: {"type":"file","file":
// {"filename":"draconomicon.pdf","file_data":"data:application/pdf;base64,…"}};
// what the AI SDK's OpenAI chat provider sends for a PDF), is Claude's
// base64 document block (PDF support, docs.claude.com/en/docs/build-with-claude/pdf-support),
// titled with the file's name and keeping its cache mark. A file by id,
// another media type or a file part in an assistant turn does not
// translate (docs/doors.md, "Chat Completions to Claude and Gemini
// targets"). Before round 48 every file part was refused.
func TestPDFFilePartIsADocument(t *testing.T) {
	in := `{"model":"m","messages":[{"role":"user","content":[{"type":"file","file":{"filename":"draconomicon.pdf","file_data":"data:application/pdf;base64,JVBERi0xLjQK"},"cache_control":{"type":"ephemeral"}},{"type":"text","text":"What is the first dragon in the book?"}]}]}`
	out, err := Translate(adaptertest.ClientRequest(t, []byte(in)), "claude")
	if err != nil {
		t.Fatal(err)
	}
	adaptertest.SameJSON(t, out, []byte(`{"model":"claude","max_tokens":4096,"messages":[{"role":"user","content":[
		{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjQK"},"title":"draconomicon.pdf","cache_control":{"type":"ephemeral"}},
		{"type":"text","text":"What is the first dragon in the book?"}]}]}`))
	for name, part := range map[string]string{
		"by id":      `{"role":"user","content":[{"type":"file","file":{"file_id":"file-6F2ksmvXxt4VdoqmHRw6kL"}}]}`,
		"not a pdf":  `{"role":"user","content":[{"type":"file","file":{"filename":"a.zip","file_data":"data:application/zip;base64,UEsDBA=="}}]}`,
		"not text":   `{"role":"user","content":[{"type":"file","file":{"filename":"a.txt","file_data":"data:text/plain;base64,//79"}}]}`,
		"utf-16":     `{"role":"user","content":[{"type":"file","file":{"filename":"a.txt","file_data":"data:text/plain;base64,aABpAA=="}}]}`,
		"no file":    `{"role":"user","content":[{"type":"file"}]}`,
		"assistant":  `{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"file","file":{"file_data":"data:application/pdf;base64,JVBERi0xLjQK"}}]}`,
		"audio":      `{"role":"user","content":[{"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}}]}`,
		"plain data": `{"role":"user","content":[{"type":"file","file":{"file_data":"JVBERi0xLjQK"}}]}`,
	} {
		if _, err := Translate(adaptertest.ClientRequest(t, []byte(`{"model":"m","messages":[`+part+`]}`)), "claude"); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

// A text file (OpenAI's Responses API takes Markdown, code, CSV, JSON as
// input_file) is Claude's plain-text document, its text decoded (probe
// 52b: only PDFs were taken, and such a request failed over or was a 400).
func TestTextFilePartIsAPlainTextDocument(t *testing.T) {
	out, err := Translate(adaptertest.ClientRequest(t, []byte(`{"model":"m","messages":[{"role":"user","content":[`+
		`{"type":"file","file":{"filename":"a.csv","file_data":"data:text/csv;base64,YSxiCg=="}},{"type":"text","text":"Sum column b."}]}]}`)), "claude")
	if err != nil {
		t.Fatal(err)
	}
	adaptertest.SameJSON(t, out, []byte(`{"model":"claude","max_tokens":4096,"messages":[{"role":"user","content":[
		{"type":"document","source":{"type":"text","media_type":"text/plain","data":"a,b\n"},"title":"a.csv"},
		{"type":"text","text":"Sum column b."}]}]}`))
}
