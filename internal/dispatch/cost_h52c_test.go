package dispatch

import (
	"encoding/base64"
	"runtime"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/anthropic"
	"github.com/detour-llm/detour/internal/provider/gemini"
)

// A text file part (62d6c3c: decoded from its base64 and sent to Claude as
// a plain-text document) is text that encoding/json writes longer than it
// came, yet TranslationCost reads only its base64, which grows by nothing:
// a file of control characters (valid UTF-8, each written \u0001, six
// bytes for one, 8 for every 4/3 base64 byte … 4.5 bytes of JSON per body
// byte) allocates past the reservation the attempt holds
// (docs/config.md, max_inflight_body_bytes: "Translations are counted
// too"; the shapes of TestTranslationCostBoundsTheTranslation).
func TestTextFileTranslationFitsItsReservation(t *testing.T) {
	const n = 1 << 20
	shapes := map[string]string{
		"control characters": strings.Repeat("\x01", n*3/4),
		"quotes":             strings.Repeat(`"\`, n*3/8),
		"line separators":    strings.Repeat("\u2028", n/4),
	}
	for name, text := range shapes {
		data := base64.StdEncoding.EncodeToString([]byte(text))
		body := []byte(`{"model":"m","messages":[{"role":"user","content":[{"type":"file","file":{"filename":"notes.txt","file_data":"data:text/plain;base64,` + data + `"}}]}]}`)
		for d, tr := range map[string]func(b []byte) ([]byte, error){
			"anthropic": func(b []byte) ([]byte, error) {
				return anthropic.Translate(&provider.Request{Body: b}, "claude-sonnet-4-5")
			},
			"gemini": func(b []byte) ([]byte, error) {
				out, err := gemini.Translate(&provider.Request{Body: b})
				return out, err
			},
		} {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.GC()
			runtime.ReadMemStats(&before)
			out, err := tr(body)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatalf("%s %s: %v", d, name, err)
			}
			used, cost := int64(after.TotalAlloc-before.TotalAlloc), TranslationCost(body)
			t.Logf("%-9s %-18s body %d, sent %d (%.1f×), allocated %.1f×, reserved %.1f×", d, name, len(body), len(out), float64(len(out))/float64(len(body)), float64(used)/float64(len(body)), float64(cost)/float64(len(body)))
			if used > cost {
				t.Errorf("%s, %s: translating a %d-byte body with a text file allocated %d, the reservation is %d", d, name, len(body), used, cost)
			}
		}
	}
}
