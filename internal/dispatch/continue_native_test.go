package dispatch_test

import (
	"context"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A native stream (raw upstream events) on a route that continues cut
// streams is relayed as it came, and a cut ends it with the error event: it
// is never continued (docs/behaviour.md#streams).
func TestNativeStreamIsNotContinued(t *testing.T) {
	events := []string{
		`event: message_start` + "\n" + `data: {"type":"message_start","message":{"id":"msg_1","model":"claude-x","usage":{"input_tokens":3,"output_tokens":0}}}`,
		`event: content_block_start` + "\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`event: content_block_delta` + "\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`,
		`event: content_block_stop` + "\n" + `data: {"type":"content_block_stop","index":0}`,
		`event: message_delta` + "\n" + `data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}`,
		`event: message_stop` + "\n" + `data: {"type":"message_stop"}`,
	}
	for _, tc := range []struct {
		name string
		step upstreamtest.Step
	}{
		{"whole", upstreamtest.Step{Events: events}},
		{"cut", upstreamtest.Step{Events: events[:3], Cut: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ua, ub := upstreamtest.New(upstreamtest.Steps(tc.step)), upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Events: upstreamtest.ChatStream("gpt-x", "Hello", " world")}))
			t.Cleanup(ua.Close)
			t.Cleanup(ub.Close)
			d := abDispatcher(t, `providers:
  - {name: pa, dialect: anthropic, base_url: "`+ua.URL+`", api_key: sk-ant}
  - {name: pb, dialect: openai, base_url: "`+ub.URL+`/v1", api_key: sk-test}
targets:
  - {name: a, model: claude-x, providers: [pa]}
  - {name: b, model: gpt-x, providers: [pb]}
routes:
  - {name: r, targets: [a, b], on_stream_cut: continue}
`)
			c := &rawClient{}
			res := d.Do(context.Background(), nativeCall(true, c))
			want := events
			if tc.step.Cut {
				want = events[:3]
			}
			if len(c.chunks) != len(want) || !c.commit.Native {
				t.Fatalf("client got %d chunks (native %v), want %d: %q", len(c.chunks), c.commit.Native, len(want), c.chunks)
			}
			for i, ev := range want {
				if _, data, _ := strings.Cut(ev, "data: "); c.chunks[i] != data {
					t.Errorf("chunk %d = %s\nwant %s", i, c.chunks[i], data)
				}
			}
			if tc.step.Cut != (c.failed != nil) || tc.step.Cut == c.ended || ub.Calls() != 0 {
				t.Errorf("failed %+v, ended %v, openai target called %d times; result %+v", c.failed, c.ended, ub.Calls(), res)
			}
		})
	}
}

// A translated stream cut on a route that continues is continued in
// canonical chat even at a target that serves the client's API natively:
// the client keeps one stream of one shape.
func TestContinuationIsNeverNative(t *testing.T) {
	anthropic := []string{
		`event: message_start` + "\n" + `data: {"type":"message_start","message":{"id":"msg_1","model":"claude-x","usage":{"input_tokens":3,"output_tokens":0}}}`,
		`event: content_block_start` + "\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`event: content_block_delta` + "\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello world"}}`,
		`event: content_block_stop` + "\n" + `data: {"type":"content_block_stop","index":0}`,
		`event: message_delta` + "\n" + `data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}`,
		`event: message_stop` + "\n" + `data: {"type":"message_stop"}`,
	}
	ua := upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Events: anthropic}))
	ub := upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Events: upstreamtest.ChatStream("gpt-x", "Hello")[:2], Cut: true}))
	t.Cleanup(ua.Close)
	t.Cleanup(ub.Close)
	d := abDispatcher(t, `providers:
  - {name: pa, dialect: anthropic, base_url: "`+ua.URL+`", api_key: sk-ant}
  - {name: pb, dialect: openai, base_url: "`+ub.URL+`/v1", api_key: sk-test}
targets:
  - {name: a, model: claude-x, providers: [pa], prefill: false}
  - {name: b, model: gpt-x, providers: [pb]}
routes:
  - {name: r, targets: [b, a], on_stream_cut: continue}
`)
	c := &rawClient{}
	res := d.Do(context.Background(), nativeCall(true, c))
	if res.Failure != nil || !c.ended || c.commit.Native || c.commit.Target != "b" {
		t.Fatalf("result %+v, client %+v", res.Failure, c)
	}
	text := ""
	for _, ch := range c.chunks {
		if !strings.Contains(ch, `"object":"chat.completion.chunk"`) {
			t.Errorf("a chunk that is not canonical chat: %s", ch)
		}
		if _, after, ok := strings.Cut(ch, `"content":"`); ok {
			text += after[:strings.IndexByte(after, '"')]
		}
	}
	if text != "Hello world" {
		t.Errorf("client text %q", text)
	}
	if got := string(ua.Requests()[0].Body); strings.Contains(got, "weird") {
		t.Errorf("the continuation was sent the client's native body: %s", got)
	}
}
