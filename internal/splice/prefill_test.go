package splice

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/detour-llm/detour/classify"
)

func TestPrefillBody(t *testing.T) {
	const user = `{"model":"r","stream":true,"stream_options":{"include_usage":true},"temperature":0.2,"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Count."}]}`
	cases := []struct {
		name      string
		body      string
		delivered string
		dialect   classify.Dialect
		last      string // the final message's content
		nmsgs     int
		openai    bool
	}{
		{"anthropic, trailing space stripped", user, "One, two, ", classify.Anthropic, "One, two,", 3, false},
		{"openai-compatible gets continue_final_message", user, "One, two", classify.OpenAI, "One, two", 3, true},
		{"trailing newlines and tabs stripped", user, "One\n\t \n", classify.Gemini, "One", 3, false},
		{"client's own prefill is extended", `{"messages":[{"role":"user","content":"JSON please"},{"role":"assistant","content":"{\"a\":"}]}`,
			" 1, \"b\": ", classify.Anthropic, `{"a": 1, "b":`, 2, false},
		{"client's prefill with null content", `{"messages":[{"role":"user","content":"x"},{"role":"assistant","content":null}]}`,
			"yes", classify.OpenAI, "yes", 2, true},
		{"multibyte kept whole", user, "日本語\u3000", classify.Anthropic, "日本語", 3, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, join, err := Prefill([]byte(tc.body), tc.delivered, tc.dialect)
			if err != nil {
				t.Fatal(err)
			}
			var req struct {
				Messages []struct {
					Role    string `json:"role"`
					Content string `json:"content"`
				} `json:"messages"`
				Continue *bool           `json:"continue_final_message"`
				AddGen   *bool           `json:"add_generation_prompt"`
				Opts     json.RawMessage `json:"stream_options"`
				Temp     *float64        `json:"temperature"`
			}
			if err := json.Unmarshal(out, &req); err != nil {
				t.Fatal(err)
			}
			last := req.Messages[len(req.Messages)-1]
			if len(req.Messages) != tc.nmsgs || last.Role != "assistant" || last.Content != tc.last {
				t.Errorf("messages = %+v, want %d ending with assistant %q", req.Messages, tc.nmsgs, tc.last)
			}
			if tc.openai != (req.Continue != nil && *req.Continue && req.AddGen != nil && !*req.AddGen) {
				t.Errorf("continue_final_message = %v, add_generation_prompt = %v", req.Continue, req.AddGen)
			}
			if !tc.openai && (req.Continue != nil || req.AddGen != nil) {
				t.Errorf("non-openai request carries vLLM parameters: %s", out)
			}
			if strings.Contains(tc.body, "stream_options") && (string(req.Opts) != `{"include_usage":true}` || req.Temp == nil) {
				t.Errorf("request members lost: %s", out)
			}
			if join.ws != tc.delivered[len(strings.TrimRight(tc.delivered, " \t\n\u3000")):] {
				t.Errorf("join expects %q", join.ws)
			}
		})
	}
}

func TestPrefillRefuses(t *testing.T) {
	for name, tc := range map[string]struct{ body, delivered string }{
		"only whitespace":            {`{"messages":[{"role":"user","content":"x"}]}`, " \n"},
		"nothing":                    {`{"messages":[{"role":"user","content":"x"}]}`, ""},
		"not JSON":                   {`{`, "a"},
		"not an object":              {`[]`, "a"},
		"no messages":                {`{"model":"m"}`, "a"},
		"messages not a list":        {`{"messages":{}}`, "a"},
		"assistant parts":            {`{"messages":[{"role":"assistant","content":[{"type":"text","text":"a"}]}]}`, "b"},
		"assistant tool call at end": {`{"messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}]}`, "b"},
	} {
		if out, _, err := Prefill([]byte(tc.body), tc.delivered, classify.Anthropic); err == nil {
			t.Errorf("%s: Prefill = %s, want an error", name, out)
		}
	}
}

func TestJoin(t *testing.T) {
	cases := []struct {
		name      string
		delivered string
		cont      []string
		want      string // what the client assembles in total
	}{
		{"no space delivered, continuation brings it", "Hello,", []string{" world"}, "Hello, world"},
		{"space delivered, continuation repeats it", "Hello, ", []string{" world"}, "Hello, world"},
		{"space delivered, continuation without it", "Hello, ", []string{"world"}, "Hello, world"},
		{"mid-word cut", "Hel", []string{"lo"}, "Hello"},
		{"newlines repeated across chunks", "Title\n\n", []string{"\n", "\nBody"}, "Title\n\nBody"},
		{"fewer newlines repeated", "Title\n\n", []string{"\nBody"}, "Title\n\nBody"},
		{"different whitespace is the model's", "Hello, ", []string{"\nNext"}, "Hello, \nNext"},
		{"repeat stops at first difference", "a \n", []string{" ", " b"}, "a \n b"},
		{"empty and role chunks do not end the match", "a ", []string{"", " b"}, "a b"},
		{"multibyte whitespace", "日本\u3000", []string{"\u3000語"}, "日本\u3000語"},
		{"same lead byte, different rune", "a\u2002", []string{"\u2003b"}, "a\u2002\u2003b"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, j, err := Prefill([]byte(`{"messages":[{"role":"user","content":"x"}]}`), tc.delivered, classify.Anthropic)
			if err != nil {
				t.Fatal(err)
			}
			var s Seam
			var c client
			out, _ := s.Chunk(ck("A", `{"role":"assistant","content":`+quote(tc.delivered)+`}`))
			c.read(t, out)
			s.Next()
			for i, part := range tc.cont {
				b := content("B", part)
				if i == 0 {
					b = ck("B", `{"role":"assistant","content":`+quote(part)+`}`)
				}
				jb, err := j.Chunk(b)
				if err != nil {
					t.Fatal(err)
				}
				out, err := s.Chunk(jb)
				if err != nil {
					t.Fatal(err)
				}
				c.read(t, out)
			}
			if c.text.String() != tc.want || c.roles != 1 {
				t.Errorf("client assembled %q (%d roles), want %q", c.text.String(), c.roles, tc.want)
			}
		})
	}
}

func TestJoinEndsAtFinish(t *testing.T) {
	_, j, _ := Prefill([]byte(`{"messages":[{"role":"user","content":"x"}]}`), "Done. ", classify.Anthropic)
	if _, err := j.Chunk([]byte(`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)); err != nil {
		t.Fatal(err)
	}
	b := content("B", " ")
	if out, _ := j.Chunk(b); string(out) != string(b) {
		t.Errorf("after a finish the join still trims: %s", out)
	}
	var zero Join
	if out, _ := zero.Chunk(b); string(out) != string(b) {
		t.Error("the zero Join changed a chunk")
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
