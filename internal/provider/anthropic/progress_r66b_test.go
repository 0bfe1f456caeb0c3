package anthropic

import (
	"os"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// Probe 66b: what Claude writes that a translation does not send (its
// thinking, the signature, a server tool's input, a redacted_thinking
// block) is no content but progress, so the first-token and idle clocks
// restart as the native stream's do. Claude Sonnet 5 and Opus 5 think
// unasked; before, a translated stream of such a model read its whole
// thinking as silence and could time out mid-thought.
func TestStreamUntranslatedWritingIsProgressR66b(t *testing.T) {
	for _, tc := range []struct {
		file string
		want int // events with progress
	}{
		{"thinking.sse", 7},   // six thinking deltas and the signature
		{"web_search.sse", 6}, // the server tool's input pieces that add
		{"server_tool_use.sse", 3},
		{"compaction.sse", 1}, // the compaction_delta
	} {
		t.Run(tc.file, func(t *testing.T) {
			f, err := os.Open("testdata/stream/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			n := 0
			for _, ev := range adaptertest.Events(t, testStream(f)) {
				if ev.Progress {
					n++
					if ev.Content || len(ev.Chunks) > 0 {
						t.Errorf("progress event with content: %s", ev.Raw)
					}
				}
			}
			if n != tc.want {
				t.Errorf("%d progress events, want %d", n, tc.want)
			}
		})
	}
	// A redacted_thinking block carries its data in its start alone.
	const redacted = "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"redacted_thinking\",\"data\":\"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP\"}}\n\n"
	evs := adaptertest.Events(t, testStream(strings.NewReader(redacted)))
	if len(evs) != 1 || !evs[0].Progress || evs[0].Content {
		t.Errorf("redacted_thinking start: %+v", evs)
	}
}
