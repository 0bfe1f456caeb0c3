package gemini

import (
	"os"
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// Probe 66b: Vertex streams "usageMetadata": {"trafficType": "ON_DEMAND"}
// on every chunk but the last, which holds the counts. A usage of no count
// is no usage: before, each such chunk reported 0 tokens, and a stream cut
// before its last chunk was recorded as having used nothing.
func TestStreamUsageWithoutCountsR66b(t *testing.T) {
	for _, file := range []string{"vertex_url_context.sse", "vertex_thought_summary.sse", "vertex_code_execution.sse"} {
		t.Run(file, func(t *testing.T) {
			f, err := os.Open("testdata/stream/" + file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			evs := adaptertest.Events(t, testStream(f))
			for i, ev := range evs[:len(evs)-1] {
				if ev.Usage != nil {
					t.Errorf("event %d reports usage %+v from %s", i, *ev.Usage, ev.Raw)
				}
			}
			if u := evs[len(evs)-1].Usage; u == nil || u.PromptTokens == 0 || u.CompletionTokens == 0 {
				t.Errorf("last event's usage %+v", u)
			}
		})
	}
}
