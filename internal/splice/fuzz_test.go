package splice

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/detour-llm/detour/classify"
)

// pieces splits s at rune boundaries into pieces of about n runes (a chunk's
// content is a JSON string: it never splits a rune).
func pieces(s string, n uint8) []string {
	size := int(n%7) + 1
	var out []string
	for s != "" {
		i, k := 0, 0
		for i < len(s) && k < size {
			_, w := utf8.DecodeRuneInString(s[i:])
			i += w
			k++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

// runeCut is the byte offset of the k-th rune boundary of s (clamped).
func runeCut(s string, k uint8) int {
	i := 0
	for n := 0; n < int(k) && i < len(s); n++ {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return i
}

// feedFirst streams the first upstream's text, cut after cut runes, into s
// and c.
func feedFirst(t *testing.T, s *Seam, c *client, first string, cut, split uint8) {
	t.Helper()
	out, err := s.Chunk(ck("A", `{"role":"assistant","content":""}`))
	if err != nil {
		t.Fatal(err)
	}
	c.read(t, out)
	for _, p := range pieces(first[:runeCut(first, cut)], split) {
		out, err := s.Chunk(content("A", p))
		if err != nil {
			t.Fatal(err)
		}
		c.read(t, out)
	}
}

// FuzzSeamReplay: a stream cut anywhere, replayed by a second stream split
// anywhere. The client's text is the delivered text followed by exactly
// what the replay adds after it, or — when the replay does not reproduce the
// delivered text — the delivered text alone and a divergence. Nothing is
// ever sent twice or spliced.
func FuzzSeamReplay(f *testing.F) {
	f.Add("Hello, world!", "Hello, world! Bye.", uint8(5), uint8(2), uint8(3))
	f.Add("naïve café", "naïve café ☕", uint8(7), uint8(1), uint8(4))
	f.Add("Hello.", "Hello!", uint8(6), uint8(3), uint8(1))
	f.Add("", "abc", uint8(0), uint8(0), uint8(0))
	f.Fuzz(func(t *testing.T, first, second string, cut, split1, split2 uint8) {
		first, second = strings.ToValidUTF8(first, "\uFFFD"), strings.ToValidUTF8(second, "\uFFFD")
		var s Seam
		var c client
		feedFirst(t, &s, &c, first, cut, split1)
		delivered := s.Cut().Text
		if c.text.String() != delivered {
			t.Fatalf("client has %q, seam says %q", c.text.String(), delivered)
		}
		r := NewReplay(delivered)
		s.Next()
		diverged := false
		for i, p := range append([]string{""}, pieces(second, split2)...) {
			b := content("B", p)
			if i == 0 {
				b = ck("B", `{"role":"assistant","content":""}`)
			}
			out, err := r.Chunk(b)
			if errors.Is(err, ErrDiverged) {
				diverged = true
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if out == nil {
				continue
			}
			out, err = s.Chunk(out)
			if err != nil {
				t.Fatal(err)
			}
			c.read(t, out)
		}
		got := c.text.String()
		switch {
		case strings.HasPrefix(second, delivered):
			if diverged || got != second {
				t.Fatalf("replay reproduced %q: client got %q (diverged %v), want %q", delivered, got, diverged, second)
			}
		case len(second) < len(delivered) && strings.HasPrefix(delivered, second):
			if diverged || got != delivered || r.Matched() {
				t.Fatalf("short replay: client got %q (diverged %v)", got, diverged)
			}
		default:
			if !diverged || got != delivered {
				t.Fatalf("diverging replay: client got %q (diverged %v), want %q", got, diverged, delivered)
			}
		}
		if c.roles != 1 || len(c.ids) != 1 {
			t.Fatalf("%d roles, ids %v", c.roles, c.ids)
		}
	})
}

// FuzzSeamPrefill: a prefill continuation adds to the delivered text what
// the model wrote, less at most the whitespace the prefill dropped.
func FuzzSeamPrefill(f *testing.F) {
	f.Add("Hello, ", " world", uint8(7), uint8(2), uint8(3))
	f.Add("Title\n\n", "\n\nBody", uint8(9), uint8(1), uint8(1))
	f.Add("日本\u3000", "\u3000語", uint8(3), uint8(1), uint8(1))
	f.Fuzz(func(t *testing.T, first, cont string, cut, split1, split2 uint8) {
		first, cont = strings.ToValidUTF8(first, "\uFFFD"), strings.ToValidUTF8(cont, "\uFFFD")
		var s Seam
		var c client
		feedFirst(t, &s, &c, first, cut, split1)
		cutAt := s.Cut()
		_, j, err := Prefill([]byte(`{"messages":[{"role":"user","content":"x"}]}`), cutAt.Text, classify.Anthropic)
		if cutAt.Mode(true) != ByPrefill {
			if err == nil {
				t.Fatalf("Mode says %v for %q but Prefill built a request", cutAt.Mode(true), cutAt.Text)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		s.Next()
		for _, p := range pieces(cont, split2) {
			jb, err := j.Chunk(content("B", p))
			if err != nil {
				t.Fatal(err)
			}
			out, err := s.Chunk(jb)
			if err != nil {
				t.Fatal(err)
			}
			c.read(t, out)
		}
		got := c.text.String()
		if !strings.HasPrefix(got, cutAt.Text) {
			t.Fatalf("client text %q lost the delivered %q", got, cutAt.Text)
		}
		added := got[len(cutAt.Text):]
		dropped := cutAt.Text[len(strings.TrimRight(cutAt.Text, " \t\r\n\v\f\u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")):]
		if !strings.HasSuffix(cont, added) || !strings.HasPrefix(dropped, cont[:len(cont)-len(added)]) {
			t.Fatalf("continuation %q became %q (dropped whitespace %q)", cont, added, dropped)
		}
	})
}

// FuzzChunkBytes: whatever an upstream sends, Join or Replay followed by the
// Seam (as the caller chains them) returns an error or a chunk that is valid
// JSON; nothing panics. (Join and Replay pass chunks they need not read
// through unread: the Seam is the check.)
func FuzzChunkBytes(f *testing.F) {
	f.Add([]byte(`{"id":"A","choices":[{"index":0,"delta":{"role":"assistant","content":"He"}}],"usage":null}`), " ")
	f.Add([]byte(`{"choices":[],"usage":{"prompt_tokens":1}}`), "")
	f.Add([]byte(`{"choices":[{"delta":null,"finish_reason":"stop"}]}`), "x")
	f.Fuzz(func(t *testing.T, b []byte, ws string) {
		s := &Seam{}
		_, _ = s.Chunk(content("A", "Hello"+ws))
		s.Next()
		_, j, _ := Prefill([]byte(`{"messages":[{"role":"user","content":"x"}]}`), "Hello"+ws, classify.OpenAI)
		if j == nil {
			j = &Join{}
		}
		for _, step := range []func([]byte) ([]byte, error){j.Chunk, NewReplay("He").Chunk, NewReplay("").Chunk} {
			out, err := step(b)
			if err != nil || out == nil {
				continue
			}
			out, err = s.Chunk(out)
			if err == nil && out != nil && !json.Valid(out) {
				t.Fatalf("invalid JSON out of %q: %q", b, out)
			}
		}
		_ = s.Cut()
		_, _ = s.Usage()
		_ = PrefillRefused(400, b)
	})
}
