package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/clienttest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Round 50, helper c50c: the /v1/responses door as Codex CLI, the OpenAI
// Agents SDK and the Vercel AI SDK send it, on routes whose targets are
// Claude or Gemini (and, for failover, a responses: true OpenAI target
// first). Every request shape names its source.

// c50cCfg: an OpenAI provider serving Responses natively (as Codex and the
// AI SDK reach OpenAI), then a Claude and a Gemini target; plus routes of
// translated targets only.
const c50cCfg = `
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `, responses: true}
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
  - {name: gemini, dialect: gemini, base_url: "{gemini}", api_key: ` + secret + `}
targets:
  - {name: gpt, model: gpt-5-mini, providers: [openai]}
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: gem, model: gemini-2.5-flash, providers: [gemini]}
routes:
  - {name: nat-claude, targets: [gpt, claude]}
  - {name: nat-gem, targets: [gpt, gem]}
  - {name: via-claude, targets: [claude]}
  - {name: via-gem, targets: [gem]}
`

// c50cFakes: OpenAI (native Responses) is out of quota (the corpus case a
// real OpenAI answered), Claude and Gemini answer text.
func c50cFakes(t *testing.T) map[string]*upstreamtest.Server {
	return fakes(t, map[string]upstreamtest.Script{
		"openai":    script(corpus(t, "openai-insufficient-quota-429")),
		"anthropic": script(upstreamtest.Step{Body: anthropicMessage("claude-sonnet-4-5", "It is rainy in Seattle.")}),
		"gemini":    script(upstreamtest.Step{Body: geminiText("It is rainy in Seattle.")}),
	})
}

// c50cCodexWebSearchHistory is a Codex turn after the model searched the
// web at OpenAI (its web_search tool: Codex sends it on every request,
// docs/doors.md "Codex CLI 0.171.0"). Codex keeps the web_search_call item
// in its history and sends it back: openai/codex
// codex-rs/core/src/context_manager/history.rs (a20bf05) `is_api_message`
// keeps `ResponseItem::WebSearchCall`, and codex-rs/protocol/src/models.rs
// serialises it as {"type":"web_search_call","status":"completed",
// "action":{"type":"search","query":…}} (its `id` is skip_serializing).
// Codex's output_text content carries text only.
const c50cCodexWebSearchHistory = `{"model":%q,"instructions":"You are Codex, a coding agent.","input":[
 {"type":"message","role":"user","content":[{"type":"input_text","text":"What is the weather in Seattle today? Then tell me why."}]},
 {"type":"reasoning","summary":[{"type":"summary_text","text":"**Searching the web**"}],"encrypted_content":"gAAAAABo_fake_encrypted"},
 {"type":"web_search_call","status":"completed","action":{"type":"search","query":"weather seattle today"}},
 {"type":"message","role":"assistant","content":[{"type":"output_text","text":"It is rainy in Seattle, 11°C."}]},
 {"type":"message","role":"user","content":[{"type":"input_text","text":"why?"}]}],
 "tools":[{"type":"function","name":"shell","description":"Runs a shell command.","strict":false,"parameters":{"type":"object","properties":{"command":{"type":"array","items":{"type":"string"}}},"required":["command"],"additionalProperties":false}},{"type":"web_search","external_web_access":false}],
 "tool_choice":"auto","parallel_tool_calls":true,"reasoning":{"effort":"medium","summary":"auto"},
 "store":false,"stream":%v,"include":["reasoning.encrypted_content"],"prompt_cache_key":"0199f0c4-session","text":{"verbosity":"low"}}`

// c50cAISDKWebSearchHistory is the Vercel AI SDK's openai.responses(model)
// with providerOptions.openai.store=false (the remedy docs/doors.md gives
// for its item_reference items) after openai.tools.webSearch() ran: the
// provider-executed tool result goes back as a web_search_call item with
// its id, status and action (with sources): @ai-sdk/openai 4.0.118
// src/responses/convert-to-openai-responses-input.ts,
// convertWebSearchToolResultOutput (lines ~92-148) and its use for
// tool results named web_search (lines ~1177-1201).
const c50cAISDKWebSearchHistory = `{"model":%q,"input":[
 {"role":"user","content":[{"type":"input_text","text":"What is the weather in Seattle today?"}]},
 {"type":"web_search_call","id":"ws_68f0a1b2c3d4e5f6","status":"completed","action":{"type":"search","query":"weather seattle today","sources":[{"type":"url","url":"https://weather.example.com/seattle"}]}},
 {"role":"assistant","content":[{"type":"output_text","text":"It is rainy in Seattle, 11°C.","id":"msg_68f0a1b2"}]},
 {"role":"user","content":[{"type":"input_text","text":"why?"}]}],
 "tools":[{"type":"web_search"}],"tool_choice":"auto","store":false,"stream":%v}`

// A conversation whose earlier turn was served by OpenAI natively holds a
// web_search_call item. When OpenAI then fails (out of quota), the route's
// Claude or Gemini target should serve the next turn: the door already
// drops the web_search tool itself ("the model simply has no search") and
// drops reasoning items; the search call carries no result the model needs
// (the assistant's message after it holds the answer).
func TestC50cWebSearchCallHistoryFailsOver(t *testing.T) {
	for _, client := range []struct{ name, body string }{
		{"codex", c50cCodexWebSearchHistory},
		{"ai-sdk", c50cAISDKWebSearchHistory},
	} {
		for _, route := range []string{"nat-claude", "nat-gem", "via-claude", "via-gem"} {
			for _, stream := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/stream=%v", client.name, route, stream), func(t *testing.T) {
					fs := c50cFakes(t)
					if stream {
						fs["anthropic"].SetScript(script(upstreamtest.Step{Events: anthropicEvents("claude-sonnet-4-5", "It is rainy ", "in Seattle.")}))
						fs["gemini"].SetScript(script(upstreamtest.Step{Events: []string{`data: {"candidates":[{"index":0,"content":{"role":"model","parts":[{"text":"It is rainy in Seattle."}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":2,"totalTokenCount":7},"modelVersion":"gemini-2.5-flash"}`}}))
					}
					g := start(t, c50cCfg, fs)
					r := g.raw(t, "POST", "/v1/responses", fmt.Sprintf(client.body, route, stream))
					if r.Status != 200 || !bytes.Contains(r.Body, []byte("rainy")) {
						t.Fatalf("status %d, body %s", r.Status, c50cCut(r.Body))
					}
					up := "anthropic"
					if strings.HasSuffix(route, "gem") {
						up = "gemini"
					}
					reqs := fs[up].Requests()
					if len(reqs) != 1 {
						t.Fatalf("%s got %d calls", up, len(reqs))
					}
					if !bytes.Contains(reqs[0].Body, []byte("It is rainy in Seattle, 11")) || !bytes.Contains(reqs[0].Body, []byte("why?")) {
						t.Errorf("%s did not get the conversation: %s", up, reqs[0].Body)
					}
				})
			}
		}
	}
}

func c50cCut(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}

// c50cJSON decodes b or fails.
func c50cJSON(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not JSON: %v: %s", err, c50cCut(b))
	}
	return m
}

// c50cClaudeTwoGoals is a Claude stream: a sentence, then two get_goal
// tool_use blocks (Codex's get_goal takes no arguments: its parameters are
// {"type":"object","properties":{},"required":[]}, recorded in
// testdata/clients/codex-0.171.0-tool.jsonl). Claude streams an empty
// input as one input_json_delta with partial_json "" (Anthropic's
// streaming guide; anthropic-sdk-go's accumulator reads it so).
func c50cClaudeTwoGoals() []string {
	ev := func(typ string, v map[string]any) string {
		v["type"] = typ
		b, _ := json.Marshal(v)
		return "event: " + typ + "\ndata: " + string(b)
	}
	out := []string{
		ev("message_start", map[string]any{"message": map[string]any{"id": "msg_c50c", "type": "message", "role": "assistant",
			"model": "claude-sonnet-4-5", "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 40, "output_tokens": 1}}}),
		ev("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "text", "text": ""}}),
		ev("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "text_delta", "text": "Checking the goal twice."}}),
		ev("content_block_stop", map[string]any{"index": 0}),
	}
	for i, id := range []string{"toolu_01A", "toolu_01B"} {
		out = append(out,
			ev("content_block_start", map[string]any{"index": i + 1, "content_block": map[string]any{"type": "tool_use", "id": id, "name": "get_goal", "input": map[string]any{}}}),
			ev("content_block_delta", map[string]any{"index": i + 1, "delta": map[string]any{"type": "input_json_delta", "partial_json": ""}}),
			ev("content_block_stop", map[string]any{"index": i + 1}))
	}
	return append(out,
		ev("message_delta", map[string]any{"delta": map[string]any{"stop_reason": "tool_use", "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 30}}),
		ev("message_stop", map[string]any{}))
}

// c50cGeminiTwoGoals is a Gemini stream whose one event carries two
// get_goal calls (Gemini sends parallel calls whole, in one chunk).
func c50cGeminiTwoGoals() []string {
	return []string{`data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Checking the goal twice."},{"functionCall":{"name":"get_goal","args":{}}},{"functionCall":{"name":"get_goal","args":{}}}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":40,"candidatesTokenCount":10,"totalTokenCount":50},"modelVersion":"gemini-2.5-flash"}`}
}

// The real Codex CLI (0.171.0, internal/clienttest) through /v1/responses
// to Claude and to Gemini, the model calling a Codex tool twice in
// parallel after a sentence: Codex must run both calls, send both back, and
// print the answer to them. (codex_test.go runs Codex to Claude without a
// tool call and to OpenAI chat with one call; Gemini was never run.)
func TestC50cRealCodexParallelCalls(t *testing.T) {
	for _, c := range []struct {
		route, up string
		first     []string
		final     upstreamtest.Step
	}{
		{"via-claude", "anthropic", c50cClaudeTwoGoals(), upstreamtest.Step{Events: anthropicEvents("claude-sonnet-4-5", "goal ", "checked")}},
		{"via-gem", "gemini", c50cGeminiTwoGoals(), upstreamtest.Step{Events: []string{`data: {"candidates":[{"content":{"role":"model","parts":[{"text":"goal checked"}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":60,"candidatesTokenCount":2,"totalTokenCount":62},"modelVersion":"gemini-2.5-flash"}`}}},
	} {
		t.Run(c.route, func(t *testing.T) {
			fs := c50cFakes(t)
			first, final := c.first, c.final
			fs[c.up].SetScript(func(n int, r upstreamtest.Request) upstreamtest.Step {
				if n == 1 {
					return upstreamtest.Step{Events: first}
				}
				return final
			})
			g := start(t, c50cCfg, fs)
			res := clienttest.RunCodex(t, g.URL, "check the goal", clienttest.Options{Args: []string{"-m", c.route, "--disable", "multi_agent", "-c", `web_search="disabled"`}})
			t.Logf("stdout: %s\nstderr: %.3000s", res.Stdout, res.Stderr)
			if res.Err != nil {
				t.Fatalf("codex: %v", res.Err)
			}
			if !strings.Contains(res.Stdout, "goal checked") {
				t.Errorf("codex printed %q, want the answer to the two calls", res.Stdout)
			}
			reqs := fs[c.up].Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d upstream calls, want 2", len(reqs))
			}
			body := string(reqs[1].Body)
			calls, results := strings.Count(body, `"tool_use"`), strings.Count(body, `"tool_result"`)
			if c.up == "gemini" {
				calls, results = strings.Count(body, `"functionCall"`), strings.Count(body, `"functionResponse"`)
			}
			t.Logf("second request turns: %s", c50cTurns(t, reqs[1].Body))
			if calls != 2 || results != 2 {
				t.Errorf("second request: %d calls, %d results, want 2 and 2: %s", calls, results, c50cTail(reqs[1].Body))
			}
		})
	}
}

func c50cTail(b []byte) string {
	if len(b) > 2500 {
		return "…" + string(b[len(b)-2500:])
	}
	return string(b)
}

// c50cNativeSearchThenCall is OpenAI's native Responses stream for a turn
// in which the model searched the web and then called get_goal. The
// web_search_call item is the one Codex's models.rs quotes from
// `response.output_item.done` ({"id":"ws_...","type":"web_search_call",
// "status":"completed","action":{"type":"search","query":…}}).
func c50cNativeSearchThenCall() []string {
	resp := func(status, output string) string {
		return `{"id":"resp_c50c","object":"response","created_at":1767225600,"status":"` + status + `","model":"gpt-5-mini","output":` + output + `,"usage":{"input_tokens":50,"output_tokens":20,"total_tokens":70,"input_tokens_details":{"cached_tokens":0},"output_tokens_details":{"reasoning_tokens":0}}}`
	}
	ws := `{"id":"ws_c50c","type":"web_search_call","status":"completed","action":{"type":"search","query":"weather seattle today"}}`
	fc := `{"id":"fc_c50c","type":"function_call","status":"completed","arguments":"{}","call_id":"call_c50c","name":"get_goal"}`
	ev := func(name, data string) string { return "event: " + name + "\ndata: " + data }
	return []string{
		ev("response.created", `{"type":"response.created","sequence_number":0,"response":`+resp("in_progress", "[]")+`}`),
		ev("response.output_item.added", `{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"ws_c50c","type":"web_search_call","status":"in_progress"}}`),
		ev("response.web_search_call.in_progress", `{"type":"response.web_search_call.in_progress","sequence_number":2,"output_index":0,"item_id":"ws_c50c"}`),
		ev("response.web_search_call.searching", `{"type":"response.web_search_call.searching","sequence_number":3,"output_index":0,"item_id":"ws_c50c"}`),
		ev("response.web_search_call.completed", `{"type":"response.web_search_call.completed","sequence_number":4,"output_index":0,"item_id":"ws_c50c"}`),
		ev("response.output_item.done", `{"type":"response.output_item.done","sequence_number":5,"output_index":0,"item":`+ws+`}`),
		ev("response.output_item.added", `{"type":"response.output_item.added","sequence_number":6,"output_index":1,"item":{"id":"fc_c50c","type":"function_call","status":"in_progress","arguments":"","call_id":"call_c50c","name":"get_goal"}}`),
		ev("response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","sequence_number":7,"item_id":"fc_c50c","output_index":1,"delta":"{}"}`),
		ev("response.function_call_arguments.done", `{"type":"response.function_call_arguments.done","sequence_number":8,"item_id":"fc_c50c","output_index":1,"arguments":"{}"}`),
		ev("response.output_item.done", `{"type":"response.output_item.done","sequence_number":9,"output_index":1,"item":`+fc+`}`),
		ev("response.completed", `{"type":"response.completed","sequence_number":10,"response":`+resp("completed", "["+ws+","+fc+"]")+`}`),
	}
}

// The real Codex CLI on a route [OpenAI (responses: true), Claude]: the
// first call of the turn is served natively (a web search, then a
// get_goal call); the second, carrying Codex's web_search_call item back,
// meets OpenAI out of quota and should fail over to Claude.
func TestC50cRealCodexWebSearchThenFailover(t *testing.T) {
	for _, c := range []struct{ route, up string }{{"nat-claude", "anthropic"}, {"nat-gem", "gemini"}} {
		t.Run(c.route, func(t *testing.T) {
			fs := c50cFakes(t)
			quota := corpus(t, "openai-insufficient-quota-429")
			fs["openai"].SetScript(func(n int, r upstreamtest.Request) upstreamtest.Step {
				if n == 1 {
					return upstreamtest.Step{Events: c50cNativeSearchThenCall()}
				}
				return quota
			})
			if c.up == "anthropic" {
				fs["anthropic"].SetScript(script(upstreamtest.Step{Events: anthropicEvents("claude-sonnet-4-5", "goal ", "checked")}))
			} else {
				fs["gemini"].SetScript(script(upstreamtest.Step{Events: []string{`data: {"candidates":[{"content":{"role":"model","parts":[{"text":"goal checked"}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":60,"candidatesTokenCount":2,"totalTokenCount":62},"modelVersion":"gemini-2.5-flash"}`}}))
			}
			g := start(t, c50cCfg, fs)
			res := clienttest.RunCodex(t, g.URL, "look up the weather, then check the goal", clienttest.Options{Args: []string{"-m", c.route, "--disable", "multi_agent"}})
			t.Logf("stdout: %s\nstderr: %.2500s", res.Stdout, res.Stderr)
			oreqs := fs["openai"].Requests()
			if len(oreqs) >= 2 {
				if !bytes.Contains(oreqs[1].Body, []byte(`"web_search_call"`)) {
					t.Errorf("Codex's second request carries no web_search_call item: %s", c50cTail(oreqs[1].Body))
				}
			}
			if res.Err != nil || !strings.Contains(res.Stdout, "goal checked") {
				t.Errorf("codex: err %v, stdout %q; want the %s target's answer after OpenAI's 429 (%d calls to it)", res.Err, res.Stdout, c.up, fs[c.up].Calls())
			}
		})
	}
}

// c50cEvents splits a streamed body into its events' data objects.
func c50cEvents(t *testing.T, body []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(string(body), "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			out = append(out, c50cJSON(t, []byte(d)))
		}
	}
	return out
}

// OpenAI's native Responses stream that fails before any content: it
// sends response.created and response.in_progress, then an error event
// server_is_overloaded and response.failed (the frames quoted in
// openai/codex#43337, the corpus case
// openai-responses-sse-error-server-is-overloaded-200). The route moves on
// to Claude/Gemini; the client (Codex, the AI SDK, openai-go's
// accumulator) must then read one coherent stream: one response.created,
// sequence numbers from 0 without a gap or repeat, and a
// response.completed holding the answer.
func TestC50cNativeOverloadedBeforeContentThenTranslated(t *testing.T) {
	native := []string{
		`event: response.created` + "\n" + `data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_up","object":"response","created_at":1767225600,"status":"in_progress","model":"gpt-5-mini","output":[]}}`,
		`event: response.in_progress` + "\n" + `data: {"type":"response.in_progress","sequence_number":1,"response":{"id":"resp_up","object":"response","created_at":1767225600,"status":"in_progress","model":"gpt-5-mini","output":[]}}`,
		`event: error` + "\n" + `data: {"type":"error","error":{"type":"service_unavailable_error","code":"server_is_overloaded","message":"Our servers are currently overloaded. Please try again later.","param":null},"sequence_number":2}`,
		`event: response.failed` + "\n" + `data: {"type":"response.failed","sequence_number":3,"response":{"id":"resp_up","object":"response","created_at":1767225600,"status":"failed","model":"gpt-5-mini","output":[],"error":{"code":"server_is_overloaded","message":"Our servers are currently overloaded. Please try again later."}}}`,
	}
	for _, route := range []string{"nat-claude", "nat-gem"} {
		t.Run(route, func(t *testing.T) {
			fs := c50cFakes(t)
			fs["openai"].SetScript(script(upstreamtest.Step{Events: native}))
			fs["anthropic"].SetScript(script(upstreamtest.Step{Events: anthropicEvents("claude-sonnet-4-5", "It is rainy ", "in Seattle.")}))
			fs["gemini"].SetScript(script(upstreamtest.Step{Events: []string{`data: {"candidates":[{"index":0,"content":{"role":"model","parts":[{"text":"It is rainy in Seattle."}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":2,"totalTokenCount":7},"modelVersion":"gemini-2.5-flash"}`}}))
			g := start(t, c50cCfg, fs)
			r := g.raw(t, "POST", "/v1/responses", `{"model":"`+route+`","input":"weather?","stream":true,"store":false}`)
			if r.Status != 200 {
				t.Fatalf("status %d: %s", r.Status, c50cCut(r.Body))
			}
			evs := c50cEvents(t, r.Body)
			created := 0
			for i, e := range evs {
				if e["type"] == "response.created" {
					created++
				}
				if n, _ := e["sequence_number"].(float64); int(n) != i {
					t.Errorf("event %d (%v) has sequence_number %v", i, e["type"], e["sequence_number"])
				}
				if e["type"] == "error" || e["type"] == "response.failed" {
					t.Errorf("the client got the failed attempt's %v event", e["type"])
				}
			}
			if created != 1 || len(evs) == 0 || evs[len(evs)-1]["type"] != "response.completed" || !bytes.Contains(r.Body, []byte("rainy")) {
				t.Errorf("%d response.created, stream:\n%s", created, c50cCut(r.Body))
			}
		})
	}
}

// c50cClaudeCut is a Claude stream whose answer reached max_tokens.
func c50cClaudeCut() []string {
	ev := anthropicEvents("claude-sonnet-4-5", "Here is the long file you asked for: ")
	// The last two events say end_turn; make it max_tokens.
	ev[len(ev)-2] = `event: message_delta` + "\n" + `data: {"type":"message_delta","delta":{"stop_reason":"max_tokens","stop_sequence":null},"usage":{"output_tokens":4096}}`
	return ev
}

// Codex sends no max_output_tokens (docs/doors.md "Codex CLI 0.171.0": "No
// max_output_tokens"), so a Claude target gets Detour's default max_tokens,
// 4096 (docs/doors.md, "no max_tokens"), where OpenAI's and Gemini's
// targets write up to the model's own maximum. An answer longer than 4096
// tokens (a file written through exec_command, a long plan) ends
// response.incomplete, and the real Codex fails the turn with "ERROR:
// Incomplete response returned, reason: max_output_tokens" (logged here).
// claude-sonnet-4-5 writes up to 64000 output tokens (Effect-TS
// @effect/ai-anthropic 4.0.0-beta.106 release notes: "The 4.5 models keep
// 64000"; labring/fastgpt-plugin#242: sonnet-4-5 and haiku-4-5 64000,
// opus-4-1 32000).
func TestC50cCodexClaudeDefaultMaxTokens(t *testing.T) {
	fs := c50cFakes(t)
	fs["anthropic"].SetScript(script(upstreamtest.Step{Events: anthropicEvents("claude-sonnet-4-5", "ok")}))
	g := start(t, c50cCfg, fs)
	// Codex 0.171.0's body shape with a route name (no max_output_tokens).
	r := g.raw(t, "POST", "/v1/responses", `{"model":"via-claude","input":[{"type":"message","role":"developer","content":[{"type":"input_text","text":"You are Codex."}]},{"type":"message","role":"user","content":[{"type":"input_text","text":"write a long file"}]}],"tools":[{"type":"function","name":"get_goal","description":"Get the current goal.","strict":false,"parameters":{"type":"object","properties":{},"required":[],"additionalProperties":false}}],"tool_choice":"auto","parallel_tool_calls":true,"reasoning":{"summary":"auto"},"store":false,"stream":true,"include":["reasoning.encrypted_content"],"prompt_cache_key":"s"}`)
	reqs := fs["anthropic"].Requests()
	if r.Status != 200 || len(reqs) != 1 {
		t.Fatalf("status %d, %d calls", r.Status, len(reqs))
	}
	var body struct {
		MaxTokens int `json:"max_tokens"`
	}
	json.Unmarshal(reqs[0].Body, &body)
	if body.MaxTokens <= 4096 {
		t.Errorf("claude-sonnet-4-5 got max_tokens %d for a client naming no limit: Codex's turns end at 4096 output tokens with an error", body.MaxTokens)
	}
}

// The real Codex with --output-schema (its text.format json_schema
// "codex_output_schema", strict) and its function tools, to Claude (the
// answer tool detour_json_answer, docs/doors.md "Structured output on
// Claude targets") and to Gemini 2.5 (the reserved function, round 47g),
// each answering through that tool, streamed: Codex must print the JSON
// object as its last message.
func TestC50cRealCodexOutputSchema(t *testing.T) {
	schema := `{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"],"additionalProperties":false}`
	claude := func() []string {
		ev := func(typ string, v map[string]any) string {
			v["type"] = typ
			b, _ := json.Marshal(v)
			return "event: " + typ + "\ndata: " + string(b)
		}
		return []string{
			ev("message_start", map[string]any{"message": map[string]any{"id": "msg_c50s", "type": "message", "role": "assistant",
				"model": "claude-sonnet-4-5", "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 40, "output_tokens": 1}}}),
			ev("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "tool_use", "id": "toolu_ans", "name": "detour_json_answer", "input": map[string]any{}}}),
			ev("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": `{"answer":`}}),
			ev("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": `"forty-two"}`}}),
			ev("content_block_stop", map[string]any{"index": 0}),
			ev("message_delta", map[string]any{"delta": map[string]any{"stop_reason": "tool_use", "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 12}}),
			ev("message_stop", map[string]any{}),
		}
	}
	gem := []string{`data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"detour_json_answer","args":{"answer":"forty-two"}}}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":40,"candidatesTokenCount":5,"totalTokenCount":45},"modelVersion":"gemini-2.5-flash"}`}
	for _, c := range []struct {
		route, up string
		events    []string
	}{{"via-claude", "anthropic", claude()}, {"via-gem", "gemini", gem}} {
		t.Run(c.route, func(t *testing.T) {
			fs := c50cFakes(t)
			fs[c.up].SetScript(script(upstreamtest.Step{Events: c.events}))
			g := start(t, c50cCfg, fs)
			dir := t.TempDir()
			path := dir + "/schema.json"
			if err := os.WriteFile(path, []byte(schema), 0o644); err != nil {
				t.Fatal(err)
			}
			res := clienttest.RunCodex(t, g.URL, "what is the answer", clienttest.Options{Args: []string{"-m", c.route, "--disable", "multi_agent", "-c", `web_search="disabled"`, "--output-schema", path}})
			t.Logf("stdout: %s\nstderr: %.3000s", res.Stdout, res.Stderr)
			reqs := fs[c.up].Requests()
			if len(reqs) > 0 {
				t.Logf("upstream request tail: %s", c50cTail(reqs[0].Body)[max(0, len(c50cTail(reqs[0].Body))-700):])
			}
			if res.Err != nil || !strings.Contains(res.Stdout, `"answer":"forty-two"`) {
				t.Errorf("codex: err %v, stdout %q", res.Err, res.Stdout)
			}
		})
	}
}

// c50cTurns summarises an Anthropic or Gemini request's turns: role and
// block kinds.
func c50cTurns(t *testing.T, body []byte) string {
	m := c50cJSON(t, body)
	turns, _ := m["messages"].([]any)
	if turns == nil {
		turns, _ = m["contents"].([]any)
	}
	var out []string
	for _, x := range turns {
		tm, _ := x.(map[string]any)
		var kinds []string
		blocks, _ := tm["content"].([]any)
		if blocks == nil {
			blocks, _ = tm["parts"].([]any)
		}
		for _, b := range blocks {
			bm, _ := b.(map[string]any)
			k, _ := bm["type"].(string)
			if k == "" {
				for key := range bm {
					if key != "thoughtSignature" {
						k = key
					}
				}
			}
			kinds = append(kinds, k)
		}
		if s, ok := tm["content"].(string); ok {
			kinds = append(kinds, fmt.Sprintf("text(%d)", len(s)))
		}
		out = append(out, fmt.Sprintf("%v%v", tm["role"], kinds))
	}
	return strings.Join(out, " ")
}

// c50cPNG is a 1x1 PNG.
var c50cPNG = []byte{0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xf0, 0x1f, 0x00, 0x05, 0x00, 0x01, 0xff, 0x89, 0x99, 0x3d, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82}

// The real Codex with an image attached (-i): its input_image reaches
// Claude as an image block and Gemini as inlineData, and Codex prints the
// answer.
func TestC50cRealCodexImage(t *testing.T) {
	for _, c := range []struct{ route, up, want string }{
		{"via-claude", "anthropic", `"media_type":"image/png"`},
		{"via-gem", "gemini", `"mimeType":"image/png"`},
	} {
		t.Run(c.route, func(t *testing.T) {
			fs := c50cFakes(t)
			if c.up == "anthropic" {
				fs["anthropic"].SetScript(script(upstreamtest.Step{Events: anthropicEvents("claude-sonnet-4-5", "a red ", "dot")}))
			} else {
				fs["gemini"].SetScript(script(upstreamtest.Step{Events: []string{`data: {"candidates":[{"content":{"role":"model","parts":[{"text":"a red dot"}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":60,"candidatesTokenCount":3,"totalTokenCount":63},"modelVersion":"gemini-2.5-flash"}`}}))
			}
			g := start(t, c50cCfg, fs)
			path := t.TempDir() + "/dot.png"
			if err := os.WriteFile(path, c50cPNG, 0o644); err != nil {
				t.Fatal(err)
			}
			res := clienttest.RunCodex(t, g.URL, "what is in the image", clienttest.Options{Args: []string{"-m", c.route, "--disable", "multi_agent", "-c", `web_search="disabled"`, "--image=" + path}})
			t.Logf("stdout: %s\nstderr: %.2000s", res.Stdout, res.Stderr)
			reqs := fs[c.up].Requests()
			if len(reqs) != 1 || !bytes.Contains(reqs[0].Body, []byte(c.want)) {
				t.Fatalf("%d calls; want %s in the request", len(reqs), c.want)
			}
			t.Logf("turns: %s", c50cTurns(t, reqs[0].Body))
			if res.Err != nil || !strings.Contains(res.Stdout, "a red dot") {
				t.Errorf("codex: err %v, stdout %q", res.Err, res.Stdout)
			}
		})
	}
}

// c50cAgentsHandoff is an OpenAI Agents SDK (JS, @openai/agents 0.20.0)
// run with a handoff: the triage agent hands off to "Billing agent" (its
// transfer_to_Billing_agent function), which answers. Printed: the final
// output and the last agent.
const c50cAgentsHandoff = `
import OpenAI from 'openai';
import { Agent, Runner, OpenAIProvider, setTracingDisabled } from '@openai/agents';
setTracingDisabled(true);
const client = new OpenAI({ baseURL: process.env.C50C_BASE + '/v1', apiKey: 'k', maxRetries: 0, timeout: 20000 });
const runner = new Runner({ modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: true }), tracingDisabled: true });
const billing = new Agent({ name: 'Billing agent', instructions: 'You handle billing.', model: process.env.C50C_MODEL });
const triage = new Agent({ name: 'Triage agent', instructions: 'Route the user.', model: process.env.C50C_MODEL, handoffs: [billing] });
try {
  let r;
  if (process.env.C50C_STREAM === '1') {
    r = await runner.run(triage, 'I was charged twice', { stream: true });
    for await (const _ of r) {}
    await r.completed;
  } else {
    r = await runner.run(triage, 'I was charged twice');
  }
  console.log(JSON.stringify({ final: r.finalOutput, last: r.lastAgent?.name }));
} catch (e) {
  console.log(JSON.stringify({ error: String(e && e.message || e) }));
}
`

func TestC50cAgentsJSHandoff(t *testing.T) {
	modules := os.Getenv("DETOUR_CLIENTS_DIR")
	if modules == "" {
		t.Skip("DETOUR_CLIENTS_DIR not set")
	}
	claudeCall := func() []string {
		ev := func(typ string, v map[string]any) string {
			v["type"] = typ
			b, _ := json.Marshal(v)
			return "event: " + typ + "\ndata: " + string(b)
		}
		return []string{
			ev("message_start", map[string]any{"message": map[string]any{"id": "msg_h", "type": "message", "role": "assistant",
				"model": "claude-sonnet-4-5", "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 40, "output_tokens": 1}}}),
			ev("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "tool_use", "id": "toolu_h", "name": "transfer_to_Billing_agent", "input": map[string]any{}}}),
			ev("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": ""}}),
			ev("content_block_stop", map[string]any{"index": 0}),
			ev("message_delta", map[string]any{"delta": map[string]any{"stop_reason": "tool_use", "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 12}}),
			ev("message_stop", map[string]any{}),
		}
	}
	for _, route := range []string{"via-claude", "via-gem"} {
		for _, stream := range []string{"0", "1"} {
			t.Run(route+"/stream="+stream, func(t *testing.T) {
				fs := c50cFakes(t)
				fs["anthropic"].SetScript(func(n int, r upstreamtest.Request) upstreamtest.Step {
					if n == 1 {
						if stream == "1" {
							return upstreamtest.Step{Events: claudeCall()}
						}
						return upstreamtest.Step{Body: `{"id":"msg_h","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_h","name":"transfer_to_Billing_agent","input":{}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":40,"output_tokens":12}}`}
					}
					if stream == "1" {
						return upstreamtest.Step{Events: anthropicEvents("claude-sonnet-4-5", "Refund ", "issued.")}
					}
					return upstreamtest.Step{Body: anthropicMessage("claude-sonnet-4-5", "Refund issued.")}
				})
				gemCall := `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"transfer_to_Billing_agent","args":{}}}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":40,"candidatesTokenCount":5,"totalTokenCount":45},"modelVersion":"gemini-2.5-flash"}`
				fs["gemini"].SetScript(func(n int, r upstreamtest.Request) upstreamtest.Step {
					if n == 1 {
						if stream == "1" {
							return upstreamtest.Step{Events: []string{"data: " + gemCall}}
						}
						return upstreamtest.Step{Body: gemCall}
					}
					if stream == "1" {
						return upstreamtest.Step{Events: []string{"data: " + geminiText("Refund issued.")}}
					}
					return upstreamtest.Step{Body: geminiText("Refund issued.")}
				})
				g := start(t, c50cCfg, fs)
				cmd := exec.Command("node", "--input-type=module", "-e", c50cAgentsHandoff)
				cmd.Dir = modules
				cmd.Env = append(os.Environ(), "C50C_BASE="+g.URL, "C50C_MODEL="+route, "C50C_STREAM="+stream, "OPENAI_AGENTS_DISABLE_TRACING=1")
				out, err := cmd.CombinedOutput()
				t.Logf("node: %v %s", err, out)
				up := "anthropic"
				if route == "via-gem" {
					up = "gemini"
				}
				reqs := fs[up].Requests()
				if len(reqs) == 2 {
					m := c50cJSON(t, reqs[1].Body)
					t.Logf("second request turns: %s; tools %v, tool_choice %v, toolConfig %v", c50cTurns(t, reqs[1].Body), m["tools"] != nil, m["tool_choice"], m["toolConfig"])
				}
				if !bytes.Contains(out, []byte(`"final":"Refund issued."`)) || !bytes.Contains(out, []byte(`"last":"Billing agent"`)) {
					t.Errorf("run: %s", out)
				}
			})
		}
	}
}

// A Gemini stream whose call comes after an empty text part carrying a
// thought signature (Gemini's thought-signature guide: the signature may
// come on an empty text part; the Detour adapter reads "a bare
// thoughtSignature part" as nothing written, docs/doors.md): the Responses
// door should give the call alone, no empty message item (which Codex would
// keep and send back as an empty assistant message).
func TestC50cGeminiEmptySignedTextBeforeCall(t *testing.T) {
	fs := c50cFakes(t)
	fs["gemini"].SetScript(script(upstreamtest.Step{Events: []string{
		`data: {"candidates":[{"content":{"role":"model","parts":[{"text":"","thoughtSignature":"CsYBAXLI2nw="}]},"index":0}],"modelVersion":"gemini-2.5-flash"}`,
		`data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_goal","args":{}},"thoughtSignature":"CsYBAXLI2nx="}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":40,"candidatesTokenCount":5,"totalTokenCount":45},"modelVersion":"gemini-2.5-flash"}`,
	}}))
	g := start(t, c50cCfg, fs)
	r := g.raw(t, "POST", "/v1/responses", `{"model":"via-gem","input":"check the goal","stream":true,"tools":[{"type":"function","name":"get_goal","parameters":{"type":"object","properties":{}}}]}`)
	for _, e := range c50cEvents(t, r.Body) {
		if e["type"] == "response.completed" {
			resp, _ := e["response"].(map[string]any)
			out, _ := resp["output"].([]any)
			var kinds []any
			for _, it := range out {
				m, _ := it.(map[string]any)
				kinds = append(kinds, m["type"])
			}
			t.Logf("output items: %v", kinds)
			// The call, after the reasoning item that carries its sealed
			// thought signature (round 54, docs/doors.md): no message item
			// for the empty signed text.
			if len(out) != 2 || kinds[0] != "reasoning" || kinds[1] != "function_call" {
				t.Errorf("want the signature's reasoning item and the call, got %v: %s", kinds, c50cCut(r.Body))
			} else if m, _ := out[0].(map[string]any); !strings.HasPrefix(fmt.Sprint(m["encrypted_content"]), "detour1.") {
				t.Errorf("the reasoning item carries no sealed signature: %v", m)
			}
		}
	}
}
