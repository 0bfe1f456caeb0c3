package e2e

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// An upstream whose writer puts a UTF-8 byte order mark before its body
// (.NET's and some Java servers' do) is served and classified as if it had
// none: the whole answer reaches the client, a stream keeps its first
// event, and an error's words decide its class
// (docs/behaviour.md, "How an answer is read").
func TestByteOrderMarkBeforeTheAnswer(t *testing.T) {
	const bom = "\ufeff"
	t.Run("whole answer", func(t *testing.T) {
		fs := fakes(t, map[string]upstreamtest.Script{"p1": script(upstreamtest.Step{Body: bom + upstreamtest.ChatJSON("model-a", "hello")}), "q": script(ok("model-b", "q"))})
		g := start(t, oneEach, fs)
		r := g.post(t, "r", "")
		r.wantStatus(t, 200)
		if c, _ := r.content(t); c != "hello" {
			t.Errorf("content %q", c)
		}
		wantSteps(t, g.recs.wait(t, 1), "a/p1 ok done")
	})
	t.Run("stream", func(t *testing.T) {
		evs := upstreamtest.ChatStream("model-a", "Hel", "lo")[1:] // the first event carries content
		var b strings.Builder
		b.WriteString(bom)
		for _, e := range evs {
			b.WriteString("data: " + e + "\n\n")
		}
		fs := fakes(t, map[string]upstreamtest.Script{
			"p1": script(upstreamtest.Step{Header: map[string]string{"Content-Type": "text/event-stream"}, Body: b.String()}),
			"q":  script(ok("model-b", "q")),
		})
		g := start(t, oneEach, fs)
		r := g.post(t, "r", `,"stream":true`)
		r.wantStatus(t, 200)
		if c, done, _ := r.streamed(t); c != "Hello" || !done {
			t.Errorf("streamed %q (done %t), want Hello", c, done)
		}
	})
	t.Run("error", func(t *testing.T) {
		spent := corpus(t, "openai-insufficient-quota-429")
		spent.Body = bom + spent.Body
		fs := fakes(t, map[string]upstreamtest.Script{"p1": script(spent), "q": script(ok("model-b", "q"))})
		g := start(t, oneEach, fs)
		g.post(t, "r", "").wantStatus(t, 200)
		d := g.recs.wait(t, 1)
		wantSteps(t, d, "a/p1 quota next_target", "b/q ok done")
		if ev := d.Attempts[0].Evidence; ev == "status:429" {
			t.Errorf("evidence %q: the body was not read", ev)
		}
		for _, a := range g.health(t).Accounts {
			if a.Name == "p1" && !strings.HasPrefix(a.CoolingMessage, "You exceeded your current quota") {
				t.Errorf("the account's cooling message %q is not the upstream's", a.CoolingMessage)
			}
		}
	})
}
