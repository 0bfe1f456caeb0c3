package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 65f: the legacy Completions door attacked with what real clients
// send (a batch of prompts in one request: LangChain's OpenAI LLM
// generate(), the SDKs' prompt lists) and with an operator's wrong
// completions: true.

// r65fCfg: vllm serves /completions; lacks says completions: true but its
// server has no such path (it serves chat); local-first begins there.
const r65fCfg = `
client_keys:
  - {name: all, key: key-all}
  - {name: narrow, key: key-narrow, routes: [chatty]}
providers:
  - {name: vllm, dialect: openai, base_url: "{vllm}", api_key: ` + secret + `, completions: true}
  - {name: lacks, dialect: openai, base_url: "{lacks}", api_key: ` + secret + `, completions: true}
  - {name: chatonly, dialect: openai, base_url: "{chatonly}", api_key: ` + secret + `}
targets:
  - {name: coder, model: qwen-coder, providers: [vllm]}
  - {name: local, model: llama-3, providers: [lacks]}
  - {name: chat, model: gpt-4o, providers: [chatonly]}
routes:
  - {name: batch, targets: [coder]}
  - {name: local-first, targets: [local, coder]}
  - {name: chatty, targets: [chat]}
`

// r65fChunk is one Completions stream chunk of choice i.
func r65fChunk(i int, text, finish string) string {
	return fmt.Sprintf(`{"id":"cmpl-b","object":"text_completion","created":1,"model":"qwen-coder","choices":[{"text":%q,"index":%d,"logprobs":null,"finish_reason":%s}]}`, text, i, finish)
}

func r65fGateway(t *testing.T, scripts map[string]upstreamtest.Script) (*gateway, map[string]*upstreamtest.Server, openai.Client) {
	t.Helper()
	return completionsGatewayOf(t, r65fCfg, "key-all", scripts, "vllm", "lacks", "chatonly")
}

// A prompt list is one choice per prompt (times n): a streamed batch whose
// first prompt's choice finished and whose connection then ended — cut,
// or an error chunk — before the second prompt's choice began lost that
// completion. Before: n (1) choices had finished, so the walk read the
// stream as whole (allChoices), ended it with [DONE] and recorded ok.
// Tried with @langchain/openai 1.6.0's OpenAI LLM (streaming: true), whose
// generate(["a","b"]) sends the two prompts in one streamed request: it
// returned one generation for two prompts, and no error.
func TestReview65fStreamedBatchCutAfterOnePromptIsCut(t *testing.T) {
	for _, tc := range []struct {
		name string
		step upstreamtest.Step
	}{
		{"cut", upstreamtest.Step{Events: []string{r65fChunk(0, "first", "null"), r65fChunk(0, "", `"stop"`)}, Cut: true}},
		{"clean end without [DONE]", upstreamtest.Step{Events: []string{r65fChunk(0, "first", `"stop"`)}}},
		{"error chunk", upstreamtest.Step{Events: []string{r65fChunk(0, "first", `"stop"`),
			`{"error":{"message":"prompt 1 failed: engine dead","type":"server_error","code":500}}`}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, _, c := r65fGateway(t, map[string]upstreamtest.Script{"vllm": script(tc.step)})
			s := c.Completions.NewStreaming(context.Background(), openai.CompletionNewParams{Model: "batch",
				Prompt: openai.CompletionNewParamsPromptUnion{OfArrayOfStrings: []string{"a", "b"}}, MaxTokens: openai.Int(8)})
			texts := map[int64]string{}
			for s.Next() {
				for _, ch := range s.Current().Choices {
					texts[ch.Index] += ch.Text
				}
			}
			d := g.recs.wait(t, 1)
			if s.Err() == nil || d.Outcome == "ok" {
				t.Fatalf("one completion of two (%v) passed off as the whole batch: client error %v, record %s %v", texts, s.Err(), d.Outcome, steps(d))
			}
		})
	}
	// The whole batch, both prompts finished, ends as it should — also
	// without [DONE] (a finish for every prompt).
	g, _, c := r65fGateway(t, map[string]upstreamtest.Script{"vllm": script(upstreamtest.Step{Events: []string{
		r65fChunk(0, "first", "null"), r65fChunk(1, "second", "null"), r65fChunk(1, "", `"stop"`), r65fChunk(0, "", `"length"`)}})})
	s := c.Completions.NewStreaming(context.Background(), openai.CompletionNewParams{Model: "batch",
		Prompt: openai.CompletionNewParamsPromptUnion{OfArrayOfStrings: []string{"a", "b"}}})
	for s.Next() {
	}
	if d := g.recs.wait(t, 1); s.Err() != nil || d.Outcome != "ok" {
		t.Fatalf("whole batch: %v, record %s", s.Err(), d.Outcome)
	}
}

// prompts counts a Completions request's prompts as the API does: a
// string, or a list of token ids, is one; a list of strings or of token
// lists is one each.
func TestReview65fPromptsOfTokenListsAreABatch(t *testing.T) {
	for _, tc := range []struct {
		prompt string
		ok     bool
	}{
		{`[1,2,3]`, true},      // one prompt of token ids: one choice, finished
		{`"x"`, true},          // one prompt
		{`[[1,2],[3]]`, false}, // two prompts of token ids: one of two finished
	} {
		g, _, _ := r65fGateway(t, map[string]upstreamtest.Script{"vllm": script(upstreamtest.Step{Events: []string{r65fChunk(0, "first", `"stop"`)}})})
		g.raw(t, http.MethodPost, "/v1/completions", `{"model":"batch","stream":true,"prompt":`+tc.prompt+`}`, "Authorization", "Bearer key-all").wantStatus(t, 200)
		if d := g.recs.wait(t, 1); (d.Outcome == "ok") != tc.ok {
			t.Errorf("prompt %s: outcome %s, want ok %v", tc.prompt, d.Outcome, tc.ok)
		}
	}
}

// An operator who says completions: true of a server without the path
// (it serves chat only) gets a bare 404 from {base_url}/completions. It is
// the path, not the model: the walk moves on, and the endpoint keeps
// serving its chat requests. Before, the 404 was a gone model
// (unavailable), which cooled local/lacks for unavailable_cooldown (a
// day), and the route's chat requests went to its second target until
// then; the record said only "Not Found".
func TestReview65fWrongOptInDoesNotCoolTheChatEndpoint(t *testing.T) {
	for _, body := range []string{"Not Found", `{"detail":"Not Found"}`, "404 page not found\n"} {
		t.Run(body, func(t *testing.T) {
			lacks := func(_ int, r upstreamtest.Request) upstreamtest.Step {
				if strings.HasSuffix(r.Path, "/completions") && !strings.HasSuffix(r.Path, "/chat/completions") {
					return upstreamtest.Step{Status: 404, Body: body, Header: map[string]string{"Content-Type": "text/plain"}}
				}
				return ok("llama-3", "local chat")
			}
			g, fs, c := r65fGateway(t, map[string]upstreamtest.Script{"lacks": lacks, "vllm": script(upstreamtest.Step{Body: completionJSON("qwen-coder", "from coder")})})
			res, err := c.Completions.New(context.Background(), openai.CompletionNewParams{Model: "local-first",
				Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("def f(")}})
			if err != nil || res.Choices[0].Text != "from coder" {
				t.Fatalf("%+v, %v; %+v", res, err, g.recs.wait(t, 1).Attempts)
			}
			d := g.recs.wait(t, 1)
			a := d.Attempts[0]
			if a.Status != 404 || a.Counted || !strings.Contains(a.Evidence+" "+a.Message, "completions: true") {
				t.Errorf("the wrong opt-in's attempt: %+v", a)
			}
			r := g.post(t, "local-first", "", "Authorization", "Bearer key-all")
			r.wantStatus(t, 200)
			if n := len(fs["lacks"].Requests()); n != 2 || !strings.Contains(string(r.Body), "local chat") {
				t.Fatalf("the chat request after it went elsewhere (lacks served %d requests): %s, steps %v", n, r.Body, steps(g.recs.wait(t, 2)))
			}
		})
	}
}

// What the 400 for a route without the API names to a client key limited
// to some routes: only what that key may call (held).
func TestReview65fUnservedNamesOnlyWhatTheKeyMayCall(t *testing.T) {
	g, _, _ := r65fGateway(t, map[string]upstreamtest.Script{})
	r := g.raw(t, http.MethodPost, "/v1/completions", `{"model":"chatty","prompt":"x"}`, "Authorization", "Bearer key-narrow")
	r.wantStatus(t, 400)
	msg := r.errMessage(t)
	for _, leak := range []string{"batch", "coder", "local", "qwen", "llama", "vllm", "lacks"} {
		if strings.Contains(msg, leak) {
			t.Errorf("the refusal names %q to a key that may not call it: %s", leak, msg)
		}
	}
	if !strings.Contains(msg, "no route or target you may call serves it") {
		t.Errorf("message %s", msg)
	}
}

// A stream's reader follows at most 1,024 choices (provider.MaxParts) and
// drops the chunks of any more as malformed: a batch of 1,100 prompts
// streamed ended with [DONE], outcome ok, and the completions of prompts
// 1,024 to 1,099 never reached the client. The door refuses such a
// stream (400) before any call; the same batch whole is served.
func TestReview65fStreamOfMoreChoicesThanTheReaderFollowsIsRefused(t *testing.T) {
	many := `["p"` + strings.Repeat(`,"p"`, 1099) + `]`
	g, fs, _ := r65fGateway(t, map[string]upstreamtest.Script{"vllm": script(upstreamtest.Step{Body: completionJSON("qwen-coder", "x")})})
	r := g.raw(t, http.MethodPost, "/v1/completions", `{"model":"batch","stream":true,"prompt":`+many+`}`, "Authorization", "Bearer key-all")
	r.wantStatus(t, http.StatusBadRequest)
	if msg := r.errMessage(t); !strings.Contains(msg, "at most 1024 choices") || fs["vllm"].Calls() != 0 {
		t.Fatalf("%s; upstream calls %d", msg, fs["vllm"].Calls())
	}
	for _, body := range []string{
		`{"model":"batch","prompt":` + many + `}`,                                        // whole: no reader to outgrow
		`{"model":"batch","stream":true,"n":4,"prompt":["a","b","c"]}`,                   // 12 choices
		`{"model":"batch","stream":true,"prompt":[` + strings.Repeat(`1,`, 2000) + `1]}`, // token ids: one prompt
	} {
		if r := g.raw(t, http.MethodPost, "/v1/completions", body, "Authorization", "Bearer key-all"); r.Status == http.StatusBadRequest {
			t.Errorf("%.60s…: refused: %s", body, r.Body)
		}
	}
}

// An upstream that answers /completions with chat.completion.chunk events
// (a delta, no text) sent nothing a Completions client reads. Before, its
// deltas were read as content, every chunk was relayed and the record said
// ok: the openai SDK read text undefined, LangChain's OpenAI an empty
// string, the AI SDK failed each chunk's validation and finished "error".
// Now each such chunk is malformed (dropped, counted), so the stream is no
// answer: not committed, the walk fails it and the client gets an error.
func TestReview65fChatChunksAtCompletionsAreNoAnswer(t *testing.T) {
	chat := `{"id":"c","object":"chat.completion.chunk","created":1,"model":"qwen-coder","choices":[{"index":0,"delta":{"role":"assistant","content":"%s"},"finish_reason":%s}]}`
	g, _, c := r65fGateway(t, map[string]upstreamtest.Script{"vllm": script(upstreamtest.Step{Events: []string{
		fmt.Sprintf(chat, "def", "null"), fmt.Sprintf(chat, " f", "null"),
		`{"id":"c","object":"chat.completion.chunk","created":1,"model":"qwen-coder","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`, "[DONE]"}})})
	s := c.Completions.NewStreaming(context.Background(), openai.CompletionNewParams{Model: "batch",
		Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("x")}})
	chunks := 0
	for s.Next() {
		chunks++
	}
	d := g.recs.wait(t, 1)
	if s.Err() == nil || chunks != 0 || d.Outcome == "ok" || d.Attempts[0].Malformed != 3 {
		t.Fatalf("%d chunks, client error %v, record %s %+v", chunks, s.Err(), d.Outcome, d.Attempts)
	}
}

// The same whole: a chat.completion answering /completions is unusable
// (server_error, decode), not an answer recorded ok whose text the
// client reads as undefined.
func TestReview65fChatAnswerAtCompletionsIsNoAnswer(t *testing.T) {
	g, _, c := r65fGateway(t, map[string]upstreamtest.Script{"vllm": script(ok("qwen-coder", "chat words"))})
	res, err := c.Completions.New(context.Background(), openai.CompletionNewParams{Model: "batch",
		Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("x")}})
	d := g.recs.wait(t, 1)
	if err == nil || d.Outcome == "ok" || d.Attempts[0].Evidence != "decode" {
		t.Fatalf("%+v, %v; record %s %+v", res, err, d.Outcome, d.Attempts)
	}
}
