package dispatch

import (
	"testing"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/provider"
)

// The record's usage says when it is a lower bound: a stream cut after its
// commit point has an upstream whose count is partial (a cut upstream
// reports at most what it had counted at its start) or missing, so the
// request's usage is "incomplete" — whether the stream was continued or
// not — and a cut attempt's own partial usage is too.
func TestRecordUsageIncompleteAfterACut(t *testing.T) {
	replayUsage := &provider.Usage{PromptTokens: 5, CompletionTokens: 20, TotalTokens: 25}
	partial := &provider.Usage{PromptTokens: 11, CompletionTokens: 1, TotalTokens: 12}
	for _, tc := range []struct {
		name       string
		route      string
		plays      func(health.Key, int) play
		want       *decision.Usage
		cutPartial bool // the cut attempt reported a partial count
	}{
		{"continued; the cut upstream reported none", `{name: r, targets: [a, c], on_stream_cut: continue}`, func(_ health.Key, n int) play {
			if n == 1 {
				return cutAfter(2, classify.ServerError)
			}
			p := wholePlay
			p.usage = replayUsage
			return p
		}, &decision.Usage{PromptTokens: 5, CompletionTokens: 20, TotalTokens: 25, Incomplete: true}, false},
		{"continued; the cut upstream reported a partial count", `{name: r, targets: [a, c], on_stream_cut: continue}`, func(_ health.Key, n int) play {
			if n == 1 {
				p := cutAfter(2, classify.ServerError)
				p.usage = partial
				return p
			}
			p := wholePlay
			p.usage = replayUsage
			return p
		}, &decision.Usage{PromptTokens: 16, CompletionTokens: 21, TotalTokens: 37, Incomplete: true}, true},
		{"cut, not continued", `{name: r, targets: [a, c]}`, func(_ health.Key, n int) play {
			p := cutAfter(2, classify.ServerError)
			p.usage = partial
			return p
		}, &decision.Usage{PromptTokens: 11, CompletionTokens: 1, TotalTokens: 12, Incomplete: true}, true},
		{"one whole stream", `{name: r, targets: [a, c], on_stream_cut: continue}`, func(_ health.Key, n int) play {
			p := wholePlay
			p.usage = replayUsage
			return p
		}, &decision.Usage{PromptTokens: 5, CompletionTokens: 20, TotalTokens: 25}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newContHarness(t, tc.route, tc.plays)
			_, res := h.stream(t, "r", 0)
			d := res.Decision
			if d.Usage == nil || *d.Usage != *tc.want {
				t.Errorf("record usage %+v, want %+v", d.Usage, tc.want)
			}
			if a := d.Attempts[0]; tc.cutPartial && (a.Usage == nil || !a.Usage.Incomplete) {
				t.Errorf("cut attempt usage %+v, want it marked incomplete", a.Usage)
			}
			if last := d.Attempts[len(d.Attempts)-1]; last.Usage != nil && last.Usage.Incomplete && d.Outcome == "ok" {
				t.Errorf("the finishing attempt's own usage %+v is marked incomplete", last.Usage)
			}
		})
	}
}
