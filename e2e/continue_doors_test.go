package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/responses"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Mid-stream continuation at the other doors that stream (issue 11, item
// 4): the cut is continued behind the Seam, and the door's encoder sees one
// canonical stream, so the client of /v1/responses gets one response —
// one response.created, one id, strictly increasing sequence numbers, one
// response.completed — with the whole answer. The fakes and the config are
// those of continue_test.go.

// responsesRun is what a /v1/responses stream client saw.
type responsesRun struct {
	events []responses.ResponseStreamEventUnion
	text   string // the output_text deltas, joined
	acc    *responses.Response
	err    error
}

// count is how many events of type kind the client got.
func (r responsesRun) count(kind string) int {
	n := 0
	for _, ev := range r.events {
		if ev.Type == kind {
			n++
		}
	}
	return n
}

// streamContinued streams route r through the SDK's Responses client,
// feeding every event to its accumulator (which rejects events out of
// protocol) until the first it refuses.
func streamContinued(t *testing.T, g *gateway) responsesRun {
	t.Helper()
	s := sdk(g).Responses.NewStreaming(context.Background(), say("r", "hi"))
	var run responsesRun
	var acc responses.ResponseAccumulator
	var accErr error
	for s.Next() {
		ev := s.Current()
		run.events = append(run.events, ev)
		if ev.Type == "response.output_text.delta" {
			run.text += ev.Delta
		}
		var sev responses.ResponsesServerEventUnion
		if err := json.Unmarshal([]byte(ev.RawJSON()), &sev); err != nil {
			t.Fatalf("%s: %v", ev.Type, err)
		}
		// The accumulator takes the error event for the failure it is.
		if accErr == nil && ev.Type != "error" {
			if err := acc.AddEvent(sev); err != nil {
				accErr = err
				t.Errorf("%s: the SDK's accumulator refused it: %v\n%s", ev.Type, err, ev.RawJSON())
			}
		}
	}
	run.err = s.Err()
	if accErr == nil && run.err == nil && run.count("response.completed") > 0 {
		r, err := acc.ReconstructedResponse()
		if err != nil {
			t.Errorf("accumulator: %v", err)
		}
		run.acc = r
	}
	return run
}

// wantOneResponse checks the events are one response: response.created
// first and once, sequence numbers strictly increasing, the same response
// id on every event that carries one, no error event but the one right
// before response.failed (docs/doors.md), and (when ended) exactly one
// terminal event of the kind given.
func wantOneResponse(t *testing.T, run responsesRun, end string) {
	t.Helper()
	if len(run.events) == 0 {
		t.Fatalf("no events (error %v)", run.err)
	}
	if run.events[0].Type != "response.created" || run.count("response.created") != 1 {
		t.Errorf("%d response.created, first event %s", run.count("response.created"), run.events[0].Type)
	}
	id := run.events[0].Response.ID
	if id == "" {
		t.Errorf("response.created without an id: %s", run.events[0].RawJSON())
	}
	for i, ev := range run.events {
		if i > 0 && ev.SequenceNumber <= run.events[i-1].SequenceNumber {
			t.Errorf("event %d (%s) has sequence_number %d after %d", i, ev.Type, ev.SequenceNumber, run.events[i-1].SequenceNumber)
		}
		if ev.JSON.Response.Valid() && ev.Response.ID != id {
			t.Errorf("event %d (%s) names response %q in a stream of %q", i, ev.Type, ev.Response.ID, id)
		}
	}
	for _, kind := range []string{"response.completed", "response.failed", "response.incomplete", "error"} {
		want := 0
		if kind == end || kind == "error" && end == "response.failed" {
			want = 1
		}
		if n := run.count(kind); n != want {
			t.Errorf("%d %s events, want %d", n, kind, want)
		}
	}
	if last := run.events[len(run.events)-1]; last.Type != end {
		t.Errorf("last event %s, want %s", last.Type, end)
	}
	if n := len(run.events); end == "response.failed" && n > 1 && run.events[n-2].Type != "error" {
		t.Errorf("event before response.failed %s, want error", run.events[n-2].Type)
	}
}

// Scenario 1 at /v1/responses: cut after 40 of 60 tokens, no terminating
// chunk; the fallback takes no prefill and replays.
func TestResponsesContinueCutAfter40Of60ByReplay(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"one": script(primary(40, false)), "two": model{dialect: "openai", per: 3}.script(t)})
	g := start(t, contCfg("openai", "", continueOpts), fs)
	run := streamContinued(t, g)
	if run.err != nil || run.text != whole60 {
		t.Fatalf("client assembled %q (error %v), want the whole answer", run.text, run.err)
	}
	wantOneResponse(t, run, "response.completed")
	if run.acc == nil || run.acc.OutputText() != whole60 || run.acc.Status != "completed" {
		t.Errorf("accumulated response %+v", run.acc)
	}
	done := run.events[len(run.events)-1].AsResponseCompleted()
	if done.Response.OutputText() != whole60 || done.Response.Model != "primary-model" {
		t.Errorf("response.completed: text %q model %q", done.Response.OutputText(), done.Response.Model)
	}
	rec := g.recs.wait(t, 1)
	wantSteps(t, rec, "first/one server_error next_target", "second/two ok done")
	wantCont(t, rec.Attempts[1], "replay", len(strings.Join(answer60[:40], "")), "server_error")
	if rec.API != "responses" || rec.Outcome != "ok" {
		t.Errorf("record api %s outcome %s", rec.API, rec.Outcome)
	}
	// The replay reported 5 prompt and 20 completion tokens; the cut
	// primary reported none: the record's usage is a lower bound, and says so.
	if u := rec.Usage; u == nil || u.PromptTokens != 5 || u.CompletionTokens != 20 || !u.Incomplete {
		t.Errorf("record usage %+v, want 5 + 20, incomplete", u)
	}
}

// A stream that was not cut has complete usage: no "incomplete" in its
// record, on a route that continues cuts.
func TestResponsesContinueRouteUncutUsageComplete(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"one": model{dialect: "openai", per: 6}.script(t), "two": model{dialect: "openai", per: 3}.script(t)})
	g := start(t, contCfg("openai", "", continueOpts), fs)
	run := streamContinued(t, g)
	if run.err != nil || run.text != whole60 {
		t.Fatalf("client assembled %q (error %v)", run.text, run.err)
	}
	wantOneResponse(t, run, "response.completed")
	rec := g.recs.wait(t, 1)
	if u := rec.Usage; u == nil || u.CompletionTokens != 10 || u.Incomplete {
		t.Errorf("record usage %+v, want 10 completion tokens, complete", u)
	}
}

// Scenario 3 at /v1/responses: the fallback refuses the prefill with a
// 400; the client never sees it, the replay delivers the answer.
func TestResponsesContinuePrefillRefusedThenReplay(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"one": script(primary(40, false)), "two": model{dialect: "anthropic", per: 4, refuse: true}.script(t)})
	g := start(t, contCfg("anthropic", "", continueOpts), fs)
	run := streamContinued(t, g)
	if run.err != nil || run.text != whole60 {
		t.Fatalf("client assembled %q (error %v), want the whole answer", run.text, run.err)
	}
	wantOneResponse(t, run, "response.completed")
	if run.acc == nil || run.acc.OutputText() != whole60 {
		t.Errorf("accumulated response %+v", run.acc)
	}
	rec := g.recs.wait(t, 1)
	wantSteps(t, rec, "first/one server_error next_target", "second/two unknown retry", "second/two ok done")
	offset := len(strings.Join(answer60[:40], ""))
	wantCont(t, rec.Attempts[1], "prefill", offset, "server_error")
	wantCont(t, rec.Attempts[2], "replay", offset, "server_error")
}

// A replay that diverges at /v1/responses ends the one response with an
// error event and response.failed: the text delivered so far intact,
// nothing of the other answer. openai-go raises at the error event (its
// nested "error", round 56), so the client learns the answer is cut; the
// wire's response.failed after it is internal/door/responses's test.
func TestResponsesContinueReplayDiverges(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"one": script(primary(40, false)),
		"two": upstreamtest.Steps(okStream("fallback-model", "Once upon", " another time"))})
	g := start(t, contCfg("openai", "", continueOpts), fs)
	run := streamContinued(t, g)
	delivered := strings.Join(answer60[:40], "")
	if run.err == nil || !strings.Contains(run.err.Error(), "diverged") || run.text != delivered {
		t.Fatalf("client text %q (error %v), want %q and the divergence as an error", run.text, run.err, delivered)
	}
	if n := run.count("response.created"); n != 1 || run.count("response.completed") != 0 {
		t.Errorf("%d response.created, %d response.completed; want one response, not completed", n, run.count("response.completed"))
	}
	rec := g.recs.wait(t, 1)
	wantSteps(t, rec, "first/one server_error next_target", "second/two server_error stop")
	if rec.Outcome != "error" || rec.Attempts[1].Evidence != "continue:replay-diverged" {
		t.Errorf("record outcome %s, evidence %q", rec.Outcome, rec.Attempts[1].Evidence)
	}
}
