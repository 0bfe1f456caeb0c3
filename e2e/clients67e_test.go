package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/clienttest"
)

// Probe 67e: what the clients' versions pinned since 2026-12-07 send that
// the ones before them did not (e2e/testdata/node/probe67e.mjs), through
// Detour to an OpenAI, an OpenAI responses: true, an Anthropic and a Gemini
// upstream in turn.
//
//   - @anthropic-ai/sdk 1.17.0's zodOutputFormat (with zod 4.6.7) writes
//     every described field as {"$ref": …, "description": …}, primitives
//     included: messages.parse gets its object, whole and streamed; the
//     description reaches OpenAI and Anthropic, and Gemini gets each $ref
//     alone (it refuses siblings; review 62f).
//   - @ai-sdk/anthropic 4.0.112 with midConversationSystemMessages keeps a
//     later system message in place with no system message before it: it
//     reaches Anthropic as a role "system" message under the
//     mid-conversation-system beta, and a translated target as a system
//     message (Gemini: its system instruction).
//   - @ai-sdk/anthropic 4.0.111 puts a tool-changes-only system message's
//     cache control on its tool_addition: Anthropic gets it as sent, a
//     translated target the deferred tool, which the model then calls.
func TestClients67eNewClientRequests(t *testing.T) {
	for _, kind := range nodeKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			res, up := nodeRun(t, kind, "probe67e.mjs")
			for _, name := range []string{"sdk_parse_ref", "sdk_parse_ref_stream"} {
				var c struct {
					Object map[string]any `json:"object"`
				}
				if res.Case(t, name, &c) && (c.Object["city"] != "Paris" || c.Object["sunny"] != true) {
					t.Errorf("%s: parsed %v, want the upstream's object", name, c.Object)
				}
			}
			var mid struct{ Text string }
			if res.Case(t, "ai_mid_system", &mid) && mid.Text != nodeReply {
				t.Errorf("ai_mid_system: %q", mid.Text)
			}
			var change struct{ Calls []string }
			if res.Case(t, "ai_tool_change_cache", &change) && (len(change.Calls) != 1 || change.Calls[0] != "get_weather") {
				t.Errorf("ai_tool_change_cache: calls %v, want get_weather (the tool the system message adds)", change.Calls)
			}

			var sawRef, sawMid, sawChange bool
			for _, r := range up.Requests() {
				body := string(r.Body)
				switch {
				case strings.Contains(body, "__schema0"): // the structured output
					sawRef = true
					described := strings.Contains(body, `"description":"The city"`)
					if kind == "gemini" {
						if described || !strings.Contains(body, `"city":{"$ref":"#/$defs/__schema0"}`) {
							t.Errorf("gemini: want each $ref alone: %.600s", body)
						}
					} else if !described {
						t.Errorf("%s: the field's description beside its $ref was lost: %.600s", kind, body)
					}
				case strings.Contains(body, "From now on answer in one word."):
					sawMid = true
					wantMidSystem(t, kind, r)
				case strings.Contains(body, "You are terse.") && strings.Contains(body, "get_weather") && !strings.Contains(body, "sunny in Paris."):
					sawChange = true
					wantToolAddition(t, kind, r)
				}
			}
			if !sawRef || !sawMid || !sawChange {
				t.Errorf("upstream saw the structured output %v, the mid-conversation system message %v, the tool change %v", sawRef, sawMid, sawChange)
			}
		})
	}
}

// wantMidSystem checks the request of ai_mid_system as the upstream of
// kind got it: the system message after the first turn, in place where the
// dialect has a place for it.
func wantMidSystem(t *testing.T, kind string, r clienttest.Request) {
	t.Helper()
	var b struct {
		System   json.RawMessage `json:"system"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		SystemInstruction json.RawMessage `json:"systemInstruction"`
	}
	if err := json.Unmarshal(r.Body, &b); err != nil {
		t.Fatal(err)
	}
	switch kind {
	case "anthropic":
		beta := strings.Join(r.Headers["anthropic-beta"], ",")
		if len(b.System) != 0 || len(b.Messages) != 4 || b.Messages[2].Role != "system" || !strings.Contains(beta, "mid-conversation-system-2026-04-07") {
			t.Errorf("anthropic: want the system message third of four, no top-level system, the beta (%q): %.800s", beta, r.Body)
		}
	case "gemini":
		if !strings.Contains(string(b.SystemInstruction), "one word") {
			t.Errorf("gemini: the system message is not the system instruction: %.800s", r.Body)
		}
	default:
		if len(b.Messages) != 4 || b.Messages[2].Role != "system" {
			t.Errorf("%s: want the system message third of four: %.800s", kind, r.Body)
		}
	}
}

// wantToolAddition checks the request of ai_tool_change_cache: Anthropic
// gets the tool_addition with its cache control, under the tool-changes
// beta; a translated target the deferred tool among its tools.
func wantToolAddition(t *testing.T, kind string, r clienttest.Request) {
	t.Helper()
	body := string(r.Body)
	if kind == "anthropic" {
		beta := strings.Join(r.Headers["anthropic-beta"], ",")
		if !strings.Contains(body, `{"type":"tool_addition","tool":{"type":"tool_reference","name":"get_weather"},"cache_control":{"type":"ephemeral"}}`) ||
			!strings.Contains(beta, "mid-conversation-tool-changes-2026-07-01") {
			t.Errorf("anthropic: want the tool_addition with its cache_control and the beta (%q): %.800s", beta, body)
		}
		return
	}
	if strings.Contains(body, "tool_addition") || !strings.Contains(body, `"name":"get_weather"`) {
		t.Errorf("%s: want get_weather among the tools, no tool_addition: %.800s", kind, body)
	}
}
