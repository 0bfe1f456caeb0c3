package openai

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// Review 66g, the whole answer whose message content is a list (probe
// 66a's rewrite). It decoded the whole answer into maps and encoded it
// back three times over: a 60 MB answer of one list (under the 64 MiB an
// answer may be) allocated 0.86 to 0.97 GB and took about 2 s of CPU, where
// the same answer with a string content costs nothing here — an upstream,
// hostile or broken, could hold a gigabyte per request. And every byte
// of the answer outside the list was written again: members sorted, the
// other choices re-encoded.
func TestListContentAnswerCostsAboutItsSizeReview66g(t *testing.T) {
	for _, part := range []string{`{"type":"text","text":""}`, `{"type":"text","text":"` + strings.Repeat("x", 60000) + `"}`,
		`{"type":"thinking","thinking":[{"type":"text","text":"a"}]}`} {
		n := 16 << 20 / (len(part) + 1)
		body := []byte(`{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":[` +
			strings.TrimSuffix(strings.Repeat(part+",", n), ",") + `]},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		out, u, err := Adapter{}.ResponseUsage(body, provider.Endpoint{})
		runtime.ReadMemStats(&m1)
		if err != nil || string(u) != `{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}` || !json.Valid(out) {
			t.Fatalf("%.40s: %v, usage %s", part, err, u)
		}
		if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 4*uint64(len(body)) {
			t.Errorf("%.40s ×%d: %d MB allocated for a %d MB answer", part, n, alloc>>20, len(body)>>20)
		} else {
			t.Logf("%.40s ×%d: %d MB allocated for a %d MB answer", part, n, alloc>>20, len(body)>>20)
		}
	}
}

// The rewrite touches the messages whose content is a list, and nothing
// else: another choice, the members' order, a number as written.
func TestListContentAnswerKeepsTheRestReview66g(t *testing.T) {
	other := `{"index":1,"message":{"role":"assistant","content":"plain <b>&</b>","refusal":null},"logprobs":null,"finish_reason":"stop"}`
	head := `{"id":"chatcmpl-1","object":"chat.completion","created":1.0e9,"model":"magistral","system_fingerprint":null,"choices":[`
	tail := `],"usage":{"prompt_tokens":3,"completion_tokens":5,"total_tokens":8}}`
	for _, c := range []struct{ msg, want string }{
		// thinking and text, a reasoning_content already there, a refusal and tool calls beside
		{`{"role":"assistant","reasoning_content":"before ","content":[{"type":"thinking","thinking":[{"type":"text","text":"hm\n"}]},{"type":"text","text":"Hi \u00e9"},{"type":"text","text":"!"}],"refusal":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}`,
			`{"role":"assistant","reasoning_content":"before hm\n","content":"Hi \u00e9!","refusal":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}`},
		// thinking alone: no text, content null as OpenAI writes a message without it
		{`{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"x"}]}]}`,
			`{"role":"assistant","content":null,"reasoning_content":"x"}`},
		// a list holding neither text nor thinking, or not readable, stays
		{`{"role":"assistant","content":[{"type":"image_url","image_url":{"url":"x"}}]}`, ``},
		{`{"role":"assistant","content":[{"type":"text","text":7}]}`, ``},
		{`{"role":"assistant","content":["a"]}`, ``},
	} {
		body := head + `{"index":0,"message":` + c.msg + `,"finish_reason":"stop"},` + other + tail
		want := c.want
		if want == "" {
			want = c.msg
		}
		out, u, err := Adapter{}.ResponseUsage([]byte(body), provider.Endpoint{})
		if err != nil || string(u) != `{"prompt_tokens":3,"completion_tokens":5,"total_tokens":8}` {
			t.Fatalf("%s: %v, usage %s", c.msg, err, u)
		}
		if w := head + `{"index":0,"message":` + want + `,"finish_reason":"stop"},` + other + tail; string(out) != w {
			t.Errorf("%s:\n got %s\nwant %s", c.msg, out, w)
		}
	}
}
