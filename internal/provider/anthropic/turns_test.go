package anthropic

import (
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// TestTranslateNoTurns: conversations OpenAI takes that have no turn
// Anthropic can send (docs/doors.md, "Chat Completions to Claude and Gemini
// targets"). Anthropic wants at least one message and refuses text blocks
// that are empty or whitespace alone.
func TestTranslateNoTurns(t *testing.T) {
	for _, tc := range []struct{ name, messages, want string }{{
		// An LLM-as-judge or one-shot prompt: the instructions are the
		// one user turn, and are not sent twice.
		name:     "system alone",
		messages: `[{"role":"system","content":"Write a haiku about the sea."}]`,
		want:     `"messages":[{"role":"user","content":[{"type":"text","text":"Write a haiku about the sea."}]}]`,
	}, {
		name:     "system and developer",
		messages: `[{"role":"system","content":"Judge the answer."},{"role":"developer","content":[{"type":"text","text":"Say yes or no."}]}]`,
		want:     `"messages":[{"role":"user","content":[{"type":"text","text":"Judge the answer.\n\nSay yes or no."}]}]`,
	}, {
		name:     "system and an empty user text",
		messages: `[{"role":"system","content":"Write a haiku."},{"role":"user","content":""}]`,
		want:     `"messages":[{"role":"user","content":[{"type":"text","text":"Write a haiku."}]}]`,
	}, {
		name:     "system and a user text of whitespace",
		messages: `[{"role":"system","content":"Write a haiku."},{"role":"user","content":[{"type":"text","text":" \n"}]}]`,
		want:     `"messages":[{"role":"user","content":[{"type":"text","text":"Write a haiku."}]}]`,
	}, {
		// Empty user text beside other turns is left out, as before.
		name:     "an empty user text among turns",
		messages: `[{"role":"system","content":"S"},{"role":"user","content":""},{"role":"user","content":"hi"}]`,
		want:     `"system":"S","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]`,
	}, {
		// An assistant text of whitespace beside its tool call.
		name: "whitespace beside a tool call",
		messages: `[{"role":"user","content":"hi"},{"role":"assistant","content":" ","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},
			{"role":"tool","tool_call_id":"c1","content":"ok"}]`,
		want: `"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"f","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"ok"}]}]`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Translate(adaptertest.ClientRequest(t, []byte(`{"model":"m","messages":`+tc.messages+`}`)), "claude")
			if err != nil {
				t.Fatal(err)
			}
			adaptertest.SameJSON(t, out, []byte(`{"model":"claude","max_tokens":4096,`+tc.want+`}`))
		})
	}
	// Nothing to send at all: a translation error (the route moves on to
	// a target that takes it), never "messages": null.
	for _, messages := range []string{`[{"role":"user","content":""}]`, `[{"role":"user","content":"  "}]`, `[]`} {
		if out, err := Translate(adaptertest.ClientRequest(t, []byte(`{"model":"m","messages":`+messages+`}`)), "claude"); err == nil {
			t.Errorf("%s: sent %s, want an error", messages, out)
		}
	}
}
