package e2e

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A batched attempt's upstream_request_id is the id of the call that ended
// it: a last call that got no answer (the deadline passed while it waited)
// leaves it empty, not the id of an earlier batch that was served.
func TestEmbeddingsBatchUpstreamIDIsTheLastCalls(t *testing.T) {
	cfg := strings.Replace(batchCfg, `api_key: `+secret+`}`, `api_key: `+secret+`, timeout: 1s}`, 1)
	cfg = strings.Replace(cfg, "max_billable_attempts: 1}", "deadline: 1500ms}", 1)
	gem := &geminiEmbedder{delay: 600 * time.Millisecond}
	withID := func(n int, r upstreamtest.Request) upstreamtest.Step {
		st := gem.script(n, r)
		st.Header = map[string]string{"x-request-id": "req_batch" + strconv.Itoa(n)}
		return st
	}
	fs := fakes(t, map[string]upstreamtest.Script{"gemini": withID, "openai": script(upstreamtest.Step{Body: openaiVectors})})
	g := start(t, cfg, fs)
	if _, err := sdkAs(g, "key-open").Embeddings.New(context.Background(), embedTexts("gem-strict", 250)); err == nil {
		t.Fatal("batches past the route's deadline succeeded")
	}
	d := g.recs.wait(t, 1)
	if a := d.Attempts[0]; a.Status != 0 || a.UpstreamRequestID != "" {
		t.Errorf("attempt ended by an unanswered call: status %d, upstream_request_id %q; want 0 and none", a.Status, a.UpstreamRequestID)
	}
}
