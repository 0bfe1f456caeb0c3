package dispatch_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/dispatch"
	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// rawClient records the chunks an Output receives, and the commit.
type rawClient struct {
	commit dispatch.Commit
	chunks []string
	ended  bool
	failed *dispatch.Failure
}

func (c *rawClient) Commit(x dispatch.Commit) error { c.commit = x; return nil }
func (c *rawClient) Chunk(b []byte) error           { c.chunks = append(c.chunks, string(b)); return nil }
func (c *rawClient) End() error                     { c.ended = true; return nil }
func (c *rawClient) Flush() error                   { return nil }
func (c *rawClient) Fail(f *dispatch.Failure) error { c.failed = f; return nil }

// nativeDispatcher serves route "r": target a on an anthropic-dialect
// provider, then target b on an openai-dialect one.
func nativeDispatcher(t *testing.T, a, b upstreamtest.Script) (*dispatch.Dispatcher, *upstreamtest.Server, *upstreamtest.Server) {
	t.Helper()
	ua, ub := upstreamtest.New(a), upstreamtest.New(b)
	t.Cleanup(ua.Close)
	t.Cleanup(ub.Close)
	yaml := `providers:
  - {name: pa, dialect: anthropic, base_url: "` + ua.URL + `", api_key: sk-ant}
  - {name: pb, dialect: openai, base_url: "` + ub.URL + `/v1", api_key: sk-test}
targets:
  - {name: a, model: claude-x, providers: [pa]}
  - {name: b, model: gpt-x, providers: [pb]}
routes:
  - {name: r, targets: [a, b]}
`
	d := abDispatcher(t, yaml)
	return d, ua, ub
}

const nativeBody = `{ "model" : "r", "max_tokens": 1e3, "messages":[{"role":"user","content":"h\u0069"}], "weird": {"kept": true}}`

func nativeCall(stream bool, out dispatch.Output) *dispatch.Call {
	h := http.Header{}
	h.Set("anthropic-version", "2023-06-01")
	h.Set("anthropic-beta", "interleaved-thinking-2025-05-14")
	return &dispatch.Call{Model: "r", Stream: stream, Out: out, ID: "id", API: "messages",
		Body:   []byte(`{"model":"r","max_completion_tokens":1000,"messages":[{"role":"user","content":"hi"}]}`),
		Native: &dispatch.Native{API: provider.APIMessages, Body: []byte(nativeBody), Header: h}}
}

const anthropicAnswer = `{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":"hello"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":2}}`

// An Anthropic target gets the client's own body, only "model" replaced,
// at /v1/messages with the client's anthropic-* headers, and its answer
// comes back as it came.
func TestNativeWholeAnswerPassesThrough(t *testing.T) {
	d, ua, _ := nativeDispatcher(t, upstreamtest.Steps(upstreamtest.Step{Body: anthropicAnswer}), upstreamtest.Steps(upstreamtest.Step{Status: 500}))
	res := d.Do(context.Background(), nativeCall(false, nil))
	if res.Failure != nil || !res.Native || string(res.Body) != anthropicAnswer {
		t.Fatalf("result native=%v failure=%v body %s", res.Native, res.Failure, res.Body)
	}
	req := ua.Requests()[0]
	want := strings.Replace(nativeBody, `"r"`, `"claude-x"`, 1)
	if req.Path != "/v1/messages" || string(req.Body) != want {
		t.Errorf("upstream got %s %s\nwant body %s", req.Path, req.Body, want)
	}
	if req.Header.Get("Anthropic-Beta") != "interleaved-thinking-2025-05-14" || req.Header.Get("X-Api-Key") != "sk-ant" {
		t.Errorf("upstream headers %v", req.Header)
	}
	if u := res.Decision.Usage; u == nil || u.PromptTokens != 3 {
		t.Errorf("record usage %+v", res.Decision.Usage)
	}
}

// A native stream relays each upstream event's raw data; the commit says
// Native.
func TestNativeStreamRelaysRawEvents(t *testing.T) {
	events := []string{
		`event: message_start` + "\n" + `data: {"type":"message_start","message":{"id":"msg_1","model":"claude-x","usage":{"input_tokens":3,"output_tokens":0}}}`,
		`event: content_block_start` + "\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`,
		`event: content_block_delta` + "\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}`,
		`event: content_block_stop` + "\n" + `data: {"type":"content_block_stop","index":0}`,
		`event: message_delta` + "\n" + `data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}`,
		`event: message_stop` + "\n" + `data: {"type":"message_stop"}`,
	}
	d, _, _ := nativeDispatcher(t, upstreamtest.Steps(upstreamtest.Step{Events: events}), upstreamtest.Steps(upstreamtest.Step{Status: 500}))
	c := &rawClient{}
	res := d.Do(context.Background(), nativeCall(true, c))
	if res.Failure != nil || !res.Committed || !c.ended || !c.commit.Native || c.commit.Target != "a" {
		t.Fatalf("result %+v, client %+v", res, c)
	}
	if len(c.chunks) != len(events) {
		t.Fatalf("got %d chunks, want %d: %q", len(c.chunks), len(events), c.chunks)
	}
	for i, ev := range events {
		if _, data, _ := strings.Cut(ev, "data: "); c.chunks[i] != data {
			t.Errorf("chunk %d = %s\nwant %s", i, c.chunks[i], data)
		}
	}
}

// An overloaded Anthropic target (529) fails over to the OpenAI target,
// which gets the canonical body; the client gets canonical chunks.
func TestNativeFailoverTranslates(t *testing.T) {
	overloaded := upstreamtest.Step{Status: 529, Body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}
	d, _, ub := nativeDispatcher(t, upstreamtest.Steps(overloaded, overloaded),
		upstreamtest.Steps(upstreamtest.Step{Events: upstreamtest.ChatStream("gpt-x", "x")}))
	c := &rawClient{}
	res := d.Do(context.Background(), nativeCall(true, c))
	if res.Failure != nil || c.commit.Native || c.commit.Target != "b" || !c.ended {
		t.Fatalf("result %+v, commit %+v", res, c.commit)
	}
	if got := ub.Requests()[0]; got.Path != "/v1/chat/completions" || !bytes.Contains(got.Body, []byte(`"model":"gpt-x"`)) || got.Header.Get("Anthropic-Beta") != "" {
		t.Errorf("openai target got %s %s %v", got.Path, got.Body, got.Header)
	}
}

// A request without a translation fails as "translate" at a target that
// does not serve its API, and the walk moves on. That pass-over is no
// one's answer: the client is told the failure of the target that took
// the request (an overloaded Anthropic, which its SDK retries), not a 400
// for a translation it never needed (review 43f).
func TestNativeUntranslatedSkipsTranslatedTargets(t *testing.T) {
	overloaded := upstreamtest.Step{Status: 529, Body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}
	d, _, ub := nativeDispatcher(t, upstreamtest.Steps(overloaded, overloaded),
		upstreamtest.Steps(upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-x", "no")}))
	call := nativeCall(false, nil)
	call.Body, call.Native.Untranslated = nil, errors.New("context_management is not translated")
	res := d.Do(context.Background(), call)
	if res.Failure == nil || ub.Calls() != 0 || res.Failure.Status != 529 || res.Failure.Class != classify.ServerError {
		t.Fatalf("result %+v (openai calls %d)", res.Failure, ub.Calls())
	}
	if as := res.Decision.Attempts; len(as) == 0 || as[len(as)-1].Evidence != "translate" || as[len(as)-1].Target != "b" {
		t.Errorf("attempts %+v: want the pass-over at the openai target last", as)
	}
	if !d.ServesNative("r", provider.APIMessages) || d.ServesNative("b", provider.APIMessages) || d.ServesNative("r", provider.APIResponses) {
		t.Error("ServesNative")
	}
}

// A whole Message answering a native stream request reaches the Output as
// canonical chunks (Commit.Native false), for the front to encode.
func TestNativeWholeAnswerToAStream(t *testing.T) {
	d, _, _ := nativeDispatcher(t, upstreamtest.Steps(upstreamtest.Step{Body: anthropicAnswer}), upstreamtest.Steps(upstreamtest.Step{Status: 500}))
	c := &rawClient{}
	res := d.Do(context.Background(), nativeCall(true, c))
	if res.Failure != nil || !c.ended || c.commit.Native || len(c.chunks) == 0 {
		t.Fatalf("result %+v, client %+v", res, c)
	}
	if !strings.Contains(strings.Join(c.chunks, ""), `"content":"hello"`) {
		t.Errorf("chunks %q", c.chunks)
	}
}

// The client's own body is what an upstream may echo: a request Detour
// could not translate (no canonical body) whose text an Anthropic target
// quotes back is no evidence, so it cannot read as quota (which would cool
// the account and page the operator).
func TestNativeEchoIsNoEvidence(t *testing.T) {
	const phrase = "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."
	echo := upstreamtest.Step{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"` + phrase + `"}}`}
	d, _, ub := nativeDispatcher(t, upstreamtest.Steps(echo), upstreamtest.Steps(upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-x", "no")}))
	call := nativeCall(false, nil)
	call.Body, call.Native.Untranslated = nil, errors.New("context_management is not translated")
	call.Native.Body = []byte(`{"model":"r","max_tokens":10,"context_management":{},"messages":[{"role":"user","content":"` + phrase + `"}]}`)
	res := d.Do(context.Background(), call)
	if res.Failure == nil || res.Failure.Class == classify.Quota || ub.Calls() != 0 {
		t.Fatalf("echoed text read as %v (openai calls %d)", res.Failure, ub.Calls())
	}
	if a := res.Decision.Attempts[0]; a.Counted || a.Class == "quota" {
		t.Errorf("attempt %+v", a)
	}
}
