package dispatch

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/anthropic"
	"github.com/detour-llm/detour/internal/provider/gemini"
)

// Since 62d6c3c a text file part (file_data "data:text/plain;base64,…") is
// sent to Gemini as inlineData text/plain ("Gemini will see them as normal
// text") and bills as text, about a token per 4 bytes. The input estimate,
// which reads the body sent upstream and is charged to a client's limits
// when no usage arrives (a whole answer the client left before it came, a
// stream left before its count, a timeout after sending), still counts the
// file's base64 as one image, 1,600 tokens, whatever its length: 400 KB of
// text, ~100,000 tokens billed, estimated 1,614 (the same under-count
// hostile 52 fixed for a long base64 run in a message's text). At an
// OpenAI target the file goes as the client sent it, also estimated 1,617.
// At a Claude target the sent body holds the decoded text and the estimate
// is right (the control).
func TestTextFileIsEstimatedAsItsText(t *testing.T) {
	text := strings.Repeat("The quarterly numbers, line by line. ", 11000) // ~400 KB: ~100,000 tokens at 4 bytes a token
	asText := []byte(`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"` + text + `"}]}]}`)
	asFile := []byte(`{"model":"m","messages":[{"role":"user","content":[{"type":"file","file":{"filename":"report.txt","file_data":"data:text/plain;base64,` +
		base64.StdEncoding.EncodeToString([]byte(text)) + `"}}]}]}`)
	plain := inputEstimate(asText)
	toClaude, err := anthropic.Translate(&provider.Request{Body: asFile}, "claude-sonnet-4-5")
	if err != nil {
		t.Fatal(err)
	}
	toGemini, err := gemini.Translate(&provider.Request{Body: asFile})
	if err != nil {
		t.Fatal(err)
	}
	// The estimate reads the body sent upstream (usage.go: inputEstimate(sent)).
	for name, sent := range map[string][]byte{"openai (the file as the client sent it)": asFile, "gemini (inlineData text/plain)": toGemini, "anthropic (control: a text document)": toClaude} {
		file := inputEstimate(sent)
		t.Logf("%d bytes of text: %d tokens as a text part; as a text file sent to %s: %d", len(text), plain, name, file)
		if file < plain/2 {
			t.Errorf("%s: a %d-byte text file is estimated at %d input tokens; the same text as a text part at %d (the provider reads both as text)", name, len(text), file, plain)
		}
	}
}
