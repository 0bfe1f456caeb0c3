package e2e

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 40e: how a stream ends, around two known bugs — an error event
// that follows the finish of a complete answer, and an n > 1 stream whose
// second choice never came — at the three doors, through the official
// SDKs (openai-go for chat and responses, anthropic-sdk-go for messages).

// errorAfterFinish is, per upstream dialect, a complete answer "Once upon"
// (its finish said) followed by the dialect's mid-stream error event:
// OpenRouter's documented one (a chunk with a top-level error and
// finish_reason "error", corpus openrouter-stream-mid-stream-server-error-
// provider-disconnected-200) then [DONE]; Anthropic's overloaded_error
// event as Helicone captured it (corpus anthropic-sse-overloaded-error-
// midstream) after message_delta, before message_stop.
func errorAfterFinish(t *testing.T, dialect string) upstreamtest.Step {
	t.Helper()
	switch dialect {
	case "openai":
		evs := upstreamtest.ChatStream("primary-model", "Once", " upon")[:4] // role, two parts, finish
		evs = append(evs, corpus(t, "openrouter-stream-mid-stream-server-error-provider-disconnected-200").Events...)
		return upstreamtest.Step{Events: append(evs, "[DONE]")}
	case "anthropic":
		evs := anthropicStream([]string{"Once", " upon"})[:6] // through message_delta
		return upstreamtest.Step{Events: append(evs, corpus(t, "anthropic-sse-overloaded-error-midstream").Events...)}
	}
	t.Fatalf("dialect %s", dialect)
	return upstreamtest.Step{}
}

// A client relies on a stream whose answer the model finished ending as
// finished, with its door's normal end: openai-go and anthropic-sdk-go
// raise on an error event, and a client that retries on it pays for the
// answer twice. An upstream that sends an error event after the finish
// (OpenRouter's in-band error, Anthropic's event: error between
// message_delta and message_stop) lost nothing of the answer. Before the
// fix the client's stream ended with the error event, the attempt was the
// upstream's counted server_error, and a continuing route tried to go on.
// The record keeps the event as the attempt's evidence.
func TestReview40eErrorAfterTheFinishEndsTheAnswerFinished(t *testing.T) {
	for _, door := range []string{"chat", "messages", "responses"} {
		for _, dialect := range []string{"openai", "anthropic"} {
			for _, opts := range []string{"", continueOpts} {
				t.Run(door+"/"+dialect+opts, func(t *testing.T) {
					fs := fakes(t, map[string]upstreamtest.Script{"one": script(errorAfterFinish(t, dialect)),
						"two": model{dialect: "openai", per: 3}.script(t)})
					cfg := strings.Replace(contCfg("openai", "", opts), "dialect: openai, base_url: \"{one}\"", "dialect: "+dialect+", base_url: \"{one}\"", 1)
					g := start(t, cfg, fs)
					switch door {
					case "chat":
						s := sdk(g).Chat.Completions.NewStreaming(context.Background(), hello("r"))
						acc := openai.ChatCompletionAccumulator{}
						for s.Next() {
							acc.AddChunk(s.Current())
						}
						if s.Err() != nil || len(acc.Choices) != 1 || acc.Choices[0].Message.Content != "Once upon" || acc.Choices[0].FinishReason != "stop" {
							t.Errorf("client: %+v, error %v; want the whole answer, finished", acc.Choices, s.Err())
						}
					case "messages":
						run := streamMessages(t, g)
						if run.err != nil || claudeText(&run.msg) != "Once upon" || run.msg.StopReason != "end_turn" {
							t.Errorf("client: %q stop %q events %v, error %v; want the whole answer, finished", claudeText(&run.msg), run.msg.StopReason, run.types, run.err)
						}
						if n := len(run.types); n == 0 || run.types[n-1] != "message_stop" || run.count("message_stop") != 1 {
							t.Errorf("events %v: want one message_stop, last", run.types)
						}
					case "responses":
						run := streamContinued(t, g)
						if run.err != nil || run.text != "Once upon" {
							t.Errorf("client: %q, error %v; want the whole answer", run.text, run.err)
						}
						wantOneResponse(t, run, "response.completed")
					}
					rec := g.recs.wait(t, 1)
					wantSteps(t, rec, "first/one ok done")
					if a := rec.Attempts[0]; rec.Outcome != "ok" || a.Class != "" || a.Counted || !strings.Contains(a.Evidence, "error after finish") || !strings.Contains(a.Evidence, "server_error") {
						t.Errorf("record: outcome %s, attempt class %q counted %v evidence %q; want ok, the event kept as evidence", rec.Outcome, a.Class, a.Counted, a.Evidence)
					}
					if e, ok := g.health(t).Endpoint("first", "one"); !ok || e.Failures != 0 || e.State != "healthy" {
						t.Errorf("health of first/one: %+v", e)
					}
					if fs["two"].Calls() != 0 {
						t.Errorf("the fallback was asked %d times", fs["two"].Calls())
					}
				})
			}
		}
	}
}

// twoChoicesOneFinished is an n: 2 stream in which choice 0 opened and
// finished before choice 1 began.
func twoChoicesOneFinished() []string {
	return []string{
		chunk39g("primary-model", 0, `{"role":"assistant","content":""}`, "null"),
		chunk39g("primary-model", 0, `{"content":"Once"}`, "null"),
		chunk39g("primary-model", 0, `{}`, `"stop"`),
	}
}

// A client that asked for two choices (n: 2) relies on a stream that ends
// as finished holding both. An upstream that streams its choices one after
// the other and is cut after the first one's finish, before the second's
// first chunk, sent half the answer: before the fix the stream had a
// finish reason for every choice it had opened, so it was finished, and
// the client got one choice and [DONE]. It is a cut, as any answer that
// ends unfinished (a clean close without [DONE] too, and an error event).
func TestReview40eSecondChoiceThatNeverCameIsACut(t *testing.T) {
	evs := twoChoicesOneFinished()
	errEv := corpus(t, "openrouter-stream-mid-stream-server-error-provider-disconnected-200").Events
	for _, tc := range []struct {
		name string
		step upstreamtest.Step
	}{
		{"cut", upstreamtest.Step{Events: evs, Cut: true}},
		{"closed without [DONE]", upstreamtest.Step{Events: evs}},
		{"stalled", upstreamtest.Step{Events: evs, Stall: true}},
		{"error event", upstreamtest.Step{Events: append(append([]string(nil), evs...), errEv...)}},
	} {
		for _, opts := range []string{"", continueOpts} {
			t.Run(tc.name+opts, func(t *testing.T) {
				fs := fakes(t, map[string]upstreamtest.Script{"one": script(tc.step), "two": model{dialect: "openai", per: 3}.script(t)})
				g := start(t, contCfg("openai", "", opts), fs)
				p := hello("r")
				p.N = openai.Int(2)
				s := sdk(g).Chat.Completions.NewStreaming(context.Background(), p)
				acc := openai.ChatCompletionAccumulator{}
				for s.Next() {
					acc.AddChunk(s.Current())
				}
				if s.Err() == nil {
					t.Errorf("the stream ended as finished with %d of 2 choices", len(acc.Choices))
				}
				rec := g.recs.wait(t, 1)
				if rec.Outcome != "error" || len(rec.Attempts) != 1 || rec.Attempts[0].Class == "" || fs["two"].Calls() != 0 {
					t.Errorf("record: outcome %s, steps %v; fallback asked %d times", rec.Outcome, steps(rec), fs["two"].Calls())
				}
			})
		}
	}
}

// The other side of it: an n: 2 answer whose two choices both finished is
// finished however its connection ends after (review 39g's promise, with
// two choices), and an error event after both finishes ends it finished;
// also when the second choice came whole in one chunk.
func TestReview40eTwoChoicesBothFinishedAreFinished(t *testing.T) {
	evs := append(twoChoicesOneFinished(),
		chunk39g("primary-model", 1, `{"role":"assistant","content":""}`, "null"),
		chunk39g("primary-model", 1, `{"content":"Twice"}`, "null"),
		chunk39g("primary-model", 1, `{}`, `"stop"`))
	errEv := corpus(t, "openrouter-stream-mid-stream-server-error-provider-disconnected-200").Events
	for _, tc := range []struct {
		name string
		step upstreamtest.Step
	}{
		{"cut", upstreamtest.Step{Events: evs, Cut: true}},
		{"error event", upstreamtest.Step{Events: append(append([]string(nil), evs...), errEv...)}},
		{"the second choice whole in one chunk, then cut", upstreamtest.Step{Events: append(twoChoicesOneFinished(),
			chunk39g("primary-model", 1, `{"role":"assistant","content":"Twice"}`, `"stop"`)), Cut: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"one": script(tc.step), "two": model{dialect: "openai", per: 3}.script(t)})
			g := start(t, contCfg("openai", "", ""), fs)
			p := hello("r")
			p.N = openai.Int(2)
			s := sdk(g).Chat.Completions.NewStreaming(context.Background(), p)
			acc := openai.ChatCompletionAccumulator{}
			for s.Next() {
				acc.AddChunk(s.Current())
			}
			if s.Err() != nil || len(acc.Choices) != 2 || acc.Choices[0].Message.Content != "Once" || acc.Choices[1].Message.Content != "Twice" {
				t.Errorf("client: %+v, error %v; want both choices, finished", acc.Choices, s.Err())
			}
			wantSteps(t, g.recs.wait(t, 1), "first/one ok done")
		})
	}
}

// A client relies on the same for a real upstream's words: OpenRouter
// relaying minimax-m2 (pydantic-ai's recorded cassette, corpus
// openrouter-stream-minimax-token-limit-reached-after-length-200) sends
// finish_reason "length", the finish again on an empty chunk, then a chunk
// with an error {code 400, "Token limit reached"} and [DONE]. The answer
// was cut by the client's own max_completion_tokens and said so; the
// repeated finish adds nothing to it, so the answer did not go on after
// its finish (review 39i's case is content after the finish, not the
// finish again).
func TestReview40eOpenRouterTokenLimitAfterLength(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"one": script(corpus(t, "openrouter-stream-minimax-token-limit-reached-after-length-200")),
		"two": model{dialect: "openai", per: 3}.script(t)})
	g := start(t, contCfg("openai", "", ""), fs)
	s := sdk(g).Chat.Completions.NewStreaming(context.Background(), hello("r"))
	acc := openai.ChatCompletionAccumulator{}
	for s.Next() {
		acc.AddChunk(s.Current())
	}
	if s.Err() != nil || len(acc.Choices) != 1 || acc.Choices[0].FinishReason != "length" {
		t.Errorf("client: %d choices, error %v; want the answer, finished by length", len(acc.Choices), s.Err())
	}
	rec := g.recs.wait(t, 1)
	wantSteps(t, rec, "first/one ok done")
	if a := rec.Attempts[0]; rec.Outcome != "ok" || !strings.Contains(a.Evidence, "error after finish (unknown") {
		t.Errorf("record: outcome %s, evidence %q", rec.Outcome, a.Evidence)
	}
	// The error chunk carries the answer's usage: the record keeps it.
	if u := rec.Usage; u == nil || u.PromptTokens != 43 || u.CompletionTokens != 10 || u.Incomplete {
		t.Errorf("record usage %+v; want the error chunk's 43+10", u)
	}
	if fs["two"].Calls() != 0 {
		t.Errorf("the fallback was asked %d times", fs["two"].Calls())
	}
}

// An operator relies on a class that speaks of the account still cooling
// it when its event comes after a complete answer: OpenRouter's in-band
// "Rate limit exceeded: free-models-per-day" (corpus openrouter-stream-
// chunk-free-models-per-day-429-200, quota) says the next request there
// fails too. The client gets its finished answer; the account cools for
// account_cooldown, so the next request goes to the fallback at once.
func TestReview40eQuotaAfterTheFinishStillCoolsTheAccount(t *testing.T) {
	evs := upstreamtest.ChatStream("primary-model", "Once", " upon")[:4]
	evs = append(evs, corpus(t, "openrouter-stream-chunk-free-models-per-day-429-200").Events...)
	fs := fakes(t, map[string]upstreamtest.Script{"one": script(upstreamtest.Step{Events: evs}),
		"two": script(okStream("fallback-model", "from", " two"))})
	g := start(t, contCfg("openai", "", ""), fs)
	content, _, err := sdkStream(t, g)
	if err != nil || content != "Once upon" {
		t.Errorf("client %q, error %v; want the whole answer, finished", content, err)
	}
	rec := g.recs.wait(t, 1)
	wantSteps(t, rec, "first/one ok done")
	if a := rec.Attempts[0]; rec.Outcome != "ok" || a.Counted || !strings.Contains(a.Evidence, "error after finish (quota") {
		t.Errorf("record: outcome %s, counted %v, evidence %q", rec.Outcome, a.Counted, a.Evidence)
	}
	if acct, ok := g.health(t).Account("one"); !ok || acct.State != "cooling" || acct.LastClass != "quota" {
		t.Errorf("account one: %+v; want cooling for quota", acct)
	}
	if content, _, err := sdkStream(t, g); err != nil || content != "from two" {
		t.Errorf("next request: %q, error %v; want the fallback's answer", content, err)
	}
	wantSteps(t, g.recs.wait(t, 2), "second/two ok done")
}

// A client relies on an answer the upstream withdrew on policy grounds
// not being passed off as finished, whenever the withdrawal comes:
// Anthropic's "Output blocked by content filtering policy" error event
// (corpus anthropic-sse-error-output-blocked-content-filtering-policy-
// midstream, refusal) after message_delta still ends the stream with the
// error, at every door, as before review 40e.
func TestReview40eRefusalAfterTheFinishStillFails(t *testing.T) {
	evs := anthropicStream([]string{"Once", " upon"})[:6]
	evs = append(evs, corpus(t, "anthropic-sse-error-output-blocked-content-filtering-policy-midstream").Events...)
	for _, door := range []string{"chat", "messages", "responses"} {
		t.Run(door, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"one": script(upstreamtest.Step{Events: evs}),
				"two": model{dialect: "openai", per: 3}.script(t)})
			g := start(t, strings.Replace(contCfg("openai", "", ""), "dialect: openai, base_url: \"{one}\"", "dialect: anthropic, base_url: \"{one}\"", 1), fs)
			var err error
			switch door {
			case "chat":
				_, _, err = sdkStream(t, g)
			case "messages":
				err = streamMessages(t, g).err
			case "responses":
				// openai-go's Responses stream ends without an error on
				// response.failed: the client reads the event.
				run := streamContinued(t, g)
				if err = run.err; err == nil && run.count("response.failed") == 1 && run.count("response.completed") == 0 {
					err = errors.New("response.failed")
				}
			}
			if err == nil {
				t.Errorf("the withdrawn answer ended as a success")
			}
			rec := g.recs.wait(t, 1)
			if rec.Outcome != "error" || rec.Class != "refusal" {
				t.Errorf("record: outcome %s class %s", rec.Outcome, rec.Class)
			}
		})
	}
}

// A Gemini stream has no end marker: the finishReason of every candidate
// ends it, and Detour reads no further. A client relies on an error Gemini
// sends after that (its raw JSON tail when it sheds capacity, corpus
// gemini-stream-trailing-error-503-high-demand) not reaching it: the
// answer ends finished. (A guard: this held before review 40e too.)
func TestReview40eGeminiErrorAfterTheFinishIsNotRead(t *testing.T) {
	evs := sseBlocks(string(testdata(t, "gemini", "stream/basic.sse")))
	evs = append(evs, corpus(t, "gemini-stream-trailing-error-503-high-demand").Events...)
	fs := fakes(t, map[string]upstreamtest.Script{"one": script(upstreamtest.Step{Events: evs}),
		"two": model{dialect: "openai", per: 3}.script(t)})
	g := start(t, strings.Replace(contCfg("openai", "", ""), "dialect: openai, base_url: \"{one}\"", "dialect: gemini, base_url: \"{one}\"", 1), fs)
	content, _, err := sdkStream(t, g)
	if err != nil || content != "The capital of Wyoming is **Cheyenne**.\n" {
		t.Errorf("client %q, error %v", content, err)
	}
	rec := g.recs.wait(t, 1)
	wantSteps(t, rec, "first/one ok done")
	if a := rec.Attempts[0]; a.Evidence != "" {
		t.Errorf("evidence %q: the tail was read", a.Evidence)
	}
}
