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

// Review 63n. A key written with \u escapes (Gson writes '=' as \u003d,
// Go's encoder '&' as \u0026) is found across the cut as the message's
// reader decodes it; the room made for the mark never cuts through a
// whole secret just before it (a key written twice; the client's own
// configured key beside the provider's).
func TestCutFindsEscapedKeysAndLeavesRoomSafely(t *testing.T) {
	const key = "Qm7Zt2Lw9Xc4Vb8Nk3Jh6Gf1Ds5Ap0Ry+ab=="
	const sas = "sv=2024&ss=b&srt=sco&sp=rl&sig=Zq9Xk3Lm7Nb2Vc5Ht8Gf4Ds6Aw1Pe0Ry"
	const client = "client-key-Zx8Wv5Ut2Sr9Qp6On3Ml0Kj"
	s := New(Rules{Secrets: []string{key, sas, client}})
	for _, k := range []string{strings.ReplaceAll(key, "=", `\u003d`), strings.ReplaceAll(sas, "&", `\u0026`)} {
		for at := 1; at < len(k); at++ {
			text := []byte(strings.Repeat("x", 200-at) + k + " tail")
			if got := string(s.Cut(text, 200)); strings.Contains(got, k[:min(at, 9)]) && at >= 9 || !strings.HasSuffix(got, Redacted) {
				t.Fatalf("cut %d bytes into %q: %q", at, k, got)
			}
		}
	}
	for _, first := range []string{key, client} {
		for gap := 0; gap <= len(Redacted); gap++ {
			// A whole secret ending gap bytes before a second one that
			// crosses the cut.
			text := []byte(strings.Repeat("x", 100) + first + strings.Repeat(" ", gap) + key + " tail")
			at := 100 + len(first) + gap + 5
			got := string(s.Cut(text, at))
			// A whole secret may stay (the scrubbing after the cut hides
			// it whole); a fragment may not.
			rest := strings.ReplaceAll(strings.ReplaceAll(got, key, ""), client, "")
			if strings.Contains(rest, first[:9]) || strings.Contains(rest, key[:9]) || len(got) > at {
				t.Fatalf("%q then %d blanks then the key, cut %d: %q", first, gap, at, got)
			}
		}
	}
}

// Review 63q: the window around the cut never starts inside an escape. A
// run of escaped backslashes (\\) right before a key whose first byte is
// written \u0051 made the window pair them wrongly at every other offset,
// and the key was not found.
func TestCutWindowStartsOutsideAnEscape(t *testing.T) {
	const key = "Qm7Zt2Lw9Xc4Vb8Nk3Jh6Gf1Ds5Ap0Ry"
	s := New(Rules{Secrets: []string{key}})
	run := strings.Repeat(`\\`, 150)
	esc := `\u0051` + key[1:]
	for off := 1; off < len(esc); off++ {
		text := []byte("x" + run + esc + " tail")
		got := string(s.Cut(text, 1+len(run)+off))
		if !strings.HasSuffix(got, Redacted) {
			t.Fatalf("cut %d bytes into the escaped key: %q", off, got[max(0, len(got)-40):])
		}
	}
}
