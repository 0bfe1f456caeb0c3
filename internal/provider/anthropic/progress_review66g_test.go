package anthropic

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// Review 66g: since probe 66b a translated stream's untranslated deltas
// are progress (they restart first_token_timeout and idle_timeout). A
// delta that names no type ({} or "type":null: no writing Anthropic
// sends, and none a client could read) added nothing, yet deltaAdds read
// it as "another type": an upstream hung mid-answer that kept sending it
// held the stream, its connection and the key's max_concurrent slot open
// for ever (no max_stream_duration by default), which review 62b closed
// for every empty delta. Native streams relay it: no content there
// either.
func TestDeltaWithoutTypeIsNoProgressReview66g(t *testing.T) {
	for _, d := range []string{`{}`, `{"type":null}`, `{"type":""}`, `{"type":7,"text":"x"}`,
		`{"type":"thinking_delta"}`, `{"type":"signature_delta","signature":null}`} {
		in := "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":" + d + "}\n\n"
		for _, ev := range adaptertest.Events(t, testStream(strings.NewReader(in))) {
			if ev.Progress || ev.Content {
				t.Errorf("translated %s: progress %v, content %v", d, ev.Progress, ev.Content)
			}
		}
		s := Adapter{}.NativeStream("", strings.NewReader(in), provider.Endpoint{})
		if e, _ := s.Next(); e.Content || e.Progress {
			t.Errorf("native %s: content %v", d, e.Content)
		}
	}
}
