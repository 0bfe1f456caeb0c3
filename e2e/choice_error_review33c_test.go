package e2e

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// choiceError is a chunk whose one choice failed in-band, as OpenRouter
// sends a failure that comes after its 200 (finish_reason "error", the
// error object in the choice; docs/behaviour.md, "Streams").
const choiceError = `{"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"model-a","choices":[{"index":0,"delta":{"content":""},"finish_reason":"error","error":{"code":502,"message":"Upstream error from provider-x: connection reset"}}]}`

// TestStreamChoiceErrorBeforeContentFailsOver: before anything reached the
// client, a choice that failed is a failed attempt and the route moves on
// (the classifier reads the first event; this guards it beside the fix
// below).
func TestStreamChoiceErrorBeforeContentFailsOver(t *testing.T) {
	ev := append(chunks("model-a")[:1], choiceError)
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(ok("x", "x")),
		"p": script(upstreamtest.Step{Events: ev}), "q": script(okStream("model-b", "oth", "er"))})
	g := start(t, streamCfg, fs)
	r := g.post(t, "r", stream)
	r.wantStatus(t, 200)
	content, done, errEv := r.streamed(t)
	if content != "other" || !done || errEv {
		t.Errorf("client stream: content %q done %v error %v\n%s", content, done, errEv, r.Body)
	}
	if strings.Contains(string(r.Body), "provider-x") {
		t.Errorf("the failed choice reached the client:\n%s", r.Body)
	}
	d := g.recs.wait(t, 1)
	if a := d.Attempts[0]; a.Target != "a" || a.Class == "" || a.Action == "done" {
		t.Errorf("first attempt %+v, want a failure of a", a)
	}
	if last := d.Attempts[len(d.Attempts)-1]; last.Target != "b" || d.Outcome != "ok" {
		t.Errorf("record: outcome %q, last attempt %+v", d.Outcome, last)
	}
}

// TestStreamChoiceErrorAfterContentIsCut: after content went out, a choice
// that failed ends the client's stream with Detour's error event, not the
// upstream's chunk, and the record says error; it was relayed as it came
// and recorded ok (review 33c).
func TestStreamChoiceErrorAfterContentIsCut(t *testing.T) {
	ev := append(chunks("model-a", "Hel"), choiceError)
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(ok("x", "x")),
		"p": script(upstreamtest.Step{Events: ev}), "q": script(okStream("model-b", "other"))})
	g := start(t, streamCfg, fs)
	r := g.post(t, "r", stream)
	r.wantStatus(t, 200)
	content, done, errEv := r.streamed(t)
	if content != "Hel" || done || !errEv {
		t.Errorf("client stream: content %q done %v error event %v\n%s", content, done, errEv, r.Body)
	}
	if strings.Contains(string(r.Body), `"finish_reason":"error"`) {
		t.Errorf("the upstream's failed chunk was relayed:\n%s", r.Body)
	}
	d := g.recs.wait(t, 1)
	if d.Outcome != "error" || d.Attempts[0].Action != "stop" {
		t.Errorf("record: outcome %q attempts %+v", d.Outcome, d.Attempts)
	}
	if fs["q"].Calls() != 0 {
		t.Error("a committed stream failed over")
	}
}
