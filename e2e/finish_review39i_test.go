package e2e

import (
	"context"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A client relies on a stream that Detour ends with [DONE] being a whole
// answer. Some OpenAI-compatible servers put finish_reason "stop" on every
// chunk, not only the last (su-kaka/gcli2api#403, open-webui/open-webui#16377):
// the answer goes on after its "finish". Review 39g ended a stream that had
// said it was finished with [DONE] however the connection ended, so such an
// upstream cut or stalled mid-answer gave the client half an answer as a
// success, and the route never failed over. An answer that went on after
// its finish reason is cut by a cut, as before review 39g.
func TestReview39iContentAfterTheFinishIsNoFinish(t *testing.T) {
	evs := []string{
		chunk39g("primary-model", 0, `{"role":"assistant","content":""}`, "null"),
		chunk39g("primary-model", 0, `{"content":"Once"}`, `"stop"`),
		chunk39g("primary-model", 0, `{"content":" upon"}`, `"stop"`),
	}
	for _, tc := range []struct {
		name string
		step upstreamtest.Step
	}{
		{"cut", upstreamtest.Step{Events: evs, Cut: true}},
		{"stalled", upstreamtest.Step{Events: evs, Stall: true}},
	} {
		for _, opts := range []string{"", continueOpts} {
			t.Run(tc.name+opts, func(t *testing.T) {
				fs := fakes(t, map[string]upstreamtest.Script{"one": script(tc.step), "two": model{dialect: "openai", per: 3}.script(t)})
				g := start(t, contCfg("openai", "", opts), fs)
				s := sdk(g).Chat.Completions.NewStreaming(context.Background(), hello("r"))
				acc := openai.ChatCompletionAccumulator{}
				for s.Next() {
					acc.AddChunk(s.Current())
				}
				if s.Err() == nil {
					t.Errorf("the cut answer ended as a success (%d choices)", len(acc.Choices))
				}
				rec := g.recs.wait(t, 1)
				if rec.Outcome == "ok" || len(rec.Attempts) == 0 || rec.Attempts[0].Class == "" {
					t.Errorf("record: outcome %s; want the first attempt failed", rec.Outcome)
				}
			})
		}
	}
}
