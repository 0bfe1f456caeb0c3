package redact

import (
	"strings"
	"testing"
)

// Cutting text for a client never cuts through a secret the text holds
// whole: the secret is replaced from where it begins, as written or with
// its '/' escaped (\/), wherever the cut falls in it (reviews 63f, 63j).
// Text without a secret across the cut is cut as asked.
func TestCutNeverCutsThroughASecret(t *testing.T) {
	const key = "Qm7Zt2Lw9Xc4Vb8Nk3Jh6Gf1Ds5Ap0Ry"
	const slashed = "ab/cd/ef/gh/ij/kl/mn/op/qr/st/uv/wx"
	s := New(Rules{Secrets: []string{key, slashed}})
	for _, k := range []string{key, strings.ReplaceAll(slashed, "/", `\/`)} {
		for at := 1; at < len(k); at++ {
			pad := strings.Repeat("x", 100-at)
			text := []byte(pad + k + " and more")
			got := string(s.Cut(text, 100))
			if want := pad[:min(len(pad), 100-len(Redacted))] + Redacted; got != want || len(got) > 100 {
				t.Fatalf("cut %d bytes into %q: %q, want %q within the cut", at, k, got, want)
			}
		}
	}
	text := []byte(strings.Repeat("y", 200))
	if got := s.Cut(text, 100); string(got) != strings.Repeat("y", 100) {
		t.Errorf("no secret: %q", got)
	}
	if got := s.Cut([]byte("short"), 100); string(got) != "short" {
		t.Errorf("shorter than the cut: %q", got)
	}
	// The secret ending exactly at the cut is whole: nothing to hide here
	// (the scrubbing after the cut hides it).
	if got := string(s.Cut([]byte("xx"+key+"yy"), 2+len(key))); got != "xx"+key {
		t.Errorf("a secret ending at the cut: %q", got)
	}
	var nilScrubber *Scrubber
	if got := nilScrubber.Cut([]byte("abcdef"), 3); string(got) != "abc" {
		t.Errorf("nil scrubber: %q", got)
	}
}
