package splice

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

func TestSeamOneStream(t *testing.T) {
	var s Seam
	var c client
	feed := func(b []byte) {
		t.Helper()
		out, err := s.Chunk(b)
		if err != nil {
			t.Fatalf("Chunk(%s): %v", b, err)
		}
		c.read(t, out)
	}
	feed(ck("A", `{"role":"assistant","content":""}`))
	feed(content("A", "Hello, "))
	feed(content("A", "wor"))
	// cut; the continuation comes from another upstream, model and time
	s.Next()
	feed([]byte(`{"id":"B","object":"chat.completion.chunk","created":99,"model":"other","system_fingerprint":"fp","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`))
	feed([]byte(`{"id":"B","object":"chat.completion.chunk","created":99,"model":"other","choices":[{"index":0,"delta":{"role":"assistant","content":"ld"},"logprobs":null,"finish_reason":null}]}`))
	feed([]byte(`{"id":"B","created":99,"model":"other","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`))
	if got := c.text.String(); got != "Hello, world" {
		t.Errorf("text = %q", got)
	}
	if c.roles != 1 {
		t.Errorf("%d role deltas, want 1", c.roles)
	}
	if len(c.ids) != 1 || !c.ids["A"] {
		t.Errorf("ids = %v, want only A", c.ids)
	}
	if len(c.finish) != 1 || c.finish[0] != "stop" || !s.Finished() {
		t.Errorf("finish = %v, Finished = %v", c.finish, s.Finished())
	}
	if s.Upstreams() != 2 {
		t.Errorf("Upstreams = %d", s.Upstreams())
	}
}

func TestSeamRewritesHeadAndKeepsUnknownMembers(t *testing.T) {
	var s Seam
	first := []byte(`{"id":"A","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"x"},"finish_reason":null}]}`)
	out, err := s.Chunk(first)
	if err != nil || string(out) != string(first) {
		t.Fatalf("first chunk = %s, %v; want it unchanged", out, err)
	}
	s.Next()
	out, err = s.Chunk([]byte(`{"id":"B","object":"chat.completion.chunk","created":2,"model":"n","system_fingerprint":"fp_b","choices":[{"index":0,"delta":{"content":"y"},"logprobs":{"content":[]},"finish_reason":null}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	if v["id"] != "A" || v["created"] != float64(1) || v["model"] != "m" {
		t.Errorf("head = %v %v %v, want A 1 m", v["id"], v["created"], v["model"])
	}
	if v["system_fingerprint"] != "fp_b" || v["object"] != "chat.completion.chunk" {
		t.Errorf("unknown members lost: %s", out)
	}
	if !strings.Contains(string(out), `"logprobs":{"content":[]}`) {
		t.Errorf("choice member lost: %s", out)
	}
}

func TestSeamAbsentHeadMembersStayAbsent(t *testing.T) {
	var s Seam
	if _, err := s.Chunk([]byte(`{"choices":[{"index":0,"delta":{"content":"a"}}]}`)); err != nil {
		t.Fatal(err)
	}
	out, err := s.Chunk([]byte(`{"id":"B","created":5,"model":"n","choices":[{"index":0,"delta":{"content":"b"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), `"id"`) || strings.Contains(string(out), `"model"`) || strings.Contains(string(out), `"created"`) {
		t.Errorf("chunk %s has head members the first lacked", out)
	}
}

func TestSeamRoleOnce(t *testing.T) {
	cases := []struct {
		name string
		in   [][]byte // nil entry = Next
		want []string // outputs; "" = dropped
	}{
		{"role twice in one upstream", [][]byte{
			ck("A", `{"role":"assistant","content":""}`),
			ck("A", `{"role":"assistant","content":"hi"}`),
		}, []string{
			string(ck("A", `{"role":"assistant","content":""}`)),
			`{"choices":[{"delta":{"content":"hi"},"finish_reason":null,"index":0}],"created":1,"id":"A","model":"m","object":"chat.completion.chunk"}`,
		}},
		{"role-only chunk of a continuation is dropped", [][]byte{
			ck("A", `{"role":"assistant","content":"a"}`), nil,
			ck("B", `{"role":"assistant","content":""}`),
			ck("B", `{"role":"assistant"}`),
		}, []string{string(ck("A", `{"role":"assistant","content":"a"}`)), "", ""}},
		{"keepalive with nothing is dropped", [][]byte{
			ck("A", `{"role":"assistant"}`), ck("A", `{"content":""}`), ck("A", `{}`), ck("A", `null`),
		}, []string{string(ck("A", `{"role":"assistant"}`)), "", "", ""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var s Seam
			var got []string
			for _, b := range tc.in {
				if b == nil {
					s.Next()
					continue
				}
				out, err := s.Chunk(b)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, string(out))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestSeamUsage(t *testing.T) {
	usageChunk := func(id string, p, c int) []byte {
		return []byte(`{"id":"` + id + `","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":` +
			itoa(p) + `,"completion_tokens":` + itoa(c) + `,"total_tokens":` + itoa(p+c) + `,"prompt_tokens_details":{"cached_tokens":4}}}`)
	}
	t.Run("cut upstream reported none", func(t *testing.T) {
		var s Seam
		var c client
		for _, b := range [][]byte{content("A", "one "), nil, content("B", "two"), usageChunk("B", 14, 5)} {
			if b == nil {
				s.Next()
				continue
			}
			out, err := s.Chunk(b)
			if err != nil {
				t.Fatal(err)
			}
			c.read(t, out)
		}
		u, complete := s.Usage()
		if complete || u.PromptTokens != 14 || u.CompletionTokens != 5 || u.TotalTokens != 19 {
			t.Errorf("Usage = %+v, %v", u, complete)
		}
		if len(c.usage) != 1 || !strings.Contains(string(c.usage[0]), `"completion_tokens":5`) {
			t.Errorf("client usage = %s", c.usage)
		}
	})
	t.Run("both reported, usage chunk with empty choices", func(t *testing.T) {
		var s Seam
		var c client
		for _, b := range [][]byte{content("A", "one "), usageChunk("A", 10, 3), nil, content("B", "two"), usageChunk("B", 14, 5)} {
			if b == nil {
				s.Next()
				continue
			}
			out, err := s.Chunk(b)
			if err != nil {
				t.Fatal(err)
			}
			if out != nil && strings.Contains(string(b), `"choices":[]`) && !strings.Contains(string(out), `"choices":[]`) {
				t.Errorf("empty choices not kept: %s", out)
			}
			c.read(t, out)
		}
		u, complete := s.Usage()
		// Each upstream billed its prompt: the sums, as the record's (review 39g).
		want := provider.Usage{PromptTokens: 24, CompletionTokens: 8, TotalTokens: 32, PromptTokensDetails: &provider.TokenDetails{CachedTokens: 8}}
		if complete || u.PromptTokens != want.PromptTokens || u.CompletionTokens != want.CompletionTokens ||
			u.TotalTokens != want.TotalTokens || u.Cached() != 8 {
			t.Errorf("Usage = %+v, %v; want %+v, false (the cut upstream's count is partial)", u, complete, want)
		}
		last := string(c.usage[len(c.usage)-1])
		if !strings.Contains(last, `"prompt_tokens":24`) || !strings.Contains(last, `"completion_tokens":8`) || !strings.Contains(last, `"total_tokens":32`) {
			t.Errorf("client's last usage = %s, want the total", last)
		}
	})
	t.Run("one upstream, complete", func(t *testing.T) {
		var s Seam
		for _, b := range [][]byte{content("A", "one"), usageChunk("A", 10, 3)} {
			out, err := s.Chunk(b)
			if err != nil || string(out) != string(b) {
				t.Fatalf("Chunk = %s, %v; want it unchanged", out, err)
			}
		}
		if u, complete := s.Usage(); !complete || u.TotalTokens != 13 {
			t.Errorf("Usage = %+v, %v", u, complete)
		}
	})
	t.Run("usage reported outside chunks", func(t *testing.T) {
		var s Seam
		if _, err := s.Chunk(content("A", "one")); err != nil {
			t.Fatal(err)
		}
		s.Report(&provider.Usage{PromptTokens: 20, CompletionTokens: 1})
		s.Report(nil)
		s.Next()
		if _, err := s.Chunk(usageChunk("B", 25, 7)); err != nil {
			t.Fatal(err)
		}
		if u, complete := s.Usage(); complete || u.PromptTokens != 45 || u.CompletionTokens != 8 || u.TotalTokens != 53 {
			t.Errorf("Usage = %+v, %v; want (20+25) + (1+7), incomplete", u, complete)
		}
	})
	t.Run("none reported", func(t *testing.T) {
		var s Seam
		if u, complete := s.Usage(); complete || u != (provider.Usage{}) {
			t.Errorf("zero Seam Usage = %+v, %v", u, complete)
		}
	})
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

func TestSeamCut(t *testing.T) {
	cases := []struct {
		name    string
		in      [][]byte
		reason  string
		text    string
		chars   int
		prefill Mode // Mode(true)
	}{
		{"plain text", [][]byte{ck("A", `{"role":"assistant","content":"naïve "}`), content("A", "café")},
			"", "naïve café", 10, ByPrefill},
		{"only whitespace delivered", [][]byte{content("A", "\n ")}, "", "\n ", 2, ByReplay},
		{"cut inside a tool call", [][]byte{
			ck("A", `{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]}`),
			ck("A", `{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":"}}]}`),
		}, "cut inside a tool call", "", 0, Refuse},
		{"a second choice after a tool call", [][]byte{
			ck("A", `{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]}`),
			[]byte(`{"id":"A","choices":[{"index":1,"delta":{"content":"x"},"finish_reason":null}]}`),
		}, "more than one choice (n > 1)", "", 0, Refuse},
		{"n > 1", [][]byte{content("A", "a"), []byte(`{"id":"A","choices":[{"index":1,"delta":{"content":"b"},"finish_reason":null}]}`)},
			"more than one choice (n > 1)", "a", 1, Refuse},
		{"reasoning delivered", [][]byte{ck("A", `{"reasoning_content":"think"}`), content("A", "a")},
			"a reasoning_content delta was delivered", "a", 1, Refuse},
		{"blank members are not deltas", [][]byte{ck("A", `{"role":"assistant","content":"a","tool_calls":[],"reasoning_content":null,"refusal":""}`)},
			"", "a", 1, ByPrefill},
		{"finished", [][]byte{content("A", "a"), []byte(`{"id":"A","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)},
			"the answer was complete", "a", 1, Refuse},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var s Seam
			for _, b := range tc.in {
				if _, err := s.Chunk(b); err != nil {
					t.Fatal(err)
				}
			}
			c := s.Cut()
			if c.Reason != tc.reason || c.Text != tc.text || c.Chars != tc.chars {
				t.Errorf("Cut = %+v, want reason %q text %q chars %d", c, tc.reason, tc.text, tc.chars)
			}
			if m := c.Mode(true); m != tc.prefill {
				t.Errorf("Mode(true) = %v, want %v", m, tc.prefill)
			}
			if want := map[bool]Mode{true: Refuse, false: ByReplay}[tc.reason != ""]; c.Mode(false) != want {
				t.Errorf("Mode(false) = %v, want %v", c.Mode(false), want)
			}
		})
	}
}

func TestSeamToolCallFinished(t *testing.T) {
	var s Seam
	if _, err := s.Chunk(ck("A", `{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"}}]}`)); err != nil {
		t.Fatal(err)
	}
	if !s.InToolCall() {
		t.Error("InToolCall false after a tool-call delta")
	}
	if _, err := s.Chunk([]byte(`{"id":"A","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)); err != nil {
		t.Fatal(err)
	}
	if s.InToolCall() || !s.Finished() || s.Cut().Reason != "the answer was complete" {
		t.Errorf("Finished = %v, Cut = %+v", s.Finished(), s.Cut())
	}
}

func TestSeamRejectsNonChunks(t *testing.T) {
	for _, b := range []string{``, `null`, `[]`, `"x"`, `{"choices":{}}`, `{"choices":[1]}`, `{"choices":[null]}`,
		`{"choices":[{"delta":[]}]}`, `{"choices":[{"index":0,"delta":{"content":5}}]}`, `{"choices":[],"usage":"many"}`, `{`} {
		var s Seam
		if out, err := s.Chunk([]byte(b)); err == nil {
			t.Errorf("Chunk(%s) = %s, nil; want an error", b, out)
		}
	}
}

func TestModeString(t *testing.T) {
	if ByPrefill.String() != "prefill" || ByReplay.String() != "replay" || Refuse.String() != "refuse" {
		t.Error("mode names changed: the decision record shows them")
	}
}
