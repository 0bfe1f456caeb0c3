package dispatch

import (
	"testing"

	"github.com/detour-llm/detour/classify"
)

// TestToldStatus: the client is told the upstream's status, but a full
// window is a 400 wherever it came from, and a request's own failure read
// from a 5xx gets its class's status (probe 58: Codex and
// @langchain/anthropic read a 500 overflow as a server's trouble, and
// retried it).
func TestToldStatus(t *testing.T) {
	for _, c := range []struct {
		class      classify.Class
		upstream   int
		toldClient int
	}{
		{classify.ContextLength, 500, 400},
		{classify.ContextLength, 422, 400},
		{classify.ContextLength, 413, 400},
		{classify.ContextLength, 400, 400},
		{classify.BadRequest, 500, 400},
		{classify.BadRequest, 422, 422},
		{classify.Refusal, 503, 400},
		{classify.Refusal, 451, 451},
		{classify.Overflow, 500, 413},
		{classify.Overflow, 400, 400},
		{classify.ServerError, 500, 500},
		{classify.Quota, 400, 400},
		{classify.RateLimited, 503, 503},
		{classify.Unknown, 501, 501},
	} {
		if got := toldStatus(c.class, c.upstream); got != c.toldClient {
			t.Errorf("%s at %d: told %d, want %d", c.class, c.upstream, got, c.toldClient)
		}
	}
}
