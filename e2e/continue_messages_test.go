package e2e

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Mid-stream continuation at /v1/messages (issue 11, item 4), through the
// official Anthropic SDK: a translated stream (non-Anthropic targets) is
// continued behind the Seam, so the messages.Encoder sees one canonical
// stream and the client gets one Message — one message_start, one text
// block, one stop_reason, one message_stop. The fakes and the config are
// those of continue_test.go.

// messagesRun is what a /v1/messages stream client saw.
type messagesRun struct {
	types []string          // the event types, in order (the SDK drops pings)
	msg   anthropic.Message // what Message.Accumulate assembled
	err   error
}

func (r messagesRun) count(kind string) int {
	n := 0
	for _, t := range r.types {
		if t == kind {
			n++
		}
	}
	return n
}

// streamMessages streams route r through the Anthropic SDK, accumulating
// every event into one Message.
func streamMessages(t *testing.T, g *gateway) messagesRun {
	t.Helper()
	st := anthropicSDK(g, nil).Messages.NewStreaming(context.Background(), askClaude("r", "hi"))
	var run messagesRun
	for st.Next() {
		ev := st.Current()
		run.types = append(run.types, ev.Type)
		if ev.Type == "content_block_start" && ev.Index != int64(run.count("content_block_start")-1) {
			t.Errorf("content_block_start at index %d, block %d of the stream", ev.Index, run.count("content_block_start"))
		}
		if err := run.msg.Accumulate(ev); err != nil {
			t.Errorf("%s: the SDK's accumulator refused it: %v\n%s", ev.Type, err, ev.RawJSON())
		}
	}
	run.err = st.Err()
	return run
}

// wantOneMessage checks the events are one message with one text block:
// message_start first and once, one content_block_start/stop pair, at
// most one message_delta (the stop reason) and message_stop when ended.
func wantOneMessage(t *testing.T, run messagesRun, ended bool) {
	t.Helper()
	if len(run.types) == 0 || run.types[0] != "message_start" || run.count("message_start") != 1 {
		t.Fatalf("events %v: want one message_start, first", run.types)
	}
	end := 0
	if ended {
		end = 1
	}
	if run.count("content_block_start") != 1 || run.count("content_block_stop") != end ||
		run.count("message_delta") != end || run.count("message_stop") != end {
		t.Errorf("events %s: want one text block and %d message_delta, message_stop", strings.Join(run.types, ","), end)
	}
	if len(run.msg.Content) != 1 || run.msg.Content[0].Type != "text" {
		t.Errorf("message content %+v, want one text block", run.msg.Content)
	}
	if ended && run.types[len(run.types)-1] != "message_stop" {
		t.Errorf("last event %s", run.types[len(run.types)-1])
	}
}

// Scenario 1 at /v1/messages: cut after 40 of 60 tokens, no terminating
// chunk; the fallback takes no prefill and replays.
func TestMessagesContinueCutAfter40Of60ByReplay(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"one": script(primary(40, false)), "two": model{dialect: "openai", per: 3}.script(t)})
	g := start(t, contCfg("openai", "", continueOpts), fs)
	run := streamMessages(t, g)
	if run.err != nil || claudeText(&run.msg) != whole60 {
		t.Fatalf("client assembled %q (error %v), want the whole answer", claudeText(&run.msg), run.err)
	}
	wantOneMessage(t, run, true)
	if run.msg.StopReason != "end_turn" || run.msg.Model != "primary-model" {
		t.Errorf("message stop_reason %q model %q", run.msg.StopReason, run.msg.Model)
	}
	rec := g.recs.wait(t, 1)
	wantSteps(t, rec, "first/one server_error next_target", "second/two ok done")
	wantCont(t, rec.Attempts[1], "replay", len(strings.Join(answer60[:40], "")), "server_error")
	if rec.API != "messages" || rec.Outcome != "ok" {
		t.Errorf("record api %s outcome %s", rec.API, rec.Outcome)
	}
}

// Scenario 3 at /v1/messages: the same cut; the fallback, declared to take
// a prefill, refuses it with the 400; the client never sees it, the replay
// delivers the answer. Both with an OpenAI-dialect fallback (prefill:
// true) and with an Anthropic one (prefill by default), whose continuation
// speaks canonical chat like the stream it continues, never natively.
func TestMessagesContinuePrefillRefusedThenReplay(t *testing.T) {
	for _, tc := range []struct{ dialect, prefill string }{{"openai", ", prefill: true"}, {"anthropic", ""}} {
		t.Run(tc.dialect, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"one": script(primary(40, false)), "two": model{dialect: tc.dialect, per: 4, refuse: true}.script(t)})
			g := start(t, contCfg(tc.dialect, tc.prefill, continueOpts), fs)
			run := streamMessages(t, g)
			if run.err != nil || claudeText(&run.msg) != whole60 {
				t.Fatalf("client assembled %q (error %v), want the whole answer", claudeText(&run.msg), run.err)
			}
			wantOneMessage(t, run, true)
			if run.msg.StopReason != "end_turn" {
				t.Errorf("stop_reason %q", run.msg.StopReason)
			}
			rec := g.recs.wait(t, 1)
			wantSteps(t, rec, "first/one server_error next_target", "second/two unknown retry", "second/two ok done")
			offset := len(strings.Join(answer60[:40], ""))
			wantCont(t, rec.Attempts[1], "prefill", offset, "server_error")
			wantCont(t, rec.Attempts[2], "replay", offset, "server_error")
			if fs["two"].Calls() != 2 {
				t.Errorf("fallback called %d times", fs["two"].Calls())
			}
		})
	}
}

// A replay that diverges at /v1/messages ends the one message with
// Anthropic's error event: the text delivered so far intact, nothing of the
// other answer, no stop_reason.
func TestMessagesContinueReplayDiverges(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"one": script(primary(40, false)),
		"two": upstreamtest.Steps(okStream("fallback-model", "Once upon", " another time"))})
	g := start(t, contCfg("openai", "", continueOpts), fs)
	run := streamMessages(t, g)
	delivered := strings.Join(answer60[:40], "")
	if claudeText(&run.msg) != delivered {
		t.Errorf("client text %q, want %q", claudeText(&run.msg), delivered)
	}
	var apiErr *anthropic.Error
	if !errors.As(run.err, &apiErr) || !strings.Contains(apiErr.Error(), "api_error") || !strings.Contains(apiErr.Error(), "diverged") {
		t.Fatalf("stream error %v, want Anthropic's error event (api_error, diverged)", run.err)
	}
	wantOneMessage(t, run, false)
	if run.msg.StopReason != "" {
		t.Errorf("stop_reason %q on a failed stream", run.msg.StopReason)
	}
	rec := g.recs.wait(t, 1)
	wantSteps(t, rec, "first/one server_error next_target", "second/two server_error stop")
	if rec.Outcome != "error" || rec.Attempts[1].Evidence != "continue:replay-diverged" {
		t.Errorf("record outcome %s, evidence %q", rec.Outcome, rec.Attempts[1].Evidence)
	}
}

// A native passthrough stream (an Anthropic target behind /v1/messages) is
// never continued, on a route that continues cuts: the client has the
// upstream's own events, which the Seam cannot read. A cut ends it with
// Anthropic's error event after the text so far, and the fallback is never
// asked (docs/behaviour.md, "Streams").
func TestMessagesContinueNativeNotContinued(t *testing.T) {
	cut := anthropicStream(answer60[:40])[:2+40] // message_start, content_block_start, 40 deltas: cut
	fs := fakes(t, map[string]upstreamtest.Script{"one": script(upstreamtest.Step{Events: cut, Cut: true}),
		"two": model{dialect: "openai", per: 3}.script(t)})
	g := start(t, `
providers:
  - {name: one, dialect: anthropic, base_url: "{one}", api_key: `+secret+`}
  - {name: two, dialect: openai, base_url: "{two}", api_key: `+secret+`}
targets:
  - {name: first, model: claude-sonnet-4-5, providers: [one]}
  - {name: second, model: fallback-model, providers: [two]}
routes:
  - {name: r, targets: [first, second], on_stream_cut: continue}
`, fs)
	run := streamMessages(t, g)
	delivered := strings.Join(answer60[:40], "")
	var apiErr *anthropic.Error
	if claudeText(&run.msg) != delivered || !errors.As(run.err, &apiErr) {
		t.Fatalf("client text %q (error %v), want %q then Anthropic's error event", claudeText(&run.msg), run.err, delivered)
	}
	wantOneMessage(t, run, false)
	if run.msg.ID != "msg_01" {
		t.Errorf("message id %q, want the upstream's own", run.msg.ID)
	}
	rec := g.recs.wait(t, 1)
	wantSteps(t, rec, "first/one server_error stop")
	if fs["two"].Calls() != 0 || rec.Outcome != "error" {
		t.Errorf("fallback called %d times, outcome %s", fs["two"].Calls(), rec.Outcome)
	}
}
