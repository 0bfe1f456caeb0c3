package e2e

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Issue 8, "trust under hostile input": an upstream stream that stops without
// saying it is finished was cut, whatever the dialect. After the first
// content it ends with an error event, never with [DONE]; an upstream that
// did say it was finished (a finish reason) but left out its end marker
// still completes.

const dialectStreams = `
providers:
  - {name: o, dialect: openai, base_url: "{o}", api_key: ` + secret + `}
  - {name: an, dialect: anthropic, base_url: "{an}", api_key: ` + secret + `}
  - {name: ge, dialect: gemini, base_url: "{ge}", api_key: ` + secret + `}
  - {name: q, dialect: openai, base_url: "{q}", api_key: ` + secret + `}
targets:
  - {name: gpt, model: gpt-4o, providers: [o]}
  - {name: claude, model: claude-sonnet-4-5, providers: [an]}
  - {name: gem, model: gemini-2.0-flash, providers: [ge]}
  - {name: b, model: model-b, providers: [q]}
routes:
  - {name: via-gpt, targets: [gpt, b]}
  - {name: via-claude, targets: [claude, b]}
  - {name: via-gem, targets: [gem, b]}
`

// blocksUntil returns the SSE blocks of an adapter's stream fixture, without
// every block that contains one of drop.
func blocksWithout(t *testing.T, dialect, file string, drop ...string) []string {
	t.Helper()
	var out []string
next:
	for _, b := range sseBlocks(string(testdata(t, dialect, file))) {
		for _, d := range drop {
			if strings.Contains(b, d) {
				continue next
			}
		}
		out = append(out, b)
	}
	return out
}

func dialectFakes(t *testing.T, o, an, ge upstreamtest.Step) map[string]*upstreamtest.Server {
	return fakes(t, map[string]upstreamtest.Script{"o": script(o), "an": script(an), "ge": script(ge),
		"q": script(okStream("model-b", "never"))})
}

func TestStreamEndingWithoutFinishIsCut(t *testing.T) {
	unused := okStream("x", "unused")
	for _, tc := range []struct {
		name, route, ep string
		o, an, ge       upstreamtest.Step
		content         string
	}{
		{"openai: no finish_reason, no [DONE]", "via-gpt", "gpt/o",
			upstreamtest.Step{Events: chunks("gpt-4o", "Hel", "lo")}, unused, unused, "Hello"},
		{"anthropic: no stop_reason, no message_stop", "via-claude", "claude/an",
			unused, upstreamtest.Step{Events: blocksWithout(t, "anthropic", "stream/basic.sse", "message_delta", "message_stop")}, unused,
			"Hello there!"},
		{"gemini: no finishReason", "via-gem", "gem/ge",
			unused, unused, upstreamtest.Step{Events: blocksWithout(t, "gemini", "stream/basic.sse", "finishReason")},
			"The capital of Wyoming"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := dialectFakes(t, tc.o, tc.an, tc.ge)
			g := start(t, dialectStreams, fs)
			r := g.post(t, tc.route, stream)
			r.wantStatus(t, 200) // committed with the first content
			content, done, errEv := r.streamed(t)
			if content != tc.content || done || !errEv {
				t.Errorf("client stream: content %q done %v error event %v\n%s", content, done, errEv, r.Body)
			}
			evs := r.events()
			if last := evs[len(evs)-1]; last.Name != "error" || !strings.Contains(last.Data, `"code":"server_error"`) {
				t.Errorf("last event %+v", last)
			}
			d := g.recs.wait(t, 1)
			wantSteps(t, d, tc.ep+" server_error stop")
			a := d.Attempts[0]
			if a.Evidence != "stream:eof-no-finish" || !a.Billable || !a.Counted || d.Outcome != "error" || d.Class != "server_error" {
				t.Errorf("record: outcome %q class %q attempt %+v", d.Outcome, d.Class, a)
			}
			if fs["q"].Calls() != 0 {
				t.Error("a committed stream failed over")
			}
		})
	}
}

// Before the first content, the same silent end fails over like any other
// server error.
func TestStreamEndingWithoutFinishBeforeContentFailsOver(t *testing.T) {
	roleOnly := upstreamtest.Step{Events: chunks("gpt-4o")}
	fs := dialectFakes(t, roleOnly, okStream("x", "unused"), okStream("x", "unused"))
	fs["q"].SetScript(script(okStream("model-b", "from ", "b")))
	g := start(t, dialectStreams, fs)
	r := g.post(t, "via-gpt", stream)
	r.wantStatus(t, 200)
	if content, done, errEv := r.streamed(t); content != "from b" || !done || errEv {
		t.Errorf("client stream: content %q done %v error event %v\n%s", content, done, errEv, r.Body)
	}
	wantSteps(t, g.recs.wait(t, 1), "gpt/o server_error retry", "gpt/o server_error next_target", "b/q ok done")
}

// A finish reason without the end marker is a finished answer: [DONE] is
// added (OpenAI: TestStreamWithoutDoneIsFinished).
func TestStreamWithStopReasonButNoEndMarkerCompletes(t *testing.T) {
	evs := blocksWithout(t, "anthropic", "stream/basic.sse", "message_stop")
	fs := dialectFakes(t, okStream("x", "unused"), upstreamtest.Step{Events: evs}, okStream("x", "unused"))
	g := start(t, dialectStreams, fs)
	r := g.post(t, "via-claude", stream)
	r.wantStatus(t, 200)
	if content, done, errEv := r.streamed(t); content != "Hello there!" || !done || errEv {
		t.Errorf("client stream: content %q done %v error event %v\n%s", content, done, errEv, r.Body)
	}
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "claude/an ok done")
	if d.Outcome != "ok" {
		t.Errorf("outcome %q", d.Outcome)
	}
}
