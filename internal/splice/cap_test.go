package splice

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// A cut knows a lower bound of the completion tokens already delivered:
// one per content delta of choice 0 (every streamed delta carries at least
// one token), or more when an upstream reported more.
func TestCutTokens(t *testing.T) {
	var s Seam
	for _, b := range [][]byte{ck("A", `{"role":"assistant","content":""}`), content("A", "Hello"), content("A", ", wor"), ck("A", `{"content":null}`)} {
		if _, err := s.Chunk(b); err != nil {
			t.Fatal(err)
		}
	}
	if c := s.Cut(); c.Tokens != 2 {
		t.Errorf("Cut.Tokens = %d after two content deltas, want 2", c.Tokens)
	}
	s.Report(&provider.Usage{PromptTokens: 9, CompletionTokens: 5})
	if c := s.Cut(); c.Tokens != 5 {
		t.Errorf("Cut.Tokens = %d after the upstream reported 5, want 5", c.Tokens)
	}
	// A continuation adds its own deltas; a replay's held-back chunks never
	// reach the Seam, so they are not counted twice.
	s.Next()
	s.Report(&provider.Usage{CompletionTokens: 1})
	for _, b := range [][]byte{content("B", "ld"), content("B", "!")} {
		if _, err := s.Chunk(b); err != nil {
			t.Fatal(err)
		}
	}
	if c := s.Cut(); c.Tokens != 5 {
		t.Errorf("Cut.Tokens = %d, want max(4 deltas, 5 reported) = 5", c.Tokens)
	}
	if _, err := s.Chunk(content("B", " And more")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Chunk(content("B", ".")); err != nil {
		t.Fatal(err)
	}
	if c := s.Cut(); c.Tokens != 6 {
		t.Errorf("Cut.Tokens = %d after 6 content deltas, want 6", c.Tokens)
	}
}

func TestLowerCap(t *testing.T) {
	cases := []struct {
		name string
		body string
		used int
		want map[string]any // members after; nil = body unchanged
		err  bool
	}{
		{"max_tokens", `{"model":"m","max_tokens":100,"messages":[]}`, 40, map[string]any{"max_tokens": 60.0}, false},
		{"max_completion_tokens", `{"max_completion_tokens":100,"messages":[]}`, 1, map[string]any{"max_completion_tokens": 99.0}, false},
		{"both", `{"max_tokens":50,"max_completion_tokens":80,"messages":[]}`, 30, map[string]any{"max_tokens": 20.0, "max_completion_tokens": 50.0}, false},
		{"integral float", `{"max_tokens":100.0,"messages":[]}`, 10, map[string]any{"max_tokens": 90.0}, false},
		{"no cap", `{"model":"m","messages":[]}`, 40, nil, false},
		{"null cap", `{"max_tokens":null,"messages":[]}`, 40, nil, false},
		{"nothing used", `{"max_tokens":10,"messages":[]}`, 0, nil, false},
		{"not a number: the upstream judges it", `{"max_tokens":"ten","messages":[]}`, 3, nil, false},
		{"spent exactly", `{"max_tokens":40,"messages":[]}`, 40, nil, true},
		{"spent, other field left", `{"max_tokens":400,"max_completion_tokens":40,"messages":[]}`, 41, nil, true},
		{"not an object", `[1]`, 3, nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := LowerCap([]byte(tc.body), tc.used)
			if tc.err {
				if err == nil {
					t.Fatalf("LowerCap = %s, want an error", out)
				}
				if tc.body != "[1]" && !errors.Is(err, ErrCapSpent) {
					t.Errorf("error %v, want ErrCapSpent", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == nil {
				if string(out) != tc.body {
					t.Errorf("LowerCap = %s, want the body unchanged", out)
				}
				return
			}
			var got map[string]any
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("%s = %v, want %v (%s)", k, got[k], v, out)
				}
			}
			if _, ok := got["messages"]; !ok {
				t.Errorf("members lost: %s", out)
			}
		})
	}
}
