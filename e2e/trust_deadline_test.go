package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Issue 8: the route's deadline is the request's own limit, nobody's fault.
// It applies until the first content reaches the client (while failover is
// still possible); a committed stream is bounded by idle_timeout and the
// optional max_stream_duration. No expiry of either counts against health.

func deadlineCfg(route string) string {
	return `
health: {failure_threshold: 1, cooldown: 1m, max_cooldown: 5m}
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: ` + secret + `}
  - {name: q, dialect: openai, base_url: "{q}", api_key: ` + secret + `}
targets:
  - {name: a, model: model-a, providers: [p]}
  - {name: b, model: model-b, providers: [q]}
routes:
  - ` + route + `
`
}

// wantUnblamed fails unless endpoint a/p has no counted failure, is healthy,
// and the record has no transition.
func wantUnblamed(t *testing.T, g *gateway, d *decision.Decision) {
	t.Helper()
	for _, a := range d.Attempts {
		if a.Counted {
			t.Errorf("attempt counted against health: %+v", a)
		}
	}
	if len(d.Transitions) != 0 {
		t.Errorf("transitions %+v", d.Transitions)
	}
	for _, e := range g.health(t).Endpoints {
		if e.Target == "a" && (e.Failures != 0 || e.State != "healthy" || e.LastClass != "") {
			t.Errorf("endpoint a/p after the deadline: %+v", e)
		}
	}
}

// A healthy long generation outlives the route's deadline: the deadline
// stops applying once the stream is committed. The first content comes
// 600ms after the request reaches the fake, well inside the 2.5s deadline
// even on a loaded machine; the last comes at 3.3s at the earliest, past it.
func TestDeadlineDoesNotCutACommittedStream(t *testing.T) {
	t.Parallel() // seconds of waiting (or CPU) each: overlap them
	parts := strings.Split("one two three four five six seven eight nine ten", " ")
	long := upstreamtest.Step{Events: upstreamtest.ChatStream("model-a", parts...), EventDelay: 300 * time.Millisecond}
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(long), "q": script(okStream("model-b", "never"))})
	g := start(t, deadlineCfg(`{name: r, targets: [a, b], deadline: 2500ms}`), fs)
	r := g.post(t, "r", stream)
	r.wantStatus(t, 200)
	if content, done, errEv := r.streamed(t); content != strings.Join(parts, "") || !done || errEv {
		t.Errorf("client stream: content %q done %v error event %v\n%s", content, done, errEv, r.Body)
	}
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "a/p ok done")
	wantUnblamed(t, g, d)
}

// A deadline that passes before the first content is the request's limit:
// the attempt is a timeout naming the deadline, counted against nobody, and
// nothing further is tried.
func TestDeadlineBeforeContentCountsAgainstNobody(t *testing.T) {
	for _, tc := range []struct {
		name   string
		step   upstreamtest.Step
		stream bool
	}{
		{"no headers yet", upstreamtest.Step{Body: upstreamtest.ChatJSON("model-a", "late"), Delay: 10 * time.Second}, false},
		{"stream: headers, no content yet", upstreamtest.Step{Events: chunks("model-a", "late"), EventDelay: 10 * time.Second}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"p": script(tc.step), "q": script(ok("model-b", "never"))})
			g := start(t, deadlineCfg(`{name: r, targets: [a, b], deadline: 300ms}`), fs)
			extra := ""
			if tc.stream {
				extra = stream
			}
			r := g.post(t, "r", extra)
			r.wantStatus(t, 504)
			d := g.recs.wait(t, 1)
			wantSteps(t, d, "a/p timeout stop")
			if a := d.Attempts[0]; a.Evidence != "timeout:deadline" {
				t.Errorf("attempt %+v", a)
			}
			wantUnblamed(t, g, d)
			if fs["q"].Calls() != 0 {
				t.Error("the walk went on after its deadline")
			}
		})
	}
}

// max_stream_duration bounds a committed stream; its expiry ends the stream
// with an error event and blames nobody.
func TestMaxStreamDurationEndsAStreamWithoutBlame(t *testing.T) {
	parts := strings.Split(strings.Repeat("x", 40), "")
	long := upstreamtest.Step{Events: upstreamtest.ChatStream("model-a", parts...), EventDelay: 100 * time.Millisecond}
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(long), "q": script(okStream("model-b", "never"))})
	g := start(t, deadlineCfg(`{name: r, targets: [a, b], max_stream_duration: 600ms}`), fs)
	r := g.post(t, "r", stream)
	r.wantStatus(t, 200)
	content, done, errEv := r.streamed(t)
	if content == "" || len(content) >= len(parts) || done || !errEv {
		t.Errorf("client stream: content %q done %v error event %v\n%s", content, done, errEv, r.Body)
	}
	evs := r.events()
	if last := evs[len(evs)-1]; last.Name != "error" || !strings.Contains(last.Data, `"code":"timeout"`) {
		t.Errorf("last event %+v", last)
	}
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "a/p timeout stop")
	if a := d.Attempts[0]; a.Evidence != "timeout:max_stream_duration" || !a.Billable {
		t.Errorf("attempt %+v", a)
	}
	wantUnblamed(t, g, d)
	if fs["q"].Calls() != 0 {
		t.Error("a committed stream failed over")
	}
}
