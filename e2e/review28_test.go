package e2e

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// review 28: usage.cache_creation is read only to price the 1-hour writes,
// but it is decoded strictly, inside the answer and the stream event. A
// cache_creation Detour cannot decode (a string, an array, a float or an
// oversized count) was ignored before the commit; now it fails the whole
// answer (502 after a retry the upstream bills again, cost unknown) or
// drops the stream event that carries it (message_start: a Messages client
// never sees it; message_delta: the output count and stop_reason are lost,
// yet the attempt is recorded done and complete at a third of its cost).
func TestReview28CacheCreationShapeNeverFailsTheAnswer(t *testing.T) {
	usage := func(cc string, out int) string {
		return `{"input_tokens":21,"cache_creation_input_tokens":1000,"cache_read_input_tokens":0,"cache_creation":` + cc +
			`,"output_tokens":` + strconv.Itoa(out) + `}`
	}
	plain := `{"input_tokens":21,"cache_creation_input_tokens":1000,"cache_read_input_tokens":0,"output_tokens":1}`
	stream := func(start, delta string) upstreamtest.Step {
		return upstreamtest.Step{Events: []string{
			"event: message_start\ndata: " + `{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","content":[],"model":"claude-opus-4-5","stop_reason":null,"stop_sequence":null,"usage":` + start + `}}`,
			"event: content_block_start\ndata: " + `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			"event: content_block_delta\ndata: " + `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Pride"}}`,
			"event: content_block_stop\ndata: " + `{"type":"content_block_stop","index":0}`,
			"event: message_delta\ndata: " + `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":` + delta + `}`,
			"event: message_stop\ndata: " + `{"type":"message_stop"}`,
		}}
	}
	const flat = (21*5 + 1000*6.25 + 393*25) / 1e6 // no split known: every write at cache_write
	admin := []string{"Authorization", "Bearer key-admin"}
	native := append(admin, "anthropic-version", "2023-06-01")
	messages := `{"model":"hour","max_tokens":1024,"messages":[{"role":"user","content":"x"}]}`
	streamed := strings.Replace(messages, `"max_tokens"`, `"stream":true,"max_tokens"`, 1)
	// (A count written 750.0 is read as 750 since hostile 52, as every
	// other count: a split known, not one of these.)
	for _, cc := range []string{`"x"`, `[]`, `{"ephemeral_1h_input_tokens":99999999999999999999}`} {
		whole := upstreamtest.Step{Body: `{"id":"msg_01","type":"message","role":"assistant","model":"claude-opus-4-5",` +
			`"content":[{"type":"text","text":"Pride"}],"stop_reason":"end_turn","stop_sequence":null,"usage":` + usage(cc, 393) + `}`}
		inStart := stream(usage(cc, 1), `{"output_tokens":393}`)
		inDelta := stream(plain, `{"output_tokens":393,"cache_creation":`+cc+`}`)
		for _, c := range []struct {
			name       string
			step       upstreamtest.Step
			path, body string
			want       string // in the client's body
		}{
			{"chat whole", whole, "/v1/chat/completions", `{"model":"hour","messages":[{"role":"user","content":"x"}]}`, `"finish_reason":"stop"`},
			{"messages whole", whole, "/v1/messages", messages, `"stop_reason":"end_turn"`},
			{"chat stream, in message_start", inStart, "/v1/chat/completions", `{"model":"hour","stream":true,"messages":[{"role":"user","content":"x"}]}`, `"finish_reason":"stop"`},
			{"messages stream, in message_start", inStart, "/v1/messages", streamed, "event: message_start"},
			{"chat stream, in message_delta", inDelta, "/v1/chat/completions", `{"model":"hour","stream":true,"messages":[{"role":"user","content":"x"}]}`, `"finish_reason":"stop"`},
			{"messages stream, in message_delta", inDelta, "/v1/messages", streamed, `"stop_reason":"end_turn"`},
		} {
			t.Run(cc+" "+c.name, func(t *testing.T) {
				fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(c.step, c.step, c.step)})
				g := startClock(t, hourCfg, fs, testutil.NewClock(time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)))
				r := g.raw(t, "POST", c.path, c.body, native...)
				if r.Status != 200 || !strings.Contains(string(r.Body), c.want) {
					t.Errorf("client got %d without %s: %.200s", r.Status, c.want, r.Body)
				}
				d := wantCacheCost(t, g, 1, 1021, 1000, flat)
				if len(d.Attempts) != 1 || d.Usage == nil || d.Usage.Incomplete {
					t.Errorf("%d attempts (the upstream billed each), usage %+v", len(d.Attempts), d.Usage)
				}
			})
		}
	}
}
