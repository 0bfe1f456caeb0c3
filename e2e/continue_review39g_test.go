package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/openai/openai-go/v3"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 39g: a hostile review of mid-stream continuation, through a real
// gateway, loopback upstreams that cut their streams, and the official
// openai-go SDK's stream accumulator as the client.

// chunk39g is one chat.completion.chunk of choice index with delta.
func chunk39g(model string, index int, delta, finish string) string {
	return `{"id":"chatcmpl-39g","object":"chat.completion.chunk","created":1764489600,"model":"` + model +
		`","choices":[{"index":` + string(rune('0'+index)) + `,"delta":` + delta + `,"finish_reason":` + finish + `}]}`
}

// A client that asks for two choices (n: 2) relies on docs/behaviour.md's
// promise that such a stream is never continued: a continuation knows one
// choice's text, so the other choice's continuation would be spliced onto
// nothing. Before the fix the walk decided from what it had seen, and a cut
// that came before choice 1's first chunk was continued — by prefill here,
// where the target's second choice went to the client as the continuation
// of a choice it never began.
func TestReview39gTwoChoicesAreNeverContinued(t *testing.T) {
	one := upstreamtest.Step{Events: []string{
		chunk39g("primary-model", 0, `{"role":"assistant","content":""}`, "null"),
		chunk39g("primary-model", 0, `{"content":"Once"}`, "null"),
	}, Cut: true}
	two := func(_ int, r upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Events: []string{
			chunk39g("fallback-model", 0, `{"role":"assistant","content":""}`, "null"),
			chunk39g("fallback-model", 1, `{"role":"assistant","content":""}`, "null"),
			chunk39g("fallback-model", 0, `{"content":" upon a time"}`, "null"),
			chunk39g("fallback-model", 1, `{"content":" upon a time"}`, "null"),
			chunk39g("fallback-model", 0, `{}`, `"stop"`),
			chunk39g("fallback-model", 1, `{}`, `"stop"`),
			"[DONE]",
		}}
	}
	for _, prefill := range []string{", prefill: true", ""} {
		t.Run("prefill"+prefill, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"one": script(one), "two": two})
			g := start(t, contCfg("openai", prefill, continueOpts), fs)
			p := hello("r")
			p.N = openai.Int(2)
			s := sdk(g).Chat.Completions.NewStreaming(context.Background(), p)
			acc := openai.ChatCompletionAccumulator{}
			for s.Next() {
				acc.AddChunk(s.Current())
			}
			if s.Err() == nil {
				t.Errorf("the stream ended as a success: %d choices", len(acc.Choices))
			}
			for _, ch := range acc.Choices {
				if ch.Index != 0 || ch.Message.Content != "Once" {
					t.Errorf("choice %d: %q (want only choice 0's %q)", ch.Index, ch.Message.Content, "Once")
				}
			}
			rec := g.recs.wait(t, 1)
			wantSteps(t, rec, "first/one server_error stop")
			if fs["two"].Calls() != 0 {
				t.Errorf("the fallback was asked %d times for a continuation of an n: 2 stream", fs["two"].Calls())
			}
			if m := string(g.raw(t, http.MethodGet, "/metrics", "").Body); !strings.Contains(m, `detour_continuations_total{mode="none",outcome="unsplicable",route="r"} 1`) {
				t.Errorf("metrics: %s", grepLines(m, "detour_continuations_total"))
			}
		})
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// A client that asked for usage relies on the usage chunk of a continued
// stream meaning what the decision record (and so what Detour bills the
// key) says: the tokens the upstreams billed.
func TestReview39gClientUsageIsTheRecordsUsage(t *testing.T) {
	primaryEvents := anthropicStream(answer60[:40])
	primaryEvents[0] = strings.Replace(primaryEvents[0], `"input_tokens":5`, `"input_tokens":11`, 1)
	primaryEvents = primaryEvents[:2+40]
	fs := fakes(t, map[string]upstreamtest.Script{"one": script(upstreamtest.Step{Events: primaryEvents, Cut: true}),
		"two": model{dialect: "openai", per: 3}.script(t)})
	g := start(t, `
providers:
  - {name: one, dialect: anthropic, base_url: "{one}", api_key: `+secret+`}
  - {name: two, dialect: openai, base_url: "{two}", api_key: `+secret+`}
targets:
  - {name: first, model: claude-sonnet-4-5, providers: [one], prefill: false}
  - {name: second, model: fallback-model, providers: [two]}
routes:
  - {name: r, targets: [first, second], on_stream_cut: continue}
`, fs)
	p := hello("r")
	p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	s := sdk(g).Chat.Completions.NewStreaming(context.Background(), p)
	acc := openai.ChatCompletionAccumulator{}
	for s.Next() {
		acc.AddChunk(s.Current())
	}
	if s.Err() != nil || acc.Choices[0].Message.Content != whole60 {
		t.Fatalf("client assembled %q (error %v)", acc.Choices[0].Message.Content, s.Err())
	}
	rec := g.recs.wait(t, 1)
	u := rec.Usage
	if u == nil {
		t.Fatalf("no usage in the record")
	}
	if int(acc.Usage.PromptTokens) != u.PromptTokens || int(acc.Usage.CompletionTokens) != u.CompletionTokens || int(acc.Usage.TotalTokens) != u.TotalTokens {
		t.Errorf("client usage %d+%d=%d, record %d+%d=%d", acc.Usage.PromptTokens, acc.Usage.CompletionTokens, acc.Usage.TotalTokens,
			u.PromptTokens, u.CompletionTokens, u.TotalTokens)
	}
}

// A client that leaves while its cut stream waits for the continuation
// relies on the gateway leaving too: the continuation's upstream request
// is abandoned, and the record says canceled, not error.
func TestReview39gClientLeavesDuringTheContinuation(t *testing.T) {
	slow := func(_ int, r upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Delay: 20 * time.Second, Events: upstreamtest.ChatStream("fallback-model", answer60...)}
	}
	fs := fakes(t, map[string]upstreamtest.Script{"one": script(primary(10, false)), "two": slow})
	g := start(t, contCfg("openai", "", continueOpts), fs)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := sdk(g).Chat.Completions.NewStreaming(ctx, hello("r"))
	content := ""
	for s.Next() {
		for _, ch := range s.Current().Choices {
			content += ch.Delta.Content
		}
		if content == strings.Join(answer60[:10], "") {
			break
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for fs["two"].Calls() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	s.Close()
	rec := g.recs.wait(t, 1)
	if rec.Outcome != "canceled" {
		t.Errorf("outcome %s, steps %v", rec.Outcome, steps(rec))
	}
	for fs["two"].Gone() == 0 && time.Now().Before(deadline.Add(5*time.Second)) {
		time.Sleep(10 * time.Millisecond)
	}
	if fs["two"].Gone() != 1 {
		t.Errorf("the continuation's upstream request was not abandoned")
	}
	if m := string(g.raw(t, http.MethodGet, "/metrics", "").Body); !strings.Contains(m, `detour_continuations_total{mode="replay",outcome="canceled",route="r"} 1`) {
		t.Errorf("metrics: %s", grepLines(m, "detour_continuations_total"))
	}
	wantSteps(t, rec, "first/one server_error next_target", "second/two - stop")
}

// A continuation that does not begin within the route's deadline (anew
// from the cut) ends the stream with the cut's error; the slow target is
// not blamed (the deadline is the request's own limit).
func TestReview39gContinuationPastTheDeadline(t *testing.T) {
	slow := func(_ int, r upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Delay: 20 * time.Second, Events: upstreamtest.ChatStream("fallback-model", answer60...)}
	}
	fs := fakes(t, map[string]upstreamtest.Script{"one": script(primary(10, false)), "two": slow})
	g := start(t, contCfg("openai", "", continueOpts+", deadline: 700ms"), fs)
	start := time.Now()
	content, _, err := sdkStream(t, g)
	took := time.Since(start)
	if err == nil || content != strings.Join(answer60[:10], "") {
		t.Errorf("client %q, error %v", content, err)
	}
	if took > 5*time.Second {
		t.Errorf("the stream ended after %v", took)
	}
	rec := g.recs.wait(t, 1)
	if len(rec.Attempts) != 2 || rec.Attempts[1].Counted || rec.Attempts[1].Evidence != "timeout:deadline" || rec.Class != "server_error" {
		b, _ := json.MarshalIndent(rec, "", " ")
		t.Errorf("record %s", b)
	}
}

// A client that asked for logprobs relies on one entry per token of the
// text it got. A continuation cannot keep that: a replay's boundary chunk
// carried the log probabilities of its whole content, the part the client
// already had included (" upon a" for " a"), and a target without logprobs
// would lose them. Before the fix such a stream was spliced; now, like a
// reasoning or refusal delta, logprobs make a cut unsplicable.
func TestReview39gLogprobsAreNotSpliced(t *testing.T) {
	lp := func(tok string) string {
		b, _ := json.Marshal(tok)
		return `{"content":[{"token":` + string(b) + `,"logprob":-0.1,"bytes":null,"top_logprobs":[]}]}`
	}
	chunk := func(model, text string) string {
		b, _ := json.Marshal(text)
		return `{"id":"chatcmpl-39g","object":"chat.completion.chunk","created":1764489600,"model":"` + model +
			`","choices":[{"index":0,"delta":{"content":` + string(b) + `},"logprobs":` + lp(text) + `,"finish_reason":null}]}`
	}
	one := upstreamtest.Step{Events: []string{chunk39g("primary-model", 0, `{"role":"assistant","content":""}`, "null"),
		chunk("primary-model", "Once"), chunk("primary-model", " upon")}, Cut: true}
	two := upstreamtest.Step{Events: []string{chunk39g("fallback-model", 0, `{"role":"assistant","content":""}`, "null"),
		chunk("fallback-model", "Once"), chunk("fallback-model", " upon a"), chunk("fallback-model", " time"),
		chunk39g("fallback-model", 0, `{}`, `"stop"`), "[DONE]"}}
	fs := fakes(t, map[string]upstreamtest.Script{"one": script(one), "two": script(two)})
	g := start(t, contCfg("openai", "", continueOpts), fs)
	r := g.post(t, "r", `,"stream":true,"logprobs":true`)
	var toks []string
	text, errEv := "", false
	for _, ev := range r.events() {
		if ev.Name == "error" {
			errEv = true
		}
		var c struct {
			Choices []struct {
				Delta    struct{ Content string }
				Logprobs *struct{ Content []struct{ Token string } }
			}
		}
		if json.Unmarshal([]byte(ev.Data), &c) != nil || len(c.Choices) == 0 {
			continue
		}
		text += c.Choices[0].Delta.Content
		if c.Choices[0].Logprobs != nil {
			for _, x := range c.Choices[0].Logprobs.Content {
				toks = append(toks, x.Token)
			}
		}
	}
	if strings.Join(toks, "") != text {
		t.Errorf("logprob tokens %q do not spell the text %q", toks, text)
	}
	if text != "Once upon" || !errEv || fs["two"].Calls() != 0 {
		t.Errorf("text %q, error event %v, fallback asked %d times; want the cut's error after %q, nothing continued", text, errEv, fs["two"].Calls(), "Once upon")
	}
	wantSteps(t, g.recs.wait(t, 1), "first/one server_error stop")
}

// A client relies on an answer whose finish reason it has being a finished
// answer, however the upstream's connection ends after it. OpenAI sends
// the finish chunk, then (asked for usage, as Detour always asks) the usage
// chunk, then [DONE]; a connection cut between them — not closed cleanly —
// lost only the usage or the end marker, yet the client's stream ended with
// an error event (openai-go: "received error while streaming"), the
// attempt was filed as the upstream's server_error (counted, cooling), and
// on a route that continues cuts the metric said unsplicable. The same for
// a cut Anthropic stream between message_delta (stop_reason, usage) and
// message_stop, and for an upstream that stalls there.
func TestReview39gACutAfterTheFinishIsAFinishedAnswer(t *testing.T) {
	evs := upstreamtest.ChatStream("primary-model", "Once", " upon")
	// evs: role, two parts, finish, usage, [DONE]
	claude := anthropicStream([]string{"Once", " upon"})
	// claude: message_start, block start, two deltas, block stop, message_delta, message_stop
	for _, tc := range []struct {
		name    string
		dialect string
		step    upstreamtest.Step
		usage   bool
	}{
		{"openai: cut after the finish, before usage", "openai", upstreamtest.Step{Events: evs[:4], Cut: true}, false},
		{"openai: cut after usage, before [DONE]", "openai", upstreamtest.Step{Events: evs[:5], Cut: true}, true},
		{"openai: stalled after the finish", "openai", upstreamtest.Step{Events: evs[:4], Stall: true}, false},
		{"anthropic: cut after message_delta, before message_stop", "anthropic", upstreamtest.Step{Events: claude[:6], Cut: true}, true},
	} {
		for _, opts := range []string{"", continueOpts} {
			t.Run(tc.name+opts, func(t *testing.T) {
				fs := fakes(t, map[string]upstreamtest.Script{"one": script(tc.step), "two": model{dialect: "openai", per: 3}.script(t)})
				cfg := strings.Replace(contCfg("openai", "", opts), "dialect: openai, base_url: \"{one}\"", "dialect: "+tc.dialect+", base_url: \"{one}\"", 1)
				if !strings.Contains(cfg, "dialect: "+tc.dialect+", base_url: \"{one}\"") {
					t.Fatalf("config %s", cfg)
				}
				g := start(t, cfg, fs)
				p := hello("r")
				p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
				s := sdk(g).Chat.Completions.NewStreaming(context.Background(), p)
				acc := openai.ChatCompletionAccumulator{}
				for s.Next() {
					acc.AddChunk(s.Current())
				}
				if s.Err() != nil || len(acc.Choices) != 1 || acc.Choices[0].Message.Content != "Once upon" || acc.Choices[0].FinishReason == "" {
					t.Errorf("client: %d choices, error %v; want the whole answer, finished, no error", len(acc.Choices), s.Err())
				}
				if got := acc.Usage.TotalTokens > 0; got != tc.usage {
					t.Errorf("client usage %+v", acc.Usage)
				}
				rec := g.recs.wait(t, 1)
				wantSteps(t, rec, "first/one ok done")
				if rec.Outcome != "ok" || fs["two"].Calls() != 0 {
					t.Errorf("outcome %s, fallback asked %d times", rec.Outcome, fs["two"].Calls())
				}
			})
		}
	}
}

// A cut in the middle of a multibyte character (the event's line never
// completed) loses only that incomplete event: the replay reproduces the
// text before it, and the client's text is whole and valid UTF-8.
func TestReview39gCutMidRune(t *testing.T) {
	parts := []string{"Un", " café", " crème", " s'il", " vous", " plaît"}
	evs := upstreamtest.ChatStream("primary-model", parts...)
	line := "data: " + evs[3]                // the " crème" chunk
	line = line[:strings.Index(line, "è")+1] // up to the first byte of è
	one := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range evs[:3] {
			io.WriteString(w, "data: "+ev+"\n\n")
		}
		io.WriteString(w, line)
		http.NewResponseController(w).Flush()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	t.Cleanup(one.Close)
	fs := fakes(t, map[string]upstreamtest.Script{"two": script(okStream("fallback-model", parts...))})
	g := start(t, strings.Replace(contCfg("openai", "", continueOpts), "{one}", one.URL, 1), fs)
	content, chunks, err := sdkStream(t, g)
	if err != nil || content != strings.Join(parts, "") || !utf8.ValidString(content) {
		t.Fatalf("client %q, error %v", content, err)
	}
	wantSeamlessModel(t, chunks)
	rec := g.recs.wait(t, 1)
	wantSteps(t, rec, "first/one server_error next_target", "second/two ok done")
	wantCont(t, rec.Attempts[1], "replay", utf8.RuneCountInString("Un café"), "server_error")
}

// wantSeamlessModel is wantSeamless for fallbacks of any model.
func wantSeamlessModel(t *testing.T, chunks []openai.ChatCompletionChunk) {
	t.Helper()
	roles, finishes := 0, 0
	for _, c := range chunks {
		if c.ID != chunks[0].ID || c.Model != chunks[0].Model {
			t.Errorf("chunk %s/%s in a stream of %s/%s", c.ID, c.Model, chunks[0].ID, chunks[0].Model)
		}
		for _, ch := range c.Choices {
			if ch.Delta.Role != "" {
				roles++
			}
			if ch.FinishReason != "" {
				finishes++
			}
		}
	}
	if roles != 1 || finishes != 1 {
		t.Errorf("%d role deltas, %d finish reasons", roles, finishes)
	}
}

// A continuation target that fails before its first content: the walk
// moves on to the next, which continues the stream; the client never sees
// the failed continuation's answer.
func TestReview39gContinuationTargetFailsThenNext(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"one":   script(primary(30, false)),
		"two":   script(corpus(t, "openai-server-error-500")),
		"three": model{dialect: "openai", per: 7}.script(t)})
	g := start(t, `
providers:
  - {name: one, dialect: openai, base_url: "{one}", api_key: `+secret+`}
  - {name: two, dialect: openai, base_url: "{two}", api_key: `+secret+`}
  - {name: three, dialect: openai, base_url: "{three}", api_key: `+secret+`}
targets:
  - {name: first, model: gpt-4o-mini, providers: [one]}
  - {name: second, model: m2, providers: [two]}
  - {name: third, model: m3, providers: [three]}
routes:
  - {name: r, targets: [first, second, third], on_stream_cut: continue}
`, fs)
	content, chunks, err := sdkStream(t, g)
	if err != nil || content != whole60 {
		t.Fatalf("client %q, error %v", content, err)
	}
	wantSeamless(t, chunks)
	rec := g.recs.wait(t, 1)
	wantSteps(t, rec, "first/one server_error next_target", "second/two server_error retry", "second/two server_error next_target", "third/three ok done")
	for _, a := range rec.Attempts[1:] {
		wantCont(t, a, "replay", len(strings.Join(answer60[:30], "")), "server_error")
	}
	if !rec.Attempts[0].Counted || !rec.Attempts[0].Billable || rec.Attempts[0].Evidence != "stream:cut" {
		t.Errorf("cut attempt %+v", rec.Attempts[0])
	}
	m := grepLines(string(g.raw(t, http.MethodGet, "/metrics", "").Body), "detour_continuations_total{")
	if m != `detour_continuations_total{mode="replay",outcome="ok",route="r"} 1` {
		t.Errorf("metrics %s", m)
	}
	var h struct {
		Endpoints []struct {
			Target    string
			LastClass string `json:"last_class"`
			Failures  int
		}
	}
	if err := json.Unmarshal(g.raw(t, http.MethodGet, "/v1/health", "").Body, &h); err != nil {
		t.Fatal(err)
	}
	seen := false
	for _, e := range h.Endpoints {
		if e.Target == "first" {
			seen = true
			if e.Failures != 1 || e.LastClass != "server_error" {
				t.Errorf("the cut endpoint in /v1/health: %+v", e)
			}
		}
	}
	if !seen {
		t.Errorf("no endpoint of target first in /v1/health")
	}
}

// A client of the Messages door over a continued stream relies on the
// Message's usage being the record's (what the key is billed).
func TestReview39gMessagesUsageIsTheRecords(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"one": script(primary(40, false)), "two": model{dialect: "openai", per: 3}.script(t)})
	g := start(t, contCfg("openai", "", continueOpts), fs)
	run := streamMessages(t, g)
	if run.err != nil || claudeText(&run.msg) != whole60 {
		t.Fatalf("client assembled %q (error %v)", claudeText(&run.msg), run.err)
	}
	rec := g.recs.wait(t, 1)
	if u := rec.Usage; u == nil || int(run.msg.Usage.InputTokens) != u.PromptTokens || int(run.msg.Usage.OutputTokens) != u.CompletionTokens {
		t.Errorf("message usage in %d out %d; record %+v", run.msg.Usage.InputTokens, run.msg.Usage.OutputTokens, rec.Usage)
	}
}

// A Gemini primary reports its prompt in every chunk, so a cut one has
// billed a prompt: the client's usage counts it beside the continuation's,
// as the record does (before the fix the client was told the first
// upstream's prompt only).
func TestReview39gGeminiCutUsage(t *testing.T) {
	evs := sseBlocks(string(testdata(t, "gemini", "stream/basic.sse")))
	fs := fakes(t, map[string]upstreamtest.Script{"one": script(upstreamtest.Step{Events: evs[:2], Cut: true}),
		"two": script(okStream("fallback-model", "The", " capital of Wyoming", " is **Cheyenne**.\n"))})
	g := start(t, `
providers:
  - {name: one, dialect: gemini, base_url: "{one}", api_key: `+secret+`}
  - {name: two, dialect: openai, base_url: "{two}", api_key: `+secret+`}
targets:
  - {name: first, model: gemini-3.1-flash-lite, providers: [one]}
  - {name: second, model: fallback-model, providers: [two]}
routes:
  - {name: r, targets: [first, second], on_stream_cut: continue}
`, fs)
	p := hello("r")
	p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	s := sdk(g).Chat.Completions.NewStreaming(context.Background(), p)
	acc := openai.ChatCompletionAccumulator{}
	for s.Next() {
		acc.AddChunk(s.Current())
	}
	if s.Err() != nil || acc.Choices[0].Message.Content != "The capital of Wyoming is **Cheyenne**.\n" {
		t.Fatalf("client %+v, error %v", acc.Choices, s.Err())
	}
	rec := g.recs.wait(t, 1)
	if u := rec.Usage; u == nil || int(acc.Usage.PromptTokens) != u.PromptTokens || int(acc.Usage.CompletionTokens) != u.CompletionTokens {
		t.Errorf("client %+v record %+v", acc.Usage, rec.Usage)
	}
}

// A client relies on the route's max_attempts holding across a
// continuation, and on the error it gets being the cut's (what happened to
// its stream), never the answer of a continuation that failed before its
// first content.
func TestReview39gContinuationWithinMaxAttempts(t *testing.T) {
	for _, tc := range []struct {
		name, opts string
		steps      []string
		metric     string
	}{
		{"max_attempts 1: not attempted", ", max_attempts: 1", []string{"first/one server_error stop"}, `mode="none",outcome="budget"`},
		{"max_attempts 2: one attempt, failed", ", max_attempts: 2", []string{"first/one server_error next_target", "second/two server_error stop"}, `mode="replay",outcome="budget"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"one": script(primary(10, false)), "two": script(corpus(t, "openai-server-error-500"))})
			g := start(t, contCfg("openai", "", continueOpts+tc.opts), fs)
			content, _, err := sdkStream(t, g)
			if err == nil || content != strings.Join(answer60[:10], "") || !strings.Contains(err.Error(), "the upstream stream was cut") {
				t.Errorf("client %q, error %v; want the text so far and the cut's error", content, err)
			}
			wantSteps(t, g.recs.wait(t, 1), tc.steps...)
			if m := string(g.raw(t, http.MethodGet, "/metrics", "").Body); !strings.Contains(m, `detour_continuations_total{`+tc.metric+`,route="r"} 1`) {
				t.Errorf("metrics: %s", grepLines(m, "detour_continuations_total"))
			}
		})
	}
}
