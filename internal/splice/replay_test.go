package splice

import (
	"errors"
	"strings"
	"testing"
)

func TestReplay(t *testing.T) {
	cases := []struct {
		name      string
		delivered string
		chunks    []string // content of successive replacement chunks
		finishAt  int      // index of the chunk that also carries finish_reason; -1 none
		want      string   // text passed on
		diverged  int      // index of the chunk that reports divergence; -1 none
	}{
		{"matches then continues", "Hello, wor", []string{"Hello, wor", "ld", "!"}, -1, "ld!", -1},
		{"boundary mid-chunk", "Hello, wor", []string{"Hel", "lo, wo", "rld", "!"}, -1, "ld!", -1},
		{"boundary at a chunk's end", "Hello", []string{"He", "llo", " there"}, -1, " there", -1},
		{"boundary and finish in one chunk", "Hello", []string{"Hello."}, 0, ".", -1},
		{"everything in one chunk", "ab", []string{"abcdef"}, -1, "cdef", -1},
		{"multibyte at the boundary", "naïve ca", []string{"naï", "ve caf", "é ☕"}, -1, "fé ☕", -1},
		{"multibyte right after the boundary", "naïve caf", []string{"naïve ca", "fé ☕"}, -1, "é ☕", -1},
		{"delivered ends in a multibyte rune", "café", []string{"caf", "é!"}, -1, "!", -1},
		{"multibyte split across the boundary chunk", "日本", []string{"日", "本語"}, -1, "語", -1},
		{"diverges at the last char", "Hello.", []string{"Hello", "!", " more"}, -1, "", 1},
		{"diverges at the last char, same chunk", "Hello.", []string{"Hello! more"}, -1, "", 0},
		{"diverges at the first char", "Hello", []string{"Hi"}, -1, "", 0},
		{"whitespace differs: exact means diverged", "Hello  world", []string{"Hello world"}, -1, "", 0},
		{"finishes before reproducing", "Hello, world", []string{"Hello"}, 0, "", 0},
		{"finishes with nothing more", "Hello", []string{"Hello"}, 0, "", -1},
		{"nothing delivered passes everything", "", []string{"a", "b"}, -1, "ab", -1},
		{"empty chunks while holding back", "ab", []string{"", "a", "", "bc"}, -1, "c", -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReplay(tc.delivered)
			var got strings.Builder
			diverged := -1
			for i, s := range tc.chunks {
				b := content("R", s)
				if i == tc.finishAt {
					b = []byte(strings.Replace(string(b), `"finish_reason":null`, `"finish_reason":"stop"`, 1))
				}
				out, err := r.Chunk(b)
				if errors.Is(err, ErrDiverged) {
					if diverged < 0 {
						diverged = i
					}
					if out != nil {
						t.Errorf("diverged chunk %d passed %s", i, out)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				var c client
				c.read(t, out)
				got.WriteString(c.text.String())
			}
			if got.String() != tc.want || diverged != tc.diverged {
				t.Errorf("passed %q, diverged at %d; want %q, %d", got.String(), diverged, tc.want, tc.diverged)
			}
			if tc.diverged >= 0 {
				if _, err := r.Chunk(content("R", "late")); !errors.Is(err, ErrDiverged) {
					t.Errorf("after divergence: %v, want ErrDiverged again", err)
				}
			}
		})
	}
}

func TestReplayDivergesOnToolCallOrOtherChoice(t *testing.T) {
	for name, b := range map[string][]byte{
		"tool call": ck("R", `{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"f","arguments":""}}]}`),
		"choice 1":  []byte(`{"id":"R","choices":[{"index":1,"delta":{"content":"He"}}]}`),
	} {
		r := NewReplay("Hello")
		if _, err := r.Chunk(b); !errors.Is(err, ErrDiverged) {
			t.Errorf("%s while holding back: %v, want ErrDiverged", name, err)
		}
	}
}

func TestReplayKeepsUsageWhileHoldingBack(t *testing.T) {
	r := NewReplay("Hello, world")
	b := []byte(`{"id":"R","choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":null}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`)
	out, err := r.Chunk(b)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"choices":[]`) || !strings.Contains(string(out), `"completion_tokens":1`) || strings.Contains(string(out), "Hello") {
		t.Errorf("held-back chunk with usage = %s, want usage only", out)
	}
	if r.Matched() {
		t.Error("Matched before the text was reproduced")
	}
}

// TestReplayThroughSeam is the whole replay path: a stream cut mid-word,
// replayed by another upstream, assembled by the client as one answer.
func TestReplayThroughSeam(t *testing.T) {
	var s Seam
	var c client
	send := func(b []byte) {
		t.Helper()
		out, err := s.Chunk(b)
		if err != nil {
			t.Fatal(err)
		}
		c.read(t, out)
	}
	send(ck("A", `{"role":"assistant","content":""}`))
	send(content("A", "The answer is "))
	send(content("A", "forty-t"))
	cut := s.Cut()
	if cut.Mode(false) != ByReplay {
		t.Fatalf("mode = %v", cut.Mode(false))
	}
	r := NewReplay(cut.Text)
	s.Next()
	for _, b := range [][]byte{
		ck("B", `{"role":"assistant","content":""}`),
		content("B", "The answer"), content("B", " is forty"), content("B", "-two."),
		[]byte(`{"id":"B","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`),
	} {
		out, err := r.Chunk(b)
		if err != nil {
			t.Fatal(err)
		}
		if out != nil {
			send(out)
		}
	}
	if c.text.String() != "The answer is forty-two." || c.roles != 1 || len(c.ids) != 1 || len(c.finish) != 1 {
		t.Errorf("client got %q, %d roles, ids %v, finish %v", c.text.String(), c.roles, c.ids, c.finish)
	}
}
