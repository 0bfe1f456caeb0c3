package sse

import (
	"errors"
	"io"
	"math/rand"
	"strings"
	"testing"
	"time"
)

// Review 37d: the rewritten readLine against a reference reading of the
// SSE grammar (lines end at CRLF, CR or LF), over every way the bytes may
// be split across reads. These held.

type r37dEv struct{ name, data string }

// r37dRef reads s as the spec does, plus the Reader's documented extra: a
// final event without a blank line is still returned.
func r37dRef(s string) []r37dEv {
	var lines []string
	for len(s) > 0 {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i])
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i++
		}
		s = s[i+1:]
	}
	var out []r37dEv
	var name, data string
	has := false
	flush := func() {
		if has || name != "" {
			out = append(out, r37dEv{name, data})
		}
		name, data, has = "", "", false
	}
	for _, l := range lines {
		if l == "" {
			flush()
			continue
		}
		if l[0] == ':' {
			continue
		}
		f, v := l, ""
		if i := strings.IndexByte(l, ':'); i >= 0 {
			f, v = l[:i], strings.TrimPrefix(l[i+1:], " ")
		}
		switch f {
		case "data":
			if has {
				data += "\n"
			}
			data += v
			has = true
		case "event":
			name = v
		}
	}
	flush()
	return out
}

// splitReader returns its input in the pieces given.
type splitReader struct{ parts []string }

func (s *splitReader) Read(p []byte) (int, error) {
	for len(s.parts) > 0 && s.parts[0] == "" {
		s.parts = s.parts[1:]
	}
	if len(s.parts) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.parts[0])
	s.parts[0] = s.parts[0][n:]
	return n, nil
}

func TestReview37dReaderMatchesTheGrammarAcrossSplits(t *testing.T) {
	alphabet := []string{"data", "event", ":", " ", "\r", "\n", "\r\n", "x", "é", "[DONE]", "data: ", "event: e"}
	rng := rand.New(rand.NewSource(37))
	for iter := 0; iter < 20000; iter++ {
		var b strings.Builder
		for n := rng.Intn(30); n > 0; n-- {
			b.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		in := b.String()
		var parts []string
		for rest := in; len(rest) > 0; {
			k := 1 + rng.Intn(len(rest))
			if rng.Intn(3) == 0 {
				k = 1
			}
			parts = append(parts, rest[:k])
			rest = rest[k:]
		}
		r := NewReader(&splitReader{parts: parts}, 0)
		var got []r37dEv
		for {
			e, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%q: %v", in, err)
			}
			got = append(got, r37dEv{e.Name, string(e.Data)})
		}
		want := r37dRef(in)
		if len(got) != len(want) {
			t.Fatalf("%q split %q: got %q, want %q", in, parts, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%q split %q: got %q, want %q", in, parts, got, want)
			}
		}
	}
}

// An event ended by CRLF CRLF whose last LF is late is returned at its
// blank line's CR; one ended by LF LF at its second LF: neither waits for
// a byte after its end.
func TestReview37dEventReturnedAtItsEnd(t *testing.T) {
	for _, in := range []string{"data: a\r\n\r", "data: a\n\n", "data: a\r\r", "data: a\r\n\r\n"} {
		pr, pw := io.Pipe()
		go io.WriteString(pw, in)
		r := NewReader(pr, 0)
		got := make(chan error, 1)
		go func() { _, err := r.Next(); got <- err }()
		select {
		case err := <-got:
			if err != nil {
				t.Errorf("%q: %v", in, err)
			}
		case <-time.After(2 * time.Second):
			t.Errorf("%q: the event was not returned while the stream stays open", in)
		}
		pw.Close()
	}
}

// A read error after a line that ended in CR (skipLF's Peek takes it) is
// still reported, not lost or turned into EOF.
func TestReview37dErrorAfterCRIsReported(t *testing.T) {
	boom := errors.New("boom")
	r := NewReader(io.MultiReader(strings.NewReader("data: a\r"), &errReader{boom}), 0)
	_, err := r.Next()
	if !errors.Is(err, boom) {
		t.Errorf("got %v, want boom", err)
	}
}

type errReader struct{ err error }

func (e *errReader) Read([]byte) (int, error) { return 0, e.err }
