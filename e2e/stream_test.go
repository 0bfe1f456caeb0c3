package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// docs/behaviour.md#streams: failover until the first content reaches the client;
// after that, never a truncated answer dressed as a success.

// streamCfg: p's first-token and idle timeouts are 1s: far above the gaps
// of a healthy fake stream (none) on a loaded machine, and the silent
// fakes are silent for 10s or until the gateway leaves.
const streamCfg = `
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
  - {name: p, dialect: openai, base_url: "{p}", api_key: ` + secret + `, first_token_timeout: 1s, idle_timeout: 1s}
  - {name: q, dialect: openai, base_url: "{q}", api_key: ` + secret + `}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: a, model: model-a, providers: [p]}
  - {name: b, model: model-b, providers: [q]}
routes:
  - {name: r, targets: [a, b]}
  - {name: c, targets: [claude, b]}
`

const stream = `,"stream":true`

// chunks are OpenAI stream events of model: a role-only chunk, then one
// content chunk per part.
func chunks(model string, parts ...string) []string {
	all := upstreamtest.ChatStream(model, parts...)
	return all[:1+len(parts)]
}

func TestStreamErrorBeforeContentFailsOver(t *testing.T) {
	// message_start (a role-only chunk for the client), then Anthropic's
	// overloaded error event: nothing reached the client yet.
	msgStart := sseBlocks(string(testdata(t, "anthropic", "stream/basic.sse")))[0]
	overloaded := corpus(t, "anthropic-sse-overloaded-error-midstream")
	overloaded.Events = append([]string{msgStart}, overloaded.Events...)
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(overloaded), "p": script(okStream("model-a", "x")), "q": script(okStream("model-b", "Hel", "lo"))})
	g := start(t, streamCfg, fs)
	r := g.post(t, "c", stream)
	r.wantStatus(t, 200)
	content, done, errEv := r.streamed(t)
	if content != "Hello" || !done || errEv {
		t.Errorf("client stream: content %q done %v error %v\n%s", content, done, errEv, r.Body)
	}
	if strings.Count(string(r.Body), `"role":"assistant"`) != 1 {
		t.Errorf("the failed attempt's role chunk reached the client:\n%s", r.Body)
	}
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "claude/anthropic server_error retry", "claude/anthropic server_error next_target", "b/q ok done")
	if r.Header.Get("X-Detour-Target") != "b" || r.Header.Get("X-Detour-Attempts") != "3" {
		t.Errorf("headers %v", r.Header)
	}
	r.wantDate(t)
}

func TestStreamFailsAfterContent(t *testing.T) {
	for _, tc := range []struct {
		name  string
		step  upstreamtest.Step
		class string
	}{
		{"cut", upstreamtest.Step{Events: chunks("model-a", "Hel"), Cut: true}, "server_error"},
		{"stall past idle_timeout", upstreamtest.Step{Events: chunks("model-a", "Hel"), Stall: true}, "timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(ok("x", "x")), "p": script(tc.step), "q": script(okStream("model-b", "other"))})
			g := start(t, streamCfg, fs)
			r := g.post(t, "r", stream)
			r.wantStatus(t, 200) // committed: the headers went with the first content
			content, done, errEv := r.streamed(t)
			if content != "Hel" || done || !errEv {
				t.Errorf("client stream: content %q done %v error event %v\n%s", content, done, errEv, r.Body)
			}
			evs := r.events()
			if last := evs[len(evs)-1]; last.Name != "error" || !strings.Contains(last.Data, `"code":"`+tc.class+`"`) {
				t.Errorf("last event %+v", last)
			}
			d := g.recs.wait(t, 1)
			wantSteps(t, d, "a/p "+tc.class+" stop")
			if !d.Attempts[0].Billable || d.Outcome != "error" || d.Class != tc.class {
				t.Errorf("record: outcome %q class %q attempt %+v", d.Outcome, d.Class, d.Attempts[0])
			}
			if fs["q"].Calls() != 0 {
				t.Error("a committed stream failed over")
			}
		})
	}
}

func TestStreamMalformedChunkSkippedAndCounted(t *testing.T) {
	evs := upstreamtest.ChatStream("model-a", "Hel", "lo")
	evs = append(evs[:2], append([]string{`{"id":"chatcmpl-test","choices":[{"delta":{"content":`}, evs[2:]...)...)
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(ok("x", "x")), "p": script(upstreamtest.Step{Events: evs}), "q": script(okStream("model-b", "other"))})
	g := start(t, streamCfg, fs)
	r := g.post(t, "r", stream)
	r.wantStatus(t, 200)
	if content, done, errEv := r.streamed(t); content != "Hello" || !done || errEv {
		t.Errorf("client stream: content %q done %v error %v", content, done, errEv)
	}
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "a/p ok done")
	if d.Attempts[0].Malformed != 1 {
		t.Errorf("malformed = %d, want 1", d.Attempts[0].Malformed)
	}
}

func TestStreamWithoutDoneIsFinished(t *testing.T) {
	evs := upstreamtest.ChatStream("model-a", "Hel", "lo")
	evs = evs[:len(evs)-1] // no [DONE]; the usage chunk is the last event
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(ok("x", "x")), "p": script(upstreamtest.Step{Events: evs}), "q": script(okStream("model-b", "other"))})
	g := start(t, streamCfg, fs)
	// The client asks for usage: the usage chunk is its to see (usage_test.go).
	r := g.post(t, "r", stream+`,"stream_options":{"include_usage":true}`)
	r.wantStatus(t, 200)
	if content, done, errEv := r.streamed(t); content != "Hello" || !done || errEv {
		t.Errorf("client stream: content %q done %v error %v\n%s", content, done, errEv, r.Body)
	}
	if !strings.Contains(string(r.Body), `"usage":{"prompt_tokens":5`) {
		t.Errorf("usage did not reach the client:\n%s", r.Body)
	}
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "a/p ok done")
	if u := d.Attempts[0].Usage; u == nil || u.TotalTokens != 7 {
		t.Errorf("usage %+v", u)
	}
}

func TestStreamFirstTokenTimeoutFailsOver(t *testing.T) {
	// Headers at once, then nothing with content within first_token_timeout.
	late := upstreamtest.Step{Events: chunks("model-a", "late"), EventDelay: 10 * time.Second}
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(ok("x", "x")), "p": script(late), "q": script(okStream("model-b", "in ", "time"))})
	g := start(t, streamCfg, fs)
	r := g.post(t, "r", stream)
	r.wantStatus(t, 200)
	if content, done, errEv := r.streamed(t); content != "in time" || !done || errEv {
		t.Errorf("client stream: content %q done %v error %v", content, done, errEv)
	}
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "a/p timeout next_target", "b/q ok done")
	if a := d.Attempts[0]; a.Evidence != "timeout:first_token" || !a.Billable {
		t.Errorf("first-token timeout attempt: %+v", a)
	}
}

// An Anthropic refusal that arrives after some text is not a finished
// answer: the stream ends with an error event (class refusal), no [DONE],
// just as the same answer unstreamed is a refusal, and nothing fails over.
func TestStreamRefusalAfterTextEndsWithAnError(t *testing.T) {
	// The events of the SDK's recorded refusal stream, with one text delta
	// (from the recorded basic stream) before the refusal's message_delta.
	refusal := sseBlocks(string(testdata(t, "anthropic", "stream/refusal.sse")))
	var text string
	for _, b := range sseBlocks(string(testdata(t, "anthropic", "stream/basic.sse"))) {
		if strings.Contains(b, "text_delta") {
			text = b
			break
		}
	}
	if len(refusal) < 4 || text == "" {
		t.Fatalf("fixtures changed: %d refusal events, text delta %q", len(refusal), text)
	}
	evs := append(append(append([]string{}, refusal[:2]...), text), refusal[2:]...)
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(upstreamtest.Step{Events: evs}),
		"p": script(okStream("model-a", "x")), "q": script(okStream("model-b", "never"))})
	g := start(t, streamCfg, fs)
	r := g.post(t, "c", stream)
	r.wantStatus(t, 200)
	content, done, errEv := r.streamed(t)
	if content == "" || done || !errEv || !strings.Contains(string(r.Body), `"code":"content_filter"`) {
		t.Errorf("client stream: content %q done %v error event %v\n%s", content, done, errEv, r.Body)
	}
	wantSteps(t, g.recs.wait(t, 1), "claude/anthropic refusal stop")
	if fs["q"].Calls() != 0 {
		t.Errorf("a refusal was replayed at another vendor")
	}
}
