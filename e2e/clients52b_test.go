package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Round 52, helper probe52b: the Responses door driven as real client
// developers drive it, with Claude, Gemini and OpenAI (responses: true)
// targets.

const p52bCfg = `
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
  - {name: claude-nat, targets: [claude, gpt]}
  - {name: nat, targets: [gpt]}
`

// p52bOpenAIResponse is a Responses answer in the shape of OpenAI's API
// reference example (https://platform.openai.com/docs/api-reference/responses/create).
const p52bOpenAIResponse = `{"id":"resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b","object":"response","created_at":1741476542,"status":"completed","error":null,"incomplete_details":null,"instructions":null,"max_output_tokens":null,"model":"gpt-5-mini-2025-08-07","output":[{"type":"message","id":"msg_67ccd2bf17f0819081ff3bb2cf6508e60bb6a6b452d3795b","status":"completed","role":"assistant","content":[{"type":"output_text","text":"In a peaceful grove beneath a silver moon...","annotations":[]}]}],"parallel_tool_calls":true,"previous_response_id":null,"reasoning":{"effort":null,"summary":null},"store":true,"temperature":1.0,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],"top_p":1.0,"truncation":"disabled","usage":{"input_tokens":36,"input_tokens_details":{"cached_tokens":0},"output_tokens":87,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":123},"user":null,"metadata":{}}`

// p52bNativeCfg: one route whose only target is OpenAI serving Responses
// natively (responses: true), as an operator who fronts OpenAI with Detour
// for keys, budgets and records configures it.
const p52bNativeCfg = `
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `, responses: true}
targets:
  - {name: gpt, model: gpt-5-mini, providers: [openai]}
routes:
  - {name: nat, targets: [gpt]}
`

// TestP52bTextFileToClaudeAndGemini: an `input_file` holding a text file
// (file_data "data:text/plain;base64,…", filename notes.txt), sent with
// openai-go. OpenAI's Responses API takes it (file inputs guide,
// https://developers.openai.com/api/docs/guides/file-inputs: "The Responses
// API accepts the file types listed below as input_file items", text and
// code files among them; only Chat Completions is PDF-only). Claude takes a
// plain-text document ({"type":"document","source":{"type":"text",
// "media_type":"text/plain","data":…}}: anthropic-sdk-go v2.17.0 message.go
// PlainTextSourceParam in DocumentBlockParamSourceUnion), and Gemini inline
// text/plain data ("You can also pass non-PDF documents in the same way …
// Gemini will see them as normal text",
// https://ai.google.dev/gemini-api/docs/document-processing). Detour answers
// 400 `code` "unknown", `param` null: "Claude takes an inline PDF … only" /
// "Gemini is sent an inline PDF … only". FAILS now.
func TestP52bTextFileToClaudeAndGemini(t *testing.T) {
	const notes = "Meeting notes: ship on Friday."
	for _, target := range []string{"claude", "gem"} {
		t.Run(target, func(t *testing.T) {
			fs := strictFakes(t, "Ship on Friday.")
			g := start(t, edgesCfg, fs)
			file := responses.ResponseInputFileParam{FileData: openai.String("data:text/plain;base64," + base64.StdEncoding.EncodeToString([]byte(notes))), Filename: openai.String("notes.txt")}
			p := responses.ResponseNewParams{Model: target, Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{
				responses.ResponseInputItemParamOfMessage(responses.ResponseInputMessageContentListParam{
					responses.ResponseInputContentParamOfInputText("Summarise the file."),
					{OfInputFile: &file}}, "user")}}}
			r, err := sdk(g).Responses.New(context.Background(), p)
			if err != nil {
				t.Fatalf("Responses.New: %v", err)
			}
			if r.OutputText() != "Ship on Friday." {
				t.Errorf("output_text %q", r.OutputText())
			}
			up := map[string]string{"claude": "anthropic", "gem": "gemini"}[target]
			if raw := string(lastRaw(t, fs[up])); !strings.Contains(raw, notes) && !strings.Contains(raw, base64.StdEncoding.EncodeToString([]byte(notes))) {
				t.Errorf("%s did not get the file: %s", up, raw)
			}
		})
	}
}

// TestP52bSafetyIdentifierReachesClaude: `safety_identifier` is OpenAI's
// replacement for `user` for the same purpose ("The safety identifier
// supersedes the previous user parameter which was previously present for
// the same purpose", https://help.openai.com/en/articles/5428082; the
// Responses reference marks `user` deprecated, "being replaced by
// safety_identifier and prompt_cache_key"). Detour sends a client's `user`
// to Claude hashed as metadata.user_id, Anthropic's field for the same job
// (TestClients47aUserEmailReachesClaudeHashed), but drops
// `safety_identifier` (docs/doors.md lists it as dropped): a client that
// followed OpenAI's migration loses per-user abuse attribution at
// Anthropic, and abuse action falls on the operator's whole key. Sent with
// openai-go through both doors. FAILS now (no metadata).
func TestP52bSafetyIdentifierReachesClaude(t *testing.T) {
	const id = "user_123456"
	sum := sha256.Sum256([]byte(id))
	want := hex.EncodeToString(sum[:])
	for _, door := range []string{"responses", "chat"} {
		t.Run(door, func(t *testing.T) {
			fs := strictFakes(t, "Hello")
			g := start(t, edgesCfg, fs)
			var err error
			if door == "responses" {
				p := say("claude", "This is a test")
				p.SafetyIdentifier = openai.String(id)
				_, err = sdk(g).Responses.New(context.Background(), p)
			} else {
				p := hello("claude")
				p.SafetyIdentifier = openai.String(id)
				_, err = sdk(g).Chat.Completions.New(context.Background(), p)
			}
			if err != nil {
				t.Fatal(err)
			}
			md, _ := lastBody(t, fs["anthropic"])["metadata"].(map[string]any)
			if got, _ := md["user_id"].(string); got != want {
				t.Errorf("Claude's metadata.user_id %q, want %q (the safety_identifier hashed, as `user` is)", got, want)
			}
		})
	}
}

// TestP52bMaxOutputTokensAboveClaudesMaximum: a client tuned for GPT-5
// (128,000 output tokens at most: OpenAI's model page) asks for
// max_output_tokens 100000 with openai-go on a route [gpt (responses:
// true), claude]. OpenAI is rate limited, the walk reaches Claude, and
// Claude gets max_tokens 100000, above Sonnet 4.5's 64,000, which
// Anthropic refuses ("max_tokens: 10000 > 4096, which is the maximum
// allowed number of output tokens for …": the corpus case
// anthropic-max-tokens-too-large, class bad_request), so the client gets a
// 400 from the fallback it never chose. Detour knows the model's maximum
// (internal/provider/anthropic/maxtokens.go modelMaxTokens, used when the
// client names none) and the Messages door already leaves out a limit the
// other vendors would refuse (docs/doors.md, `max_tokens` above 16384).
// The limit is a ceiling, so sending Claude its own maximum honours it.
// FAILS now (400).
func TestP52bMaxOutputTokensAboveClaudesMaximum(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai": script(upstreamtest.Step{Status: 429, Body: `{"error":{"message":"Rate limit reached for gpt-5-mini in organization org-abc on tokens per min (TPM): Limit 200000, Used 199000, Requested 6000. Please try again in 1.5s.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`}),
		"anthropic": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			var req struct {
				MaxTokens int `json:"max_tokens"`
			}
			json.Unmarshal(r.Body, &req)
			if req.MaxTokens > 64000 {
				return upstreamtest.Step{Status: 400, Body: fmt.Sprintf(`{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: %d > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-5-20250929"}}`, req.MaxTokens)}
			}
			return upstreamtest.Step{Body: anthropicMessage("claude-sonnet-4-5", "A long essay.")}
		},
		"gemini": script(upstreamtest.Step{Body: geminiText("x")}),
	})
	g := start(t, p52bCfg, fs)
	p := say("nat-claude", "Write a long essay.")
	p.MaxOutputTokens = openai.Int(100000)
	r, err := sdk(g).Responses.New(context.Background(), p)
	if err != nil {
		t.Fatalf("max_output_tokens 100000 on [gpt, claude] with gpt rate limited: %v\nClaude got: %s", err, lastRaw(t, fs["anthropic"]))
	}
	if r.OutputText() != "A long essay." {
		t.Errorf("output_text %q", r.OutputText())
	}
}

// TestP52bChatDoorCarriesReasoningContentBack: the chat door sends an
// assistant turn's reasoning_content to an OpenAI-dialect target as the
// client sent it, which DeepSeek's thinking mode requires in a tool loop
// (see TestP52bDeepSeekThinkingToolLoopThroughResponses, where the
// Responses door cannot). Passes now; guards the contrast.
func TestP52bChatDoorCarriesReasoningContentBack(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"deepseek": script(upstreamtest.Step{Body: upstreamtest.ChatJSON("deepseek-v4-flash", "ok")})})
	g := start(t, "providers:\n  - {name: deepseek, dialect: openai, base_url: \"{deepseek}\", api_key: "+secret+"}\ntargets:\n  - {name: ds, model: deepseek-v4-flash, providers: [deepseek]}\nroutes:\n  - {name: dsr, targets: [ds]}\n", fs)
	r := g.raw(t, "POST", "/v1/chat/completions", `{"model":"dsr","messages":[{"role":"user","content":"w?"},{"role":"assistant","content":"","reasoning_content":"I should call f.","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"x"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}]}`)
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	if !strings.Contains(string(lastRaw(t, fs["deepseek"])), `"reasoning_content":"I should call f."`) {
		t.Errorf("the upstream did not get the reasoning_content: %s", lastRaw(t, fs["deepseek"]))
	}
}

// p52bJSStream is the JS openai SDK's responses.stream helper over route
// P52B_MODEL: its events' types and response ids, and finalResponse().
const p52bJSStream = `
import OpenAI from 'openai';
const c = new OpenAI({ baseURL: process.env.P52B_BASE + '/v1', apiKey: 'k', maxRetries: 0 });
const ev = [];
try {
  const s = c.responses.stream({ model: process.env.P52B_MODEL, input: 'What is the weather in Seattle?' });
  for await (const e of s) ev.push(e.type + (e.response ? ':' + e.response.id : ''));
  const f = await s.finalResponse();
  console.log(JSON.stringify({ ev, text: f.output_text, status: f.status }));
} catch (e) {
  console.log(JSON.stringify({ ev, error: e?.constructor?.name, message: String(e?.message).slice(0, 300) }));
}
`

// TestP52bJSStreamHelperAfterNativeFailsBeforeContent: OpenAI's native
// Responses stream fails before any content (response.created, then the
// error event server_is_overloaded and response.failed: openai/codex#43337,
// the frames TestC50cNativeOverloadedBeforeContentThenTranslated uses) and
// the route [gpt (responses: true), claude] moves on to Claude. The JS
// openai SDK's responses.stream helper (7.59.0) throws "Lifecycle response
// identity changed." when a lifecycle event's response.id differs from the
// one response.created gave (lib/responses/ResponseStream.js
// _prepareEvent), and finalResponse() must give Claude's answer.
func TestP52bJSStreamHelperAfterNativeFailsBeforeContent(t *testing.T) {
	modules := os.Getenv("DETOUR_CLIENTS_DIR")
	if modules == "" {
		t.Skip("DETOUR_CLIENTS_DIR not set")
	}
	native := []string{
		`event: response.created` + "\n" + `data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_up","object":"response","created_at":1767225600,"status":"in_progress","model":"gpt-5-mini","output":[]}}`,
		`event: response.in_progress` + "\n" + `data: {"type":"response.in_progress","sequence_number":1,"response":{"id":"resp_up","object":"response","created_at":1767225600,"status":"in_progress","model":"gpt-5-mini","output":[]}}`,
		`event: error` + "\n" + `data: {"type":"error","error":{"type":"service_unavailable_error","code":"server_is_overloaded","message":"Our servers are currently overloaded. Please try again later.","param":null},"sequence_number":2}`,
		`event: response.failed` + "\n" + `data: {"type":"response.failed","sequence_number":3,"response":{"id":"resp_up","object":"response","created_at":1767225600,"status":"failed","model":"gpt-5-mini","output":[],"error":{"code":"server_is_overloaded","message":"Our servers are currently overloaded. Please try again later."}}}`,
	}
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai":    script(upstreamtest.Step{Events: native}),
		"anthropic": script(upstreamtest.Step{Events: anthropicEvents("claude-sonnet-4-5", "It is rainy ", "in Seattle.")}),
		"gemini":    script(upstreamtest.Step{Body: geminiText("x")}),
	})
	g := start(t, p52bCfg, fs)
	cmd := exec.Command("node", "--input-type=module", "-e", p52bJSStream)
	cmd.Dir = modules
	cmd.Env = append(os.Environ(), "P52B_BASE="+g.URL, "P52B_MODEL=nat-claude")
	out, err := cmd.CombinedOutput()
	t.Logf("node: %v %s", err, out)
	if !strings.Contains(string(out), `"text":"It is rainy in Seattle."`) {
		t.Errorf("the stream helper did not end with Claude's answer: %s", out)
	}
}
