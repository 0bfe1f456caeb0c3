package server_test

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/gatewaytest"
)

// benchBody is a chat request of about size bytes: a system message and
// user turns of ~1 KiB each, as a long conversation grows.
func benchBody(model string, size int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"model":"` + model + `","temperature":0.2,"messages":[{"role":"system","content":"You are terse."}`)
	turn := strings.Repeat("the quick brown fox jumps over the lazy dog \\\"quoted\\\" é ", 16)
	for i := 0; b.Len() < size-len(turn)-64; i++ {
		fmt.Fprintf(&b, `,{"role":"user","content":"%d %s"}`, i, turn)
	}
	b.WriteString(`],"stream":false}`)
	return b.Bytes()
}

// BenchmarkFront measures what the HTTP front does with a chat request
// before any routing: read the body, check it, find model, stream and
// messages. The model is unknown, so the answer is the 404 written right
// after the checks and no upstream is involved.
func BenchmarkFront(b *testing.B) {
	cfg := gatewaytest.Config(b, `
providers:
  - {name: p, dialect: openai, base_url: "http://127.0.0.1:9", api_key: k}
targets:
  - {name: a, model: m, providers: [p]}
`)
	a, err := app.New(cfg, app.Options{Decisions: decision.Discard, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { a.Close(b.Context()) })
	for _, sz := range []struct {
		name string
		size int
	}{{"2KiB", 2 << 10}, {"64KiB", 64 << 10}, {"8MiB", 8<<20 - 1<<10}} {
		body := benchBody("unknown", sz.size)
		b.Run(sz.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			r := bytes.NewReader(body)
			for b.Loop() {
				r.Reset(body)
				req := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", r)
				req.Header.Set("Content-Type", "application/json")
				w := httptest.NewRecorder()
				a.Server.ServeHTTP(w, req)
				if w.Code != http.StatusNotFound {
					b.Fatalf("status %d: %s", w.Code, w.Body)
				}
			}
		})
	}
}
