package gemini

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// TestPDFAndAudioPartsAreInlineData: OpenAI's PDF input in Chat
// Completions (a file part whose file_data is a base64 data: URL: the PDF
// files guide, platform.openai.com/docs/guides/pdf-files) and its audio
// input (an input_audio part, base64 data with format wav or mp3: the
// audio guide, platform.openai.com/docs/guides/audio) are Gemini's inline
// data, as Gemini reads documents and audio (ai.google.dev/gemini-api/docs/document-processing,
// …/docs/audio: inline_data with mime_type application/pdf, audio/wav,
// audio/mp3). A file by id, another media type, an unknown audio format
// or either part in a model turn does not translate (docs/doors.md,
// "Chat Completions to Claude and Gemini targets"). Before round 48 both
// parts were refused.
func TestPDFAndAudioPartsAreInlineData(t *testing.T) {
	in := `{"model":"m","messages":[{"role":"user","content":[{"type":"file","file":{"filename":"draconomicon.pdf","file_data":"data:application/pdf;base64,JVBERi0xLjQK"}},{"type":"input_audio","input_audio":{"data":"SUQzBAA=","format":"mp3"}},{"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}},{"type":"text","text":"Summarise both."}]}]}`
	out, err := Translate(adaptertest.ClientRequest(t, []byte(in)))
	if err != nil {
		t.Fatal(err)
	}
	adaptertest.SameJSON(t, out, []byte(`{"contents":[{"role":"user","parts":[
		{"inlineData":{"mimeType":"application/pdf","data":"JVBERi0xLjQK"}},
		{"inlineData":{"mimeType":"audio/mp3","data":"SUQzBAA="}},
		{"inlineData":{"mimeType":"audio/wav","data":"UklGRg=="}},
		{"text":"Summarise both."}]}]}`))
	for name, part := range map[string]string{
		"by id":        `{"role":"user","content":[{"type":"file","file":{"file_id":"file-6F2ksmvXxt4VdoqmHRw6kL"}}]}`,
		"not a pdf":    `{"role":"user","content":[{"type":"file","file":{"filename":"a.zip","file_data":"data:application/zip;base64,UEsDBA=="}}]}`,
		"not text":     `{"role":"user","content":[{"type":"file","file":{"filename":"a.txt","file_data":"data:text/plain;base64,//79"}}]}`,
		"audio format": `{"role":"user","content":[{"type":"input_audio","input_audio":{"data":"AAAA","format":"flac"}}]}`,
		"no audio":     `{"role":"user","content":[{"type":"input_audio"}]}`,
		"model turn":   `{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"file","file":{"file_data":"data:application/pdf;base64,JVBERi0xLjQK"}}]}`,
	} {
		if _, err := Translate(adaptertest.ClientRequest(t, []byte(`{"model":"m","messages":[`+part+`]}`))); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

// A text file is sent as plain-text inline data, which Gemini reads as
// text (probe 52b).
func TestTextFilePartIsPlainText(t *testing.T) {
	out, err := Translate(adaptertest.ClientRequest(t, []byte(`{"model":"m","messages":[{"role":"user","content":[`+
		`{"type":"file","file":{"filename":"notes.md","file_data":"data:text/markdown;base64,IyBOb3Rlcwo="}}]}]}`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `{"inlineData":{"mimeType":"text/plain","data":"IyBOb3Rlcwo="}}`) {
		t.Errorf("sent %s", out)
	}
}
