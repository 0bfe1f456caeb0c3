package dispatch

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/health"
)

// streamBody is contHarness.stream with the client's own request body.
func (h *contHarness) streamBody(t *testing.T, model, body string) (*recorder, *Result) {
	t.Helper()
	out := &recorder{}
	return out, h.d.Do(context.Background(), &Call{Model: model, Stream: true, Out: out, ID: "t", Body: []byte(body)})
}

// caps reads the completion-token caps of a request body (-1 when absent).
func caps(t *testing.T, body string) (maxTokens, maxCompletion int) {
	t.Helper()
	var req struct {
		MaxTokens     *int `json:"max_tokens"`
		MaxCompletion *int `json:"max_completion_tokens"`
	}
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatal(err)
	}
	maxTokens, maxCompletion = -1, -1
	if req.MaxTokens != nil {
		maxTokens = *req.MaxTokens
	}
	if req.MaxCompletion != nil {
		maxCompletion = *req.MaxCompletion
	}
	return maxTokens, maxCompletion
}

// A continuation by prefill generates only the rest of the answer: it asks
// for the client's cap less the tokens already delivered (two content
// chunks here), so the whole answer stays within the client's cap.
func TestContinueByPrefillLowersTheCap(t *testing.T) {
	h := newContHarness(t, `{name: r, targets: [c, b], on_stream_cut: continue}`, func(k health.Key, n int) play {
		if n == 1 {
			return cutAfter(2, classify.ServerError)
		}
		return play{parts: whole[2:], done: true}
	})
	out, res := h.streamBody(t, "r", `{"model":"r","stream":true,"max_tokens":50,"max_completion_tokens":40,"messages":[{"role":"user","content":"hi"}]}`)
	wantClean(t, out, res)
	wantContinuation(t, res.Decision.Attempts[1], 1, "prefill", len("Hello, wor"), "server_error")
	if mt, mc := caps(t, h.f.calls[0].request); mt != 50 || mc != 40 {
		t.Errorf("first attempt caps %d, %d; want the client's 50, 40", mt, mc)
	}
	if mt, mc := caps(t, h.f.calls[1].request); mt != 48 || mc != 38 {
		t.Errorf("prefill continuation caps %d, %d; want 48, 38 (2 tokens delivered)", mt, mc)
	}
}

// When the delivered text has used the whole cap, a prefill could only
// exceed it: the continuation replays, with the client's cap as sent.
func TestContinueCapSpentReplays(t *testing.T) {
	h := newContHarness(t, `{name: r, targets: [c, b], on_stream_cut: continue}`, func(k health.Key, n int) play {
		if n == 1 {
			return cutAfter(2, classify.ServerError)
		}
		return wholePlay
	})
	body := `{"model":"r","stream":true,"max_tokens":2,"messages":[{"role":"user","content":"hi"}]}`
	out, res := h.streamBody(t, "r", body)
	wantClean(t, out, res)
	wantContinuation(t, res.Decision.Attempts[1], 1, "replay", len("Hello, wor"), "server_error")
	if mt, _ := caps(t, h.f.calls[1].request); mt != 2 || h.f.calls[1].mode != "replay" {
		t.Errorf("continuation %s with max_tokens %d; want a replay with the client's 2", h.f.calls[1].mode, mt)
	}
}

// A replay generates the whole answer again: it keeps the client's cap.
func TestContinueByReplayKeepsTheCap(t *testing.T) {
	h := newContHarness(t, `{name: r, targets: [a, c], on_stream_cut: continue}`, func(k health.Key, n int) play {
		if n == 1 {
			return cutAfter(2, classify.ServerError)
		}
		return wholePlay
	})
	out, res := h.streamBody(t, "r", `{"model":"r","stream":true,"max_completion_tokens":30,"messages":[{"role":"user","content":"hi"}]}`)
	wantClean(t, out, res)
	if _, mc := caps(t, h.f.calls[1].request); mc != 30 || h.f.calls[1].mode != "replay" {
		t.Errorf("continuation %s with max_completion_tokens %d; want a replay with 30", h.f.calls[1].mode, mc)
	}
}
