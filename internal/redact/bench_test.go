package redact

import (
	"strings"
	"testing"
)

// benchMessage is a 4 KiB upstream error message that carries one echoed key
// and a base URL, the rest ordinary text.
func benchMessage() string {
	var b strings.Builder
	b.WriteString(`Post "http://internal-host:8000/v1/chat/completions": the key ` + oaiKey + ` was rejected. `)
	for b.Len() < 4096 {
		b.WriteString("Your request could not be completed because the upstream returned an error; retry later. ")
	}
	return b.String()[:4096]
}

func BenchmarkString4KiB(b *testing.B) {
	s := New(testRules())
	msg := benchMessage()
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		_ = s.String(msg)
	}
}

func BenchmarkForClient4KiB(b *testing.B) {
	s := New(testRules())
	msg := benchMessage()
	sent := []byte(strings.Repeat(`{"role":"user","content":"hello there"}`, 100))
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		_ = s.ForClient(msg, sent)
	}
}

// A message with nothing to scrub: the common failure.
func BenchmarkStringClean4KiB(b *testing.B) {
	s := New(testRules())
	msg := strings.Repeat("The server had an error while processing your request. Sorry about that! ", 60)[:4096]
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		_ = s.String(msg)
	}
}
