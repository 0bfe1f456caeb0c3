package dispatch

import (
	"strings"
	"testing"
)

// Hostile 52, after ed3cde4: "data" is taken for inline bytes, but
// Anthropic's plain-text document source carries the document's TEXT
// under "data" ({"type":"document","source":{"type":"text",
// "media_type":"text/plain","data":"The grass is green. …"}}, Anthropic's
// citations guide). A plain-text document that is one long run of base64
// characters (a base64 payload, a hash list, a minified token stream) is
// still one image, 1,600 tokens, at the Messages door; Anthropic bills it
// as text.
func TestH52PlainTextDocumentIsText(t *testing.T) {
	var b strings.Builder
	const alnum = "QWERTYUIOPASDFGHJKLZXCVBNMqwertyuiopasdfghjklzxcvbnm0123456789"
	for i := 0; b.Len() < 400_000; i++ {
		b.WriteByte(alnum[(i*7919+i/13)%len(alnum)])
	}
	req := []byte(`{"model":"m","max_tokens":100,"stream":true,"messages":[{"role":"user","content":[` +
		`{"type":"document","source":{"type":"text","media_type":"text/plain","data":"` + b.String() + `"},"title":"payload"},` +
		`{"type":"text","text":"Decode the document and summarise it."}]}]}`)
	if got, want := inputEstimate(req), 400_000/bytesPerToken; got < want {
		t.Errorf("input estimate of a 400,000-character plain-text document (source type text): %d tokens, want at least %d", got, want)
	}
}
