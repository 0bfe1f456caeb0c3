package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// The legacy Completions door, POST /v1/completions (docs/doors.md,
// "Legacy Completions"), driven by the official Go SDK's
// client.Completions through a real gateway to scripted upstreams: the
// client's body reaches a completions: true provider with only "model"
// replaced, the answer comes back as it came, and the walk, the record and
// the cost are the chat door's.

// completionsCfg: fim is two completions: true providers (priced),
// mixed begins with a chat-only OpenAI target and a Claude target (neither
// serves the API), chatty has none that does, then has one before a
// chat-only target.
const completionsCfg = `
providers:
  - {name: vllm, dialect: openai, base_url: "{vllm}", api_key: ` + secret + `, completions: true, idle_timeout: 300ms}
  - {name: backup, dialect: openai, base_url: "{backup}", api_key: ` + secret + `, completions: true}
  - {name: chatonly, dialect: openai, base_url: "{chatonly}", api_key: ` + secret + `}
  - {name: claude, dialect: anthropic, base_url: "{claude}", api_key: ` + secret + `}
targets:
  - {name: coder, model: qwen-coder, providers: [vllm], price: {input: 1.00, output: 2.00}}
  - {name: coder2, model: qwen-coder-b, providers: [backup], price: {input: 1.00, output: 2.00}}
  - {name: chat, model: gpt-4o, providers: [chatonly]}
  - {name: sonnet, model: claude-sonnet-4-5, providers: [claude]}
routes:
  - {name: fim, targets: [coder, coder2]}
  - {name: mixed, targets: [chat, sonnet, coder2]}
  - {name: chatty, targets: [chat, sonnet]}
  - {name: then, targets: [coder, chat]}
`

// completionJSON is a whole text_completion answering text as model.
func completionJSON(model, text string) string {
	return fmt.Sprintf(`{"id":"cmpl-1","object":"text_completion","created":1764489600,"model":%q,`+
		`"choices":[{"text":%q,"index":0,"logprobs":null,"finish_reason":"stop"}],`+
		`"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}`, model, text)
}

// completionStream is a Completions stream answering the parts as model:
// an empty first text (vLLM's), one chunk per part, a finish chunk, a
// usage chunk (stream_options.include_usage) and [DONE].
func completionStream(model string, parts ...string) []string {
	chunk := func(text, finish string) string {
		return fmt.Sprintf(`{"id":"cmpl-1","object":"text_completion","created":1764489600,"model":%q,"choices":[{"text":%q,"index":0,"logprobs":null,"finish_reason":%s}]}`,
			model, text, finish)
	}
	evs := []string{chunk("", "null")}
	for _, p := range parts {
		evs = append(evs, chunk(p, "null"))
	}
	evs = append(evs, chunk("", `"stop"`),
		fmt.Sprintf(`{"id":"cmpl-1","object":"text_completion","created":1764489600,"model":%q,"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":%d,"total_tokens":%d}}`,
			model, len(parts), 12+len(parts)))
	return append(evs, "[DONE]")
}

func completionsGateway(t *testing.T, scripts map[string]upstreamtest.Script) (*gateway, map[string]*upstreamtest.Server, openai.Client) {
	t.Helper()
	return completionsGatewayOf(t, completionsCfg, "unused", scripts, "vllm", "backup", "chatonly", "claude")
}

// completionsGatewayOf starts a gateway on cfg whose fakes are names, each
// answering a 500 where scripts has none, and an openai-go client with the
// client key key that retries nothing.
func completionsGatewayOf(t *testing.T, cfg, key string, scripts map[string]upstreamtest.Script, names ...string) (*gateway, map[string]*upstreamtest.Server, openai.Client) {
	t.Helper()
	for _, name := range names {
		if scripts[name] == nil {
			scripts[name] = script(upstreamtest.Step{Status: 500, Body: `{"error":{"message":"not scripted"}}`})
		}
	}
	fs := fakes(t, scripts)
	g := start(t, cfg, fs)
	return g, fs, openai.NewClient(option.WithBaseURL(g.URL+"/v1/"), option.WithAPIKey(key), option.WithMaxRetries(0))
}

// fimParams is an editor's fill-in-the-middle request.
func fimParams(model string) openai.CompletionNewParams {
	return openai.CompletionNewParams{Model: openai.CompletionNewParamsModel(model),
		Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("def add(a, b):\n    ")},
		Suffix: openai.String("\n\nprint(add(1, 2))"), MaxTokens: openai.Int(16), Temperature: openai.Float(0),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}}
}

// wantCost checks the record's cost: 12 prompt tokens at $1 and n
// completion tokens at $2 a million.
func wantCost(t *testing.T, got float64, completion int) {
	t.Helper()
	if want := (12*1.00 + float64(completion)*2.00) / 1e6; math.Abs(got-want) > 1e-12 {
		t.Errorf("cost_usd %v, want %v", got, want)
	}
}

// The SDK's Completions.New: the upstream gets the client's body with only
// "model" replaced at {base_url}/completions; the client gets its answer,
// the record its usage and cost.
func TestCompletionsSDKWhole(t *testing.T) {
	g, fs, c := completionsGateway(t, map[string]upstreamtest.Script{"vllm": script(upstreamtest.Step{Body: completionJSON("qwen-coder", "return a + b")})})
	res, err := c.Completions.New(context.Background(), fimParams("fim"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Choices) != 1 || res.Choices[0].Text != "return a + b" || res.Choices[0].FinishReason != "stop" || res.Model != "qwen-coder" || res.Usage.TotalTokens != 15 {
		t.Fatalf("answer %+v", res)
	}
	reqs := fs["vllm"].Requests()
	if len(reqs) != 1 || reqs[0].Path != "/completions" || reqs[0].Header.Get("Authorization") != "Bearer "+secret {
		t.Fatalf("upstream requests %+v", reqs)
	}
	var sent map[string]any
	if err := json.Unmarshal(reqs[0].Body, &sent); err != nil {
		t.Fatal(err)
	}
	if sent["model"] != "qwen-coder" || sent["suffix"] != "\n\nprint(add(1, 2))" || sent["prompt"] != "def add(a, b):\n    " || sent["max_tokens"] != 16.0 || sent["messages"] != nil {
		t.Errorf("upstream body %s", reqs[0].Body)
	}
	d := g.recs.wait(t, 1)
	if d.API != "completions" || d.Outcome != "ok" || d.Usage == nil || d.Usage.PromptTokens != 12 || d.Usage.CompletionTokens != 3 || !d.CostUSD.Known() {
		t.Fatalf("record %+v usage %+v", d, d.Usage)
	}
	wantCost(t, float64(*d.CostUSD), 3)
}

// The SDK's Completions.NewStreaming: every chunk relayed, [DONE], and the
// usage chunk the client asked for counts in the record.
func TestCompletionsSDKStream(t *testing.T) {
	g, fs, c := completionsGateway(t, map[string]upstreamtest.Script{"vllm": script(upstreamtest.Step{Events: completionStream("qwen-coder", "return", " a + b")})})
	s := c.Completions.NewStreaming(context.Background(), fimParams("fim"))
	var text strings.Builder
	var finish string
	var usage int64
	for s.Next() {
		ch := s.Current()
		for _, c := range ch.Choices {
			text.WriteString(c.Text)
			if c.FinishReason != "" {
				finish = string(c.FinishReason)
			}
		}
		usage = max(usage, ch.Usage.TotalTokens)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	if text.String() != "return a + b" || finish != "stop" || usage != 14 {
		t.Fatalf("stream text %q finish %q usage %d", text.String(), finish, usage)
	}
	if r := fs["vllm"].Requests(); len(r) != 1 || !r[0].Streamed() || !strings.Contains(string(r[0].Body), `"stream_options":{"include_usage":true}`) {
		t.Fatalf("upstream requests %+v", r)
	}
	d := g.recs.wait(t, 1)
	if d.API != "completions" || !d.Stream || d.Outcome != "ok" || d.Usage == nil || d.Usage.CompletionTokens != 2 || !d.CostUSD.Known() {
		t.Fatalf("record %+v", d)
	}
	wantCost(t, float64(*d.CostUSD), 2)
}

// A 429 and a spend cap sent as 400 on the first target move the request
// to the second, whole and streamed.
func TestCompletionsFailover(t *testing.T) {
	for _, tc := range []struct {
		name  string
		first upstreamtest.Step
		class string
	}{
		{"429", upstreamtest.Step{Status: 429, Header: map[string]string{"Retry-After": "120"},
			Body: `{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}`}, "rate_limited"},
		{"spend cap 400", corpus(t, "openai-billing-hard-limit-reached-400"), "quota"},
	} {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s stream %v", tc.name, stream), func(t *testing.T) {
				g, fs, c := completionsGateway(t, map[string]upstreamtest.Script{
					"vllm":   script(tc.first),
					"backup": script(upstreamtest.Step{Body: completionJSON("qwen-coder-b", "b")}, upstreamtest.Step{Events: completionStream("qwen-coder-b", "b")}),
				})
				var text string
				if stream {
					s := c.Completions.NewStreaming(context.Background(), fimParams("fim"))
					for s.Next() {
						for _, ch := range s.Current().Choices {
							text += ch.Text
						}
					}
					if err := s.Err(); err != nil {
						t.Fatal(err)
					}
				} else {
					res, err := c.Completions.New(context.Background(), fimParams("fim"))
					if err != nil {
						t.Fatal(err)
					}
					text = res.Choices[0].Text
				}
				if text != "b" || fs["backup"].Calls() != 1 {
					t.Fatalf("text %q, backup calls %d", text, fs["backup"].Calls())
				}
				d := g.recs.wait(t, 1)
				wantSteps(t, d, "coder/vllm "+tc.class+" next_target", "coder2/backup ok done")
			})
		}
	}
}

// Targets that do not serve the API (a chat-only OpenAI provider, Claude)
// are passed over unsent — status 0, evidence "translate", Detour's plain
// reason — and the one that does answers.
func TestCompletionsSkipsTargetsWithoutIt(t *testing.T) {
	g, fs, c := completionsGateway(t, map[string]upstreamtest.Script{"backup": script(upstreamtest.Step{Body: completionJSON("qwen-coder-b", "ok")})})
	res, err := c.Completions.New(context.Background(), fimParams("mixed"))
	if err != nil || res.Choices[0].Text != "ok" {
		t.Fatalf("%+v, %v", res, err)
	}
	if fs["chatonly"].Calls() != 0 || fs["claude"].Calls() != 0 {
		t.Fatalf("a target without completions was called: chat %d, claude %d", fs["chatonly"].Calls(), fs["claude"].Calls())
	}
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "chat/chatonly unknown next_target", "sonnet/claude unknown next_target", "coder2/backup ok done")
	for _, a := range d.Attempts[:2] {
		if a.Status != 0 || a.Evidence != "translate" || a.Counted || a.Billable || !strings.Contains(a.Message, "completions: true") {
			t.Errorf("pass-over %+v", a)
		}
	}
}

// A route none of whose targets serves the API is a 400 before any call,
// in the OpenAI envelope, naming the routes and targets that do.
func TestCompletionsRouteWithoutIt(t *testing.T) {
	g, fs, c := completionsGateway(t, map[string]upstreamtest.Script{})
	_, err := c.Completions.New(context.Background(), fimParams("chatty"))
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest || apiErr.Code != "api_not_served" || apiErr.Type != "invalid_request_error" {
		t.Fatalf("error %v", err)
	}
	for _, want := range []string{`"chatty"`, "completions: true", "coder, coder2, fim, mixed, then"} {
		if !strings.Contains(apiErr.Message, want) {
			t.Errorf("message %q lacks %q", apiErr.Message, want)
		}
	}
	if fs["chatonly"].Calls()+fs["claude"].Calls() != 0 {
		t.Error("an upstream was called")
	}
	if r := g.post(t, "fim", ""); r.Status != 200 && r.Status != 500 { // the chat door is untouched
		t.Errorf("chat door: %d", r.Status)
	}
}

// The front's refusals, in the OpenAI envelope: bad JSON, no model, a
// "stream" that is not a bool (400), an unknown model (404 naming the
// known ones).
func TestCompletionsFront(t *testing.T) {
	g, _, _ := completionsGateway(t, map[string]upstreamtest.Script{})
	for _, tc := range []struct {
		body   string
		status int
		want   string
	}{
		{`{"model":"fim","prompt":"x"`, 400, ""},
		{`{"prompt":"x"}`, 400, `"model"`},
		{`{"model":"fim","prompt":"x","stream":"yes"}`, 400, `"stream" must be a boolean`},
		{`{"model":"nope","prompt":"x"}`, 404, "known: chat, chatty, coder, coder2, fim, mixed, sonnet, then"},
	} {
		r := g.raw(t, http.MethodPost, "/v1/completions", tc.body)
		r.wantStatus(t, tc.status)
		if msg := r.errMessage(t); !strings.Contains(msg, tc.want) {
			t.Errorf("%s: message %q, want %q", tc.body, msg, tc.want)
		}
	}
}

// A stream that stalls after its first text — silent, or sending only
// empty texts — ends by idle_timeout (300 ms): an empty text is no
// content and restarts nothing.
func TestCompletionsStalledStream(t *testing.T) {
	first := "data: " + completionStream("qwen-coder", "Hel")[1] + "\n\n"
	for _, tc := range []struct{ name, ping string }{
		{"empty texts", "data: " + completionStream("qwen-coder")[0] + "\n\n"},
		{"comments", ": keep-alive\n\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := dripServer(t, first, tc.ping)
			g := start(t, strings.Replace(completionsCfg, `"{vllm}"`, `"`+up.URL+`"`, 1), fakes(t, map[string]upstreamtest.Script{
				"backup": script(ok("x", "x")), "chatonly": script(ok("x", "x")), "claude": script(ok("x", "x"))}))
			c := openai.NewClient(option.WithBaseURL(g.URL+"/v1/"), option.WithAPIKey("unused"), option.WithMaxRetries(0))
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			s := c.Completions.NewStreaming(ctx, fimParams("coder"))
			var text string
			for s.Next() {
				for _, ch := range s.Current().Choices {
					text += ch.Text
				}
			}
			if text != "Hel" || s.Err() == nil || ctx.Err() != nil {
				t.Fatalf("text %q, error %v (context %v): want the first text, then the error event", text, s.Err(), ctx.Err())
			}
			d := g.recs.wait(t, 1)
			if n := len(d.Attempts); n != 1 || d.Attempts[0].Evidence != "timeout:idle" || d.Class != "timeout" {
				t.Fatalf("record %+v", d)
			}
		})
	}
}

// A server that ignores "stream" answers a whole text_completion: it ran
// and was billed, so a streaming client gets it as the stream's one chunk
// (a Completions chunk has the whole answer's shape), then [DONE].
func TestCompletionsWholeAnswerToAStream(t *testing.T) {
	g, _, c := completionsGateway(t, map[string]upstreamtest.Script{"vllm": script(upstreamtest.Step{Body: completionJSON("qwen-coder", "return a + b")})})
	s := c.Completions.NewStreaming(context.Background(), fimParams("fim"))
	var text, finish string
	chunks := 0
	for s.Next() {
		chunks++
		for _, ch := range s.Current().Choices {
			text, finish = text+ch.Text, string(ch.FinishReason)
		}
	}
	if err := s.Err(); err != nil || text != "return a + b" || finish != "stop" || chunks != 1 {
		t.Fatalf("%d chunks, text %q, finish %q, %v", chunks, text, finish, err)
	}
	if d := g.recs.wait(t, 1); d.Outcome != "ok" || d.Usage == nil || d.Usage.CompletionTokens != 3 {
		t.Fatalf("record %+v", d)
	}
}

// Client keys hold at this door as at chat's: no key is a 401, the key's
// name is in the record, and what a request cost counts against its
// budget, so the next one is refused with 429.
func TestCompletionsClientKeyBudget(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"vllm": script(upstreamtest.Step{Body: completionJSON("qwen-coder", "x")}),
		"backup": script(ok("x", "x")), "chatonly": script(ok("x", "x")), "claude": script(ok("x", "x"))})
	g := start(t, "client_keys:\n  - {name: editor, key: key-editor, budget: {usd_per_day: 0.00001}}\n"+completionsCfg, fs)
	body := `{"model":"fim","prompt":"def f(","max_tokens":8}`
	g.raw(t, http.MethodPost, "/v1/completions", body).wantStatus(t, http.StatusUnauthorized)
	r := g.raw(t, http.MethodPost, "/v1/completions", body, "Authorization", "Bearer key-editor")
	r.wantStatus(t, http.StatusOK)
	if d := g.recs.wait(t, 1); d.Client != "editor" || d.API != "completions" || !d.CostUSD.Known() {
		t.Fatalf("record %+v", d)
	}
	r = g.raw(t, http.MethodPost, "/v1/completions", body, "Authorization", "Bearer key-editor")
	r.wantStatus(t, http.StatusTooManyRequests)
	if e, _ := r.json(t)["error"].(map[string]any); e["code"] != "client_budget_exceeded" {
		t.Errorf("refusal %s", r.Body)
	}
	if fs["vllm"].Calls() != 1 {
		t.Errorf("upstream calls %d, want 1", fs["vllm"].Calls())
	}
}

// A pass-over is no one's answer: when the route's one completions target
// fails and the walk then passes over a target without the API, the
// client gets the real failure (a 429 with its Retry-After), not Detour's
// reason for the pass-over.
func TestCompletionsPassOverIsNoAnswer(t *testing.T) {
	g, fs, _ := completionsGateway(t, map[string]upstreamtest.Script{"vllm": script(upstreamtest.Step{Status: 429, Header: map[string]string{"Retry-After": "120"},
		Body: `{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}`})})
	r := g.raw(t, http.MethodPost, "/v1/completions", `{"model":"then","prompt":"x"}`)
	r.wantStatus(t, http.StatusTooManyRequests)
	if r.Header.Get("Retry-After") == "" || !strings.Contains(r.errMessage(t), "Rate limit reached") || fs["chatonly"].Calls() != 0 {
		t.Fatalf("%v %s", r.Header, r.Body)
	}
	wantSteps(t, g.recs.wait(t, 1), "coder/vllm rate_limited next_target", "chat/chatonly unknown stop")
}
