package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Probe 67c: the official Go SDKs at the versions go.mod pins
// (openai-go v3.102.0, anthropic-sdk-go v2.17.0), their newest request
// and answer features, at every door, passthrough and translated. The
// upstreams answer in their vendor's documented shape; the SDK reads the
// answer the way an application does (its accumulators, its typed errors).

const probe67cCfg = `
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `, completions: true}
  - {name: deepseek, dialect: openai, base_url: "{deepseek}", api_key: ` + secret + `}
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
  - {name: gemini, dialect: gemini, base_url: "{gemini}", api_key: ` + secret + `}
  - {name: oresp, dialect: openai, base_url: "{oresp}", api_key: ` + secret + `, responses: true}
targets:
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
  - {name: ds, model: deepseek-reasoner, providers: [deepseek]}
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: gem, model: gemini-2.0-flash, providers: [gemini]}
  - {name: gpt5, model: gpt-5.4, providers: [oresp]}
routes:
  - {name: r-gpt, targets: [gpt]}
  - {name: r-ds, targets: [ds]}
  - {name: r-claude, targets: [claude]}
  - {name: r-gem, targets: [gem]}
  - {name: r-gpt5, targets: [gpt5]}
`

// probe67cFakes serves each named dialect's script; every other fake fails loudly.
func probe67cFakes(t *testing.T, scripts map[string]upstreamtest.Script) map[string]*upstreamtest.Server {
	t.Helper()
	all := map[string]upstreamtest.Script{}
	for _, n := range []string{"openai", "deepseek", "anthropic", "gemini", "oresp"} {
		all[n] = script(upstreamtest.Step{Status: 500, Body: `{"error":{"message":"not this one"}}`})
	}
	for n, s := range scripts {
		all[n] = s
	}
	return fakes(t, all)
}

func probe67cOpenAI(g *gateway, opts ...option.RequestOption) openai.Client {
	return openai.NewClient(append([]option.RequestOption{option.WithBaseURL(g.URL + "/v1/"), option.WithAPIKey("unused"), option.WithMaxRetries(0)}, opts...)...)
}

// chunk67c is one chat.completion.chunk of id chatcmpl-67c.
func chunk67c(model string, choices []map[string]any, usage map[string]any) string {
	m := map[string]any{"id": "chatcmpl-67c", "object": "chat.completion.chunk", "created": 1764489600, "model": model,
		"system_fingerprint": "fp_67c", "choices": choices}
	if usage != nil {
		m["usage"] = usage
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// anthropicEv is one Anthropic stream event.
func anthropicEv(typ string, v map[string]any) string {
	v["type"] = typ
	b, _ := json.Marshal(v)
	return "event: " + typ + "\ndata: " + string(b)
}

// TestProbe67cMessagesPassthroughWebSearchAccumulate: an Anthropic stream
// with a server tool call, its result and a cited text block (the web
// search answer of https://docs.claude.com/en/docs/build-with-claude/streaming,
// shortened to one result and one citation) reaches Message.Accumulate whole
// through the Messages door's passthrough.
func TestProbe67cMessagesPassthroughWebSearchAccumulate(t *testing.T) {
	citation := map[string]any{"type": "web_search_result_location", "cited_text": "Sunny, high of 75°F.", "url": "https://weather.example/nyc",
		"title": "NYC weather", "encrypted_index": "Eo8BCioIAhgBIiQ"}
	events := []string{
		anthropicEv("message_start", map[string]any{"message": map[string]any{"id": "msg_01G67c", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 2679, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 3}}}),
		anthropicEv("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "text", "text": ""}}),
		anthropicEv("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "text_delta", "text": "I'll check the weather."}}),
		anthropicEv("content_block_stop", map[string]any{"index": 0}),
		anthropicEv("content_block_start", map[string]any{"index": 1, "content_block": map[string]any{"type": "server_tool_use", "id": "srvtoolu_014hJH82Qum7Td6UV8gDXThB", "name": "web_search", "input": map[string]any{}}}),
		anthropicEv("content_block_delta", map[string]any{"index": 1, "delta": map[string]any{"type": "input_json_delta", "partial_json": `{"query": "weather NYC today"}`}}),
		anthropicEv("content_block_stop", map[string]any{"index": 1}),
		anthropicEv("content_block_start", map[string]any{"index": 2, "content_block": map[string]any{"type": "web_search_tool_result", "tool_use_id": "srvtoolu_014hJH82Qum7Td6UV8gDXThB",
			"content": []any{map[string]any{"type": "web_search_result", "title": "NYC weather", "url": "https://weather.example/nyc", "encrypted_content": "Ev0DCioIAxgCIiQ3NmU", "page_age": "1 day ago"}}}}),
		anthropicEv("content_block_stop", map[string]any{"index": 2}),
		anthropicEv("content_block_start", map[string]any{"index": 3, "content_block": map[string]any{"type": "text", "text": ""}}),
		anthropicEv("content_block_delta", map[string]any{"index": 3, "delta": map[string]any{"type": "citations_delta", "citation": citation}}),
		anthropicEv("content_block_delta", map[string]any{"index": 3, "delta": map[string]any{"type": "text_delta", "text": "It is sunny, with a high of 75°F."}}),
		anthropicEv("content_block_stop", map[string]any{"index": 3}),
		anthropicEv("message_delta", map[string]any{"delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil},
			"usage": map[string]any{"input_tokens": 10682, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 510, "server_tool_use": map[string]any{"web_search_requests": 1}}}),
		anthropicEv("message_stop", map[string]any{}),
	}
	fs := probe67cFakes(t, map[string]upstreamtest.Script{"anthropic": script(upstreamtest.Step{Events: events})})
	g := start(t, probe67cCfg, fs)
	p := askClaude("r-claude", "What's the weather in NYC?")
	p.Tools = []anthropic.ToolUnionParam{{OfWebSearchTool20250305: &anthropic.WebSearchTool20250305Param{MaxUses: anthropic.Int(5)}}}
	s := anthropicSDK(g, nil).Messages.NewStreaming(context.Background(), p)
	var msg anthropic.Message
	for s.Next() {
		if err := msg.Accumulate(s.Current()); err != nil {
			t.Fatalf("Accumulate: %v", err)
		}
	}
	if err := s.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	if len(msg.Content) != 4 {
		t.Fatalf("%d blocks, want 4: %s", len(msg.Content), msg.RawJSON())
	}
	if b := msg.Content[1]; b.Type != "server_tool_use" || b.Name != "web_search" || !strings.Contains(string(b.Input), "weather NYC today") {
		t.Errorf("server_tool_use block: %s", b.RawJSON())
	}
	if b := msg.Content[2].AsWebSearchToolResult(); b.ToolUseID != "srvtoolu_014hJH82Qum7Td6UV8gDXThB" || len(b.Content.OfWebSearchResultBlockArray) != 1 {
		t.Errorf("web_search_tool_result block: %s", msg.Content[2].RawJSON())
	}
	if b := msg.Content[3]; len(b.Citations) != 1 || b.Citations[0].URL != "https://weather.example/nyc" || b.Text != "It is sunny, with a high of 75°F." {
		t.Errorf("cited text block: %s", b.RawJSON())
	}
	if msg.Usage.ServerToolUse.WebSearchRequests != 1 || msg.Usage.InputTokens != 10682 || msg.StopReason != anthropic.StopReasonEndTurn {
		t.Errorf("usage/stop: %s %s", msg.Usage.RawJSON(), msg.StopReason)
	}
}

// TestProbe67cResponsesReasoningAccumulator: a Responses client on a chat
// target that reasons (DeepSeek's reasoning_content), read with openai-go's
// ResponseAccumulator and its ReconstructedResponse, the way the SDK's
// helpers read a Responses turn.
func TestProbe67cResponsesReasoningAccumulator(t *testing.T) {
	m := "deepseek-reasoner"
	ch := func(delta map[string]any, finish any) string {
		return chunk67c(m, []map[string]any{{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}, nil)
	}
	events := []string{
		ch(map[string]any{"role": "assistant", "content": nil, "reasoning_content": ""}, nil),
		ch(map[string]any{"content": nil, "reasoning_content": "The user greets. "}, nil),
		ch(map[string]any{"content": nil, "reasoning_content": "Greet back."}, nil),
		ch(map[string]any{"content": "Hello", "reasoning_content": nil}, nil),
		ch(map[string]any{"content": "!", "reasoning_content": nil}, nil),
		ch(map[string]any{"content": "", "reasoning_content": nil}, "stop"),
		chunk67c(m, []map[string]any{}, map[string]any{"prompt_tokens": 10, "completion_tokens": 20, "total_tokens": 30,
			"prompt_tokens_details": map[string]any{"cached_tokens": 0}, "completion_tokens_details": map[string]any{"reasoning_tokens": 12},
			"prompt_cache_hit_tokens": 0, "prompt_cache_miss_tokens": 10}),
		"[DONE]",
	}
	fs := probe67cFakes(t, map[string]upstreamtest.Script{"deepseek": script(upstreamtest.Step{Events: events})})
	g := start(t, probe67cCfg, fs)
	c := probe67cOpenAI(g)
	s := c.Responses.NewStreaming(context.Background(), say("r-ds", "hi"))
	var racc responses.ResponseAccumulator
	var completed responses.Response
	for s.Next() {
		ev := s.Current()
		var sev responses.ResponsesServerEventUnion
		if err := json.Unmarshal([]byte(ev.RawJSON()), &sev); err != nil {
			t.Fatalf("%s: %v", ev.Type, err)
		}
		if err := racc.AddEvent(sev); err != nil {
			t.Errorf("ResponseAccumulator refused %s: %v", ev.RawJSON(), err)
		}
		if ev.Type == "response.completed" {
			completed = ev.Response
		}
	}
	if err := s.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	r, err := racc.ReconstructedResponse()
	if err != nil {
		t.Fatalf("ReconstructedResponse: %v", err)
	}
	if r.OutputText() != "Hello!" || completed.OutputText() != "Hello!" {
		t.Errorf("output text %q / %q", r.OutputText(), completed.OutputText())
	}
	if snap := racc.Snapshot(); snap.OutputText() != "Hello!" || snap.TerminalEvent != "response.completed" {
		t.Errorf("snapshot %q %q", snap.OutputText(), snap.TerminalEvent)
	}
	if len(r.Output) != 2 || r.Output[0].Type != "reasoning" || r.Output[1].Type != "message" {
		t.Fatalf("output items: %s", r.RawJSON())
	}
	if rs := r.Output[0].AsReasoning(); len(rs.Content) != 1 || rs.Content[0].Text != "The user greets. Greet back." {
		t.Errorf("reasoning item: %s", r.Output[0].RawJSON())
	}
	if u := completed.Usage; u.InputTokens != 10 || u.OutputTokens != 20 || u.OutputTokensDetails.ReasoningTokens != 12 || !u.InputTokensDetails.JSON.CacheWriteTokens.Valid() {
		t.Errorf("usage: %s", u.RawJSON())
	}
}

// TestProbe67cChatPassthroughLogprobsTwoChoices: n=2 with logprobs and
// include_usage through the chat door to an OpenAI target, read with
// openai-go's ChatCompletionAccumulator: both choices, their log
// probabilities and the usage chunk arrive whole.
func TestProbe67cChatPassthroughLogprobsTwoChoices(t *testing.T) {
	m := "gpt-4o-mini-2024-07-18"
	lp := func(tok string) map[string]any {
		return map[string]any{"content": []any{map[string]any{"token": tok, "logprob": -0.25, "bytes": []byte(tok), "top_logprobs": []any{map[string]any{"token": tok, "logprob": -0.25, "bytes": []byte(tok)}}}}, "refusal": nil}
	}
	events := []string{
		chunk67c(m, []map[string]any{{"index": 0, "delta": map[string]any{"role": "assistant", "content": "", "refusal": nil}, "logprobs": map[string]any{"content": []any{}, "refusal": nil}, "finish_reason": nil}}, nil),
		chunk67c(m, []map[string]any{{"index": 1, "delta": map[string]any{"role": "assistant", "content": "", "refusal": nil}, "logprobs": map[string]any{"content": []any{}, "refusal": nil}, "finish_reason": nil}}, nil),
		chunk67c(m, []map[string]any{{"index": 0, "delta": map[string]any{"content": "Hi"}, "logprobs": lp("Hi"), "finish_reason": nil}}, nil),
		chunk67c(m, []map[string]any{{"index": 1, "delta": map[string]any{"content": "Hello"}, "logprobs": lp("Hello"), "finish_reason": nil}}, nil),
		chunk67c(m, []map[string]any{{"index": 0, "delta": map[string]any{}, "logprobs": nil, "finish_reason": "stop"}}, nil),
		chunk67c(m, []map[string]any{{"index": 1, "delta": map[string]any{}, "logprobs": nil, "finish_reason": "stop"}}, nil),
		chunk67c(m, []map[string]any{}, map[string]any{"prompt_tokens": 8, "completion_tokens": 2, "total_tokens": 10}),
		"[DONE]",
	}
	fs := probe67cFakes(t, map[string]upstreamtest.Script{"openai": script(upstreamtest.Step{Events: events})})
	g := start(t, probe67cCfg, fs)
	c := probe67cOpenAI(g)
	p := openai.ChatCompletionNewParams{Model: "r-gpt", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
		N: openai.Int(2), Logprobs: openai.Bool(true), TopLogprobs: openai.Int(1),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}}
	s := c.Chat.Completions.NewStreaming(context.Background(), p)
	var acc openai.ChatCompletionAccumulator
	for s.Next() {
		if !acc.AddChunk(s.Current()) {
			t.Errorf("rejected: %s", s.Current().RawJSON())
		}
	}
	if err := s.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	if len(acc.Choices) != 2 || acc.Choices[0].Message.Content != "Hi" || acc.Choices[1].Message.Content != "Hello" {
		t.Fatalf("choices: %+v", acc.Choices)
	}
	if len(acc.Choices[1].Logprobs.Content) != 1 || acc.Choices[1].Logprobs.Content[0].Token != "Hello" {
		t.Errorf("logprobs of choice 1: %+v", acc.Choices[1].Logprobs)
	}
	if acc.Usage.TotalTokens != 10 || acc.SystemFingerprint != "fp_67c" {
		t.Errorf("usage %+v fingerprint %q", acc.Usage, acc.SystemFingerprint)
	}
}

// TestProbe67cChatPromptCacheBreakpointToClaude: openai-go's per-part
// prompt_cache_breakpoint (v3.89) on a long system prompt and on the user's
// text, through the chat door to a Claude target: Claude caches only where a
// block is marked, so each mark reaches it as cache_control (the ttl, the
// least the cache is to live, as Claude's 1h; none as Claude's default).
func TestProbe67cChatPromptCacheBreakpointToClaude(t *testing.T) {
	fs := probe67cFakes(t, map[string]upstreamtest.Script{"anthropic": script(upstreamtest.Step{Body: anthropicMessage("claude-sonnet-4-5-20250929", "ok")})})
	g := start(t, probe67cCfg, fs)
	c := probe67cOpenAI(g)
	sys := openai.ChatCompletionSystemMessageParam{Content: openai.ChatCompletionSystemMessageParamContentUnion{
		OfArrayOfContentParts: []openai.ChatCompletionContentPartTextParam{{Text: strings.Repeat("You are a careful assistant. ", 200),
			PromptCacheBreakpoint: openai.ChatCompletionContentPartTextPromptCacheBreakpointParam{Ttl: "30m"}}}}}
	user := openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{{OfText: &openai.ChatCompletionContentPartTextParam{
		Text: "Here is the document: " + strings.Repeat("lorem ipsum ", 100), PromptCacheBreakpoint: openai.ChatCompletionContentPartTextPromptCacheBreakpointParam{Mode: "explicit"}}},
		openai.TextContentPart("What does it say?")})
	p := openai.ChatCompletionNewParams{Model: "r-claude", Messages: []openai.ChatCompletionMessageParamUnion{{OfSystem: &sys}, user}}
	if _, err := c.Chat.Completions.New(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	raw := lastRaw(t, fs["anthropic"])
	var req struct {
		System []struct {
			Text         string          `json:"text"`
			CacheControl json.RawMessage `json:"cache_control"`
		} `json:"system"`
		Messages []struct {
			Content []struct {
				Text         string          `json:"text"`
				CacheControl json.RawMessage `json:"cache_control"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(raw, &req); err != nil || len(req.System) != 1 || len(req.Messages) != 1 || len(req.Messages[0].Content) != 2 {
		t.Fatalf("the client's prompt_cache_breakpoint reached Claude as no cache_control (%v): %.400s", err, raw)
	}
	if got := string(req.System[0].CacheControl); got != `{"type":"ephemeral","ttl":"1h"}` {
		t.Errorf("system block's mark %s, want ephemeral 1h", got)
	}
	if got := string(req.Messages[0].Content[0].CacheControl); got != `{"type":"ephemeral"}` {
		t.Errorf("user block's mark %s, want ephemeral", got)
	}
	if got := req.Messages[0].Content[1].CacheControl; got != nil {
		t.Errorf("an unmarked block got %s", got)
	}
}

// TestProbe67cOwnErrorsDecoded: Detour's own refusal of an unknown model,
// at every door, as each SDK decodes it.
func TestProbe67cOwnErrorsDecoded(t *testing.T) {
	fs := probe67cFakes(t, nil)
	g := start(t, probe67cCfg, fs)
	c := probe67cOpenAI(g)
	check := func(door string, err error) {
		t.Helper()
		var e *openai.Error
		if !errors.As(err, &e) {
			t.Errorf("%s: %T %v, want *openai.Error", door, err, err)
			return
		}
		if e.StatusCode != http.StatusNotFound && e.StatusCode != http.StatusBadRequest || e.Message == "" || e.Type == "" || e.Code == "" {
			t.Errorf("%s: %d %q %q %q %q", door, e.StatusCode, e.Type, e.Code, e.Param, e.Message)
		}
		if e.Response == nil || e.Response.Header.Get("x-request-id") == "" {
			t.Errorf("%s: no x-request-id", door)
		}
	}
	_, err := c.Chat.Completions.New(context.Background(), hello("nope"))
	check("chat", err)
	_, err = c.Responses.New(context.Background(), say("nope", "hi"))
	check("responses", err)
	_, err = c.Embeddings.New(context.Background(), openai.EmbeddingNewParams{Model: "nope", Input: openai.EmbeddingNewParamsInputUnion{OfString: openai.String("x")}})
	check("embeddings", err)
	_, err = c.Completions.New(context.Background(), openai.CompletionNewParams{Model: "nope", Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("x")}})
	check("completions", err)
	s := c.Chat.Completions.NewStreaming(context.Background(), hello("nope"))
	for s.Next() {
	}
	check("chat stream", s.Err())
	rs := c.Responses.NewStreaming(context.Background(), say("nope", "hi"))
	for rs.Next() {
	}
	check("responses stream", rs.Err())

	ac := anthropicSDK(g, nil)
	acheck := func(door string, err error) {
		t.Helper()
		var e *anthropic.Error
		if !errors.As(err, &e) {
			t.Errorf("%s: %T %v, want *anthropic.Error", door, err, err)
			return
		}
		if e.Type() != "not_found_error" && e.Type() != "invalid_request_error" || e.Message == "" || e.RequestID == "" {
			t.Errorf("%s: %d type %q message %q request id %q", door, e.StatusCode, e.Type(), e.Message, e.RequestID)
		}
	}
	_, err = ac.Messages.New(context.Background(), askClaude("nope", "hi"))
	acheck("messages", err)
	as := ac.Messages.NewStreaming(context.Background(), askClaude("nope", "hi"))
	for as.Next() {
	}
	acheck("messages stream", as.Err())
	_, err = ac.Messages.CountTokens(context.Background(), anthropic.MessageCountTokensParams{Model: "nope",
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}})
	acheck("count_tokens", err)
}

// TestProbe67cChatTwoCandidatesCallGemini: n=2 on a Gemini target
// (candidateCount 2), each candidate calling a function, streamed to
// openai-go's ChatCompletionAccumulator: each choice gets its own call,
// and JustFinishedToolCallForChoice reports each.
func TestProbe67cChatTwoCandidatesCallGemini(t *testing.T) {
	// The documented functionCall shape (geminiTemperatureCall), two
	// candidates in one event, the first index omitted as proto3 JSON does.
	ev := `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_current_temperature","args":{"location":"London"}}}]},"finishReason":"STOP"},` +
		`{"content":{"role":"model","parts":[{"functionCall":{"name":"get_current_temperature","args":{"location":"Paris"}}}]},"finishReason":"STOP","index":1}],` +
		`"usageMetadata":{"promptTokenCount":58,"candidatesTokenCount":16,"totalTokenCount":74},"modelVersion":"gemini-2.0-flash","responseId":"doc-weather-2"}`
	fs := probe67cFakes(t, map[string]upstreamtest.Script{"gemini": script(upstreamtest.Step{Events: []string{ev}})})
	g := start(t, probe67cCfg, fs)
	c := probe67cOpenAI(g)
	p := ask("r-gem", "What's the temperature in London or Paris?", true)
	p.N = openai.Int(2)
	p.Tools = []openai.ChatCompletionToolUnionParam{temperatureTool()}
	s := c.Chat.Completions.NewStreaming(context.Background(), p)
	var acc openai.ChatCompletionAccumulator
	finished := map[int][]string{}
	for s.Next() {
		if !acc.AddChunk(s.Current()) {
			t.Errorf("rejected: %s", s.Current().RawJSON())
		}
		for i := range 2 {
			if tc, ok := acc.JustFinishedToolCallForChoice(i); ok {
				finished[i] = append(finished[i], tc.Arguments)
			}
		}
	}
	if err := s.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	if len(acc.Choices) != 2 {
		t.Fatalf("%d choices", len(acc.Choices))
	}
	for i, want := range []string{"London", "Paris"} {
		ch := acc.Choices[i]
		if len(ch.Message.ToolCalls) != 1 || !strings.Contains(ch.Message.ToolCalls[0].Function.Arguments, want) || ch.FinishReason != "tool_calls" {
			t.Errorf("choice %d: %+v finish %q", i, ch.Message.ToolCalls, ch.FinishReason)
		}
	}
	if acc.Choices[0].Message.ToolCalls[0].ID == acc.Choices[1].Message.ToolCalls[0].ID {
		t.Errorf("both choices' calls have id %q", acc.Choices[0].Message.ToolCalls[0].ID)
	}
	if len(finished[0]) != 1 || len(finished[1]) != 1 {
		t.Errorf("JustFinishedToolCallForChoice: %v", finished)
	}
}

// TestProbe67cMessagesToOpenAICacheWriteUsage: OpenAI's chat usage now
// names cache writes (prompt_tokens_details.cache_write_tokens, openai-go
// v3.94); an Anthropic client streaming through an OpenAI target reads them
// as cache_creation_input_tokens with Message.Accumulate.
func TestProbe67cMessagesToOpenAICacheWriteUsage(t *testing.T) {
	m := "gpt-4o-mini-2024-07-18"
	ch := func(delta map[string]any, finish any) string {
		return chunk67c(m, []map[string]any{{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}, nil)
	}
	events := []string{
		ch(map[string]any{"role": "assistant", "content": "", "refusal": nil}, nil),
		ch(map[string]any{"content": "Hello!"}, nil),
		ch(map[string]any{}, "stop"),
		chunk67c(m, []map[string]any{}, map[string]any{"prompt_tokens": 2006, "completion_tokens": 300, "total_tokens": 2306,
			"prompt_tokens_details":     map[string]any{"cached_tokens": 1000, "cache_write_tokens": 900, "audio_tokens": 0},
			"completion_tokens_details": map[string]any{"reasoning_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}}),
		"[DONE]",
	}
	fs := probe67cFakes(t, map[string]upstreamtest.Script{"openai": script(upstreamtest.Step{Events: events})})
	g := start(t, probe67cCfg, fs)
	s := anthropicSDK(g, nil).Messages.NewStreaming(context.Background(), askClaude("r-gpt", "hi"))
	var msg anthropic.Message
	for s.Next() {
		if err := msg.Accumulate(s.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	u := msg.Usage
	if u.InputTokens != 106 || u.CacheReadInputTokens != 1000 || u.CacheCreationInputTokens != 900 || u.OutputTokens != 300 {
		t.Errorf("usage: input %d, cache read %d, cache write %d, output %d (%s)", u.InputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens, u.OutputTokens, msg.RawJSON())
	}
	// The same answer whole, through the Responses door.
	fs["openai"].SetScript(script(upstreamtest.Step{Body: `{"id":"chatcmpl-67c","object":"chat.completion","created":1764489600,"model":"` + m + `","choices":[{"index":0,"message":{"role":"assistant","content":"Hello!","refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"stop"}],` +
		`"usage":{"prompt_tokens":2006,"completion_tokens":300,"total_tokens":2306,"prompt_tokens_details":{"cached_tokens":1000,"cache_write_tokens":900,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},"service_tier":"default","system_fingerprint":"fp_67c"}`}))
	c := probe67cOpenAI(g)
	r, err := c.Responses.New(context.Background(), say("r-gpt", "hi"))
	if err != nil {
		t.Fatal(err)
	}
	if d := r.Usage.InputTokensDetails; r.Usage.InputTokens != 2006 || d.CachedTokens != 1000 || d.CacheWriteTokens != 900 {
		t.Errorf("responses usage: %s", r.Usage.RawJSON())
	}
}

// TestProbe67cResponsesIncompleteCallAccumulator: a Claude answer cut at
// max_tokens inside a tool call, streamed to a Responses client: openai-go's
// ResponseAccumulator ends on response.incomplete, and its reconstructed
// response says incomplete, max_output_tokens, the call incomplete.
func TestProbe67cResponsesIncompleteCallAccumulator(t *testing.T) {
	events := []string{
		anthropicEv("message_start", map[string]any{"message": map[string]any{"id": "msg_01Cut67c", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 50, "output_tokens": 1}}}),
		anthropicEv("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "tool_use", "id": "toolu_01Cut67c", "name": "get_weather", "input": map[string]any{}}}),
		anthropicEv("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": `{"location": "Par`}}),
		anthropicEv("content_block_stop", map[string]any{"index": 0}),
		anthropicEv("message_delta", map[string]any{"delta": map[string]any{"stop_reason": "max_tokens", "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 16}}),
		anthropicEv("message_stop", map[string]any{}),
	}
	fs := probe67cFakes(t, map[string]upstreamtest.Script{"anthropic": script(upstreamtest.Step{Events: events})})
	g := start(t, probe67cCfg, fs)
	c := probe67cOpenAI(g)
	p := say("r-claude", "Weather in Paris?")
	p.MaxOutputTokens = openai.Int(16)
	p.Tools = []responses.ToolUnionParam{responses.ToolParamOfFunction("get_weather", map[string]any{"type": "object", "properties": map[string]any{"location": map[string]any{"type": "string"}}}, false)}
	s := c.Responses.NewStreaming(context.Background(), p)
	var racc responses.ResponseAccumulator
	for s.Next() {
		var sev responses.ResponsesServerEventUnion
		if err := json.Unmarshal([]byte(s.Current().RawJSON()), &sev); err != nil {
			t.Fatal(err)
		}
		if err := racc.AddEvent(sev); err != nil {
			t.Errorf("AddEvent %s: %v", s.Current().RawJSON(), err)
		}
	}
	if err := s.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	r, err := racc.ReconstructedResponse()
	if err != nil {
		t.Fatal(err)
	}
	if racc.Snapshot().TerminalEvent != "response.incomplete" || r.Status != "incomplete" || r.IncompleteDetails.Reason != "max_output_tokens" {
		t.Errorf("terminal %q status %q reason %q", racc.Snapshot().TerminalEvent, r.Status, r.IncompleteDetails.Reason)
	}
	if len(r.Output) != 1 || r.Output[0].Type != "function_call" || r.Output[0].Status != "incomplete" {
		t.Errorf("output: %s", r.RawJSON())
	}
}

// TestProbe67cRelayedOpenAIErrorKeepsCodeAndParam: OpenAI's own 400 for a
// value the model refuses (a reasoning model takes temperature 1 alone:
// code unsupported_value, param temperature), relayed to an openai-go
// client at the chat door (passthrough), the Responses door (a
// responses: true target, passthrough) and the Responses door translated
// to a chat target: the SDK's *openai.Error keeps OpenAI's Code and Param,
// which the client branches on (the value to drop and send again).
func TestProbe67cRelayedOpenAIErrorKeepsCodeAndParam(t *testing.T) {
	refused := corpus(t, "openai-unsupported-value-temperature-only-default-1-400")
	fs := probe67cFakes(t, map[string]upstreamtest.Script{"openai": script(refused), "oresp": script(refused)})
	g := start(t, probe67cCfg, fs)
	c := probe67cOpenAI(g)
	check := func(door string, err error) {
		t.Helper()
		var e *openai.Error
		if !errors.As(err, &e) {
			t.Fatalf("%s: %T %v", door, err, err)
		}
		if e.StatusCode != 400 || e.Type != "invalid_request_error" || e.Code != "unsupported_value" || e.Param != "temperature" {
			t.Errorf("%s: %d type %q code %q param %q (OpenAI said unsupported_value, temperature): %s", door, e.StatusCode, e.Type, e.Code, e.Param, e.RawJSON())
		}
	}
	p := hello("r-gpt")
	p.Temperature = openai.Float(0)
	_, err := c.Chat.Completions.New(context.Background(), p)
	check("chat", err)
	p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	s := c.Chat.Completions.NewStreaming(context.Background(), p)
	for s.Next() {
	}
	check("chat stream", s.Err())
	rp := say("r-gpt5", "hi")
	rp.Temperature = openai.Float(0)
	_, err = c.Responses.New(context.Background(), rp)
	check("responses native", err)
	rs := c.Responses.NewStreaming(context.Background(), rp)
	for rs.Next() {
	}
	check("responses native stream", rs.Err())
	rp.Model = "r-gpt"
	_, err = c.Responses.New(context.Background(), rp)
	check("responses translated", err)
	rs = c.Responses.NewStreaming(context.Background(), rp)
	for rs.Next() {
	}
	check("responses translated stream", rs.Err())
}

// TestProbe67cMessagesImageTooLargeDetails: anthropic-sdk-go v2.13's
// image_dimensions_too_large, the 400 Anthropic answers an image past its
// size limit when the client asks so (the image block's transformations
// oversized_image "error", v2.17), relayed through the Messages door's
// passthrough: the SDK's Error keeps its code and the details the client
// scales the image by (max_side_length_pixels, paths), as Anthropic sent
// them (shape: shared.ImageDimensionsTooLargeErrorDetails).
func TestProbe67cMessagesImageTooLargeDetails(t *testing.T) {
	body := `{"type":"error","error":{"type":"invalid_request_error","message":"messages.0.content.0.image: image dimensions exceed max allowed size: 8000 pixels",` +
		`"details":{"error_code":"image_dimensions_too_large","max_side_length_pixels":8000,"paths":["messages.0.content.0"]}},"request_id":"req_011CZ67cImageTooLarge"}`
	fs := probe67cFakes(t, map[string]upstreamtest.Script{"anthropic": script(upstreamtest.Step{Status: 400, Body: body,
		Header: map[string]string{"request-id": "req_011CZ67cImageTooLarge"}})})
	g := start(t, probe67cCfg, fs)
	img := anthropic.ImageBlockParam{Source: anthropic.ImageBlockParamSourceUnion{OfBase64: &anthropic.Base64ImageSourceParam{
		MediaType: anthropic.Base64ImageSourceMediaTypeImagePNG, Data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="}},
		Transformations: anthropic.ImageTransformationsParam{OversizedImage: anthropic.ImageTransformationsParamOversizedImageError}}
	p := askClaude("r-claude", "x")
	p.Messages = []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.ContentBlockParamUnion{OfImage: &img}, anthropic.NewTextBlock("What is in this image?"))}
	_, err := anthropicSDK(g, nil).Messages.New(context.Background(), p)
	var e *anthropic.Error
	if !errors.As(err, &e) {
		t.Fatalf("%T %v", err, err)
	}
	if e.StatusCode != 400 || e.ErrorCode() != anthropic.ErrorCodeImageDimensionsTooLarge {
		t.Fatalf("%d code %q: %s", e.StatusCode, e.ErrorCode(), e.RawJSON())
	}
	if !strings.Contains(string(lastRaw(t, fs["anthropic"])), `"oversized_image":"error"`) {
		t.Errorf("the image's transformations did not reach Claude: %s", lastRaw(t, fs["anthropic"]))
	}
	d := e.Details.AsImageDimensionsTooLarge()
	if d.MaxSideLengthPixels != 8000 || len(d.Paths) != 1 || d.Paths[0] != "messages.0.content.0" {
		t.Errorf("details lost: max_side_length_pixels %d, paths %q: %s", d.MaxSideLengthPixels, d.Paths, e.RawJSON())
	}
}

// TestProbe67cChatUntranslatableNamedParam: a chat request only OpenAI can
// answer (n above 1, log-probabilities, audio output, web search, a custom
// tool) on a Claude-only route is refused as a 400 whose param names the
// member, as openai-go decodes it.
// Before round 67 the 400 named the member only in its message: its code
// was the class ("unknown") and its param null, where OpenAI answers a
// member it does not take with code unsupported_parameter and that param.
func TestProbe67cChatUntranslatableNamedParam(t *testing.T) {
	fs := probe67cFakes(t, map[string]upstreamtest.Script{"anthropic": script(upstreamtest.Step{Body: anthropicMessage("claude-sonnet-4-5-20250929", "ok")})})
	g := start(t, probe67cCfg, fs)
	c := probe67cOpenAI(g)
	cases := []struct {
		name, param string
		set         func(p *openai.ChatCompletionNewParams)
	}{
		{"n", "n", func(p *openai.ChatCompletionNewParams) { p.N = openai.Int(2) }},
		{"logprobs", "logprobs", func(p *openai.ChatCompletionNewParams) { p.Logprobs = openai.Bool(true) }},
		{"audio", "modalities", func(p *openai.ChatCompletionNewParams) {
			p.Modalities = []string{"text", "audio"}
			p.Audio = openai.ChatCompletionAudioParam{Voice: openai.ChatCompletionAudioParamVoiceUnion{OfString: openai.String("alloy")}, Format: openai.ChatCompletionAudioParamFormatWAV}
		}},
		{"web search", "web_search_options", func(p *openai.ChatCompletionNewParams) {
			p.WebSearchOptions = openai.ChatCompletionNewParamsWebSearchOptions{SearchContextSize: "low"}
		}},
		{"custom tool", "tools", func(p *openai.ChatCompletionNewParams) {
			p.Tools = []openai.ChatCompletionToolUnionParam{openai.ChatCompletionCustomTool(openai.ChatCompletionCustomToolCustomParam{Name: "exec"})}
		}},
	}
	for _, tc := range cases {
		p := hello("r-claude")
		tc.set(&p)
		_, err := c.Chat.Completions.New(context.Background(), p)
		var e *openai.Error
		if !errors.As(err, &e) {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if e.StatusCode != 400 || !strings.HasPrefix(e.Param, tc.param) || e.Type != "invalid_request_error" || e.Code != "unsupported_parameter" {
			t.Errorf("%s: %d type %q code %q param %q: %s", tc.name, e.StatusCode, e.Type, e.Code, e.Param, e.Message)
		}
	}
}
