package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Probe 66b: published success streams of Claude and Gemini (the
// adapters' testdata/stream, each citing its source), served by a loopback
// upstream and read through every door that reaches the target: Chat
// Completions, Messages (an Anthropic target's stream passes through as
// it came) and Responses. Each must end as a finished answer with all its
// text, calls and finish, and the record must hold the transcript's usage.

const transcriptsCfg = `
client_keys: [client-key-1]
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
  - {name: gemini, dialect: gemini, base_url: "{gemini}", api_key: ` + secret + `}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: gem, model: gemini-2.5-flash, providers: [gemini]}
`

// transcriptRead is what a client read of one stream: its text, its tool
// calls' arguments by name, and how it ended.
type transcriptRead struct {
	text, finish string
	args         map[string]string
	ended        bool // the door's normal end, no error event
}

func sseData(body []byte) [][]byte {
	var out [][]byte
	for _, l := range strings.Split(string(body), "\n") {
		if d, ok := strings.CutPrefix(l, "data: "); ok && d != "[DONE]" {
			out = append(out, []byte(d))
		}
	}
	return out
}

func readChat(t *testing.T, body []byte) transcriptRead {
	r := transcriptRead{args: map[string]string{}, ended: strings.Contains(string(body), "data: [DONE]") && !strings.Contains(string(body), "event: error")}
	names := map[int]string{}
	for _, d := range sseData(body) {
		var c struct {
			Choices []struct {
				Delta struct {
					Content   *string
					ToolCalls []struct {
						Index    int
						Function struct{ Name, Arguments string }
					} `json:"tool_calls"`
				}
				FinishReason *string `json:"finish_reason"`
			}
		}
		if err := json.Unmarshal(d, &c); err != nil {
			t.Fatalf("chunk %s: %v", d, err)
		}
		for _, ch := range c.Choices {
			if ch.Delta.Content != nil {
				r.text += *ch.Delta.Content
			}
			for _, tc := range ch.Delta.ToolCalls {
				if tc.Function.Name != "" {
					names[tc.Index] = tc.Function.Name
				}
				r.args[names[tc.Index]] += tc.Function.Arguments
			}
			if ch.FinishReason != nil {
				r.finish = *ch.FinishReason
			}
		}
	}
	return r
}

func readMessages(t *testing.T, body []byte) transcriptRead {
	r := transcriptRead{args: map[string]string{}, ended: strings.Contains(string(body), "event: message_stop") && !strings.Contains(string(body), "event: error")}
	tools := map[int]string{}
	for _, d := range sseData(body) {
		var e struct {
			Type         string
			Index        int
			ContentBlock struct{ Type, Name string } `json:"content_block"`
			Delta        struct {
				Type, Text  string
				PartialJSON string `json:"partial_json"`
				StopReason  string `json:"stop_reason"`
			}
		}
		if err := json.Unmarshal(d, &e); err != nil {
			t.Fatalf("event %s: %v", d, err)
		}
		switch e.Type {
		case "content_block_start":
			if e.ContentBlock.Type == "tool_use" {
				tools[e.Index] = e.ContentBlock.Name
			}
		case "content_block_delta":
			if e.Delta.Type == "text_delta" {
				r.text += e.Delta.Text
			}
			if n, ok := tools[e.Index]; ok && e.Delta.Type == "input_json_delta" {
				r.args[n] += e.Delta.PartialJSON
			}
		case "message_delta":
			r.finish = e.Delta.StopReason
		}
	}
	return r
}

func readResponses(t *testing.T, body []byte) transcriptRead {
	r := transcriptRead{args: map[string]string{}, ended: strings.Contains(string(body), "event: response.completed") && !strings.Contains(string(body), "event: error")}
	for _, d := range sseData(body) {
		var e struct {
			Type, Delta, Name, Arguments string
			Response                     struct{ Status string }
		}
		if err := json.Unmarshal(d, &e); err != nil {
			t.Fatalf("event %s: %v", d, err)
		}
		switch e.Type {
		case "response.output_text.delta":
			r.text += e.Delta
		case "response.function_call_arguments.done":
			r.args[e.Name] = e.Arguments
		case "response.completed", "response.incomplete":
			r.finish = e.Response.Status
		}
	}
	return r
}

func TestPublishedSuccessStreamsThroughEveryDoorR66b(t *testing.T) {
	for _, tc := range []struct {
		dialect, file, route string
		text                 string
		args                 map[string]string
		finish               [3]string // chat, messages, responses
		// usage: the record's. The requests here offer no server tool, so
		// the uses a transcript reports count none, and the record says
		// capped (docs/config.md, "Usage and cost").
		usage *decision.Usage
	}{
		{dialect: "anthropic", file: "thinking.sse", route: "claude", text: "27 * 453 = 12,231",
			finish: [3]string{"stop", "end_turn", "completed"}}, // the published stream reports no usage
		{dialect: "anthropic", file: "message_delta_fields.sse", route: "claude", text: "Hello there!",
			finish: [3]string{"stop", "end_turn", "completed"},
			usage:  &decision.Usage{PromptTokens: 59, CompletionTokens: 8, TotalTokens: 67, CachedTokens: 7, CacheWriteTokens: 12, ReasoningTokens: 3, Capped: true}},
		{dialect: "anthropic", file: "web_search.sse", route: "claude",
			text:   "I'll check the current weather in New York City for you.Here's the current weather information for New York City:\n\n# Weather in New York City\n\n",
			finish: [3]string{"stop", "end_turn", "completed"},
			usage:  &decision.Usage{PromptTokens: 10682, CompletionTokens: 510, TotalTokens: 11192, Capped: true}},
		{dialect: "anthropic", file: "server_tool_result.sse", route: "claude",
			args:   map[string]string{"ask_internal_tool": `{"query":"test"}`},
			finish: [3]string{"tool_calls", "tool_use", "completed"},
			usage:  &decision.Usage{PromptTokens: 50, CompletionTokens: 20, TotalTokens: 70, Capped: true}},
		{dialect: "gemini", file: "code_execution.sse", route: "gem",
			text:   "To find the sum of the first 5 prime numbers, we first need to identify them. The first five prime numbers are 2, 3, 5, 7, and 11.\n\nNow, let's calculate their sum using a Python tool:\n\nThe sum of the first 5 prime numbers is 28.",
			finish: [3]string{"stop", "end_turn", "completed"},
			usage:  &decision.Usage{PromptTokens: 264, CompletionTokens: 221, TotalTokens: 485, ReasoningTokens: 95}},
		{dialect: "gemini", file: "vertex_url_context.sse", route: "gem",
			text:   "The Google homepage primarily serves as a search engine, featuring a search bar prominently in the center of the page. It also displays trending searches and offers options to sign in, adjust settings such as dark theme, and access privacy and advertising information.",
			finish: [3]string{"stop", "end_turn", "completed"},
			usage:  &decision.Usage{PromptTokens: 57, CompletionTokens: 48, TotalTokens: 105}},
		{dialect: "gemini", file: "thought_summary.sse", route: "gem",
			text:   "The sky is blue because tiny gas molecules in Earth's atmosphere scatter blue light from the sun more efficiently than other colors. Blue light has shorter, smaller wavelengths, causing it to be scattered in all directions, making the sky appear blue to our eyes.",
			finish: [3]string{"stop", "end_turn", "completed"},
			usage:  &decision.Usage{PromptTokens: 10, CompletionTokens: 588, TotalTokens: 598, ReasoningTokens: 540}},
		{dialect: "gemini", file: "vertex_function_call.sse", route: "gem",
			args:   map[string]string{"getTemperature": `{"city":"San Jose"}`},
			finish: [3]string{"tool_calls", "tool_use", "completed"}},
	} {
		events := sseBlocks(string(testdata(t, tc.dialect, "stream/"+tc.file)))
		for i, door := range []struct {
			name, path, body string
			headers          []string
			read             func(*testing.T, []byte) transcriptRead
		}{
			{"chat", "/v1/chat/completions", `{"model":"` + tc.route + `","stream":true,"messages":[{"role":"user","content":"hi"}]}`,
				[]string{"Authorization", "Bearer client-key-1"}, readChat},
			{"messages", "/v1/messages", `{"model":"` + tc.route + `","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"hi"}]}`,
				[]string{"x-api-key", "client-key-1", "anthropic-version", "2023-06-01"}, readMessages},
			{"responses", "/v1/responses", `{"model":"` + tc.route + `","stream":true,"input":"hi"}`,
				[]string{"Authorization", "Bearer client-key-1"}, readResponses},
		} {
			t.Run(tc.file+"/"+door.name, func(t *testing.T) {
				fs := fakes(t, map[string]upstreamtest.Script{
					tc.dialect: script(upstreamtest.Step{Events: events}),
					map[string]string{"anthropic": "gemini", "gemini": "anthropic"}[tc.dialect]: script(),
				})
				g := start(t, transcriptsCfg, fs)
				r := g.raw(t, http.MethodPost, door.path, door.body, door.headers...)
				r.wantStatus(t, http.StatusOK)
				got := door.read(t, r.Body)
				if !got.ended || got.text != tc.text || got.finish != tc.finish[i] {
					t.Errorf("client read: ended %v finish %q (want %q) text %q (want %q)\n%s", got.ended, got.finish, tc.finish[i], got.text, tc.text, r.Body)
				}
				for name, want := range tc.args {
					var a, b any
					if json.Unmarshal([]byte(got.args[name]), &a) != nil || json.Unmarshal([]byte(want), &b) != nil || !jsonEqual(a, b) {
						t.Errorf("call %s arguments %q, want %s", name, got.args[name], want)
					}
				}
				d := g.recs.wait(t, 1)
				if d.Outcome != "ok" || len(d.Attempts) != 1 || d.Attempts[0].Class != "" || d.Attempts[0].Action != "done" {
					b, _ := json.Marshal(d)
					t.Fatalf("record: %s", b)
				}
				if tc.usage != nil {
					u := d.Attempts[0].Usage
					if u == nil || *u != *tc.usage {
						t.Errorf("record usage %+v, want %+v", u, *tc.usage)
					}
				}
			})
		}
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// Claude Sonnet 5 and Opus 5 think unasked, so a translated stream meets
// thinking it does not send. The published thinking stream, its events
// 100 ms apart (1.1 s of thinking before the first text), behind a
// first_token_timeout of 600 ms: each thinking delta is the model writing
// and restarts the clock, as on the native stream. Before probe 66b the
// chat and Responses doors timed the whole thought as silence, and the
// attempt failed as a timeout mid-thought (billed, and tried elsewhere).
func TestTranslatedThinkingIsNoSilenceR66b(t *testing.T) {
	cfg := strings.Replace(transcriptsCfg, "api_key: "+secret+"}\n  - {name: gemini", "api_key: "+secret+", first_token_timeout: 600ms}\n  - {name: gemini", 1)
	for _, door := range []struct{ path, body string }{
		{"/v1/chat/completions", `{"model":"claude","stream":true,"messages":[{"role":"user","content":"What is 27 * 453?"}]}`},
		{"/v1/responses", `{"model":"claude","stream":true,"input":"What is 27 * 453?"}`},
	} {
		t.Run(door.path, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{
				"anthropic": script(upstreamtest.Step{Events: sseBlocks(string(testdata(t, "anthropic", "stream/thinking.sse"))), EventDelay: 100 * time.Millisecond}),
				"gemini":    script(),
			})
			g := start(t, cfg, fs)
			r := g.raw(t, http.MethodPost, door.path, door.body, "Authorization", "Bearer client-key-1")
			r.wantStatus(t, http.StatusOK)
			if !strings.Contains(string(r.Body), "27 * 453 = 12,231") {
				t.Errorf("client stream:\n%s", r.Body)
			}
			if d := g.recs.wait(t, 1); d.Outcome != "ok" || len(d.Attempts) != 1 || d.Attempts[0].Class != "" {
				t.Errorf("record: outcome %s, steps %q", d.Outcome, steps(d))
			}
		})
	}
}
