package gemini

import (
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// TestTranslateNoTurns: conversations OpenAI takes that have no turn
// Gemini can send (docs/doors.md, "Chat Completions to Claude and Gemini
// targets"). Gemini wants at least one content and refuses empty text
// parts.
func TestTranslateNoTurns(t *testing.T) {
	for _, tc := range []struct{ name, messages, want string }{{
		// An LLM-as-judge or one-shot prompt: the instructions are the
		// one user content, and are not sent twice.
		name:     "system alone",
		messages: `[{"role":"system","content":"Write a haiku about the sea."}]`,
		want:     `{"contents":[{"role":"user","parts":[{"text":"Write a haiku about the sea."}]}]}`,
	}, {
		name:     "system and developer",
		messages: `[{"role":"system","content":"Judge the answer."},{"role":"developer","content":"Say yes or no."}]`,
		want:     `{"contents":[{"role":"user","parts":[{"text":"Judge the answer."},{"text":"Say yes or no."}]}]}`,
	}, {
		name:     "system and an empty user text",
		messages: `[{"role":"system","content":"Write a haiku."},{"role":"user","content":[{"type":"text","text":""}]}]`,
		want:     `{"contents":[{"role":"user","parts":[{"text":"Write a haiku."}]}]}`,
	}, {
		name:     "an empty user text among turns",
		messages: `[{"role":"system","content":"S"},{"role":"user","content":""},{"role":"user","content":"hi"}]`,
		want:     `{"systemInstruction":{"parts":[{"text":"S"}]},"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Translate(adaptertest.ClientRequest(t, []byte(`{"model":"m","messages":`+tc.messages+`}`)))
			if err != nil {
				t.Fatal(err)
			}
			adaptertest.SameJSON(t, out, []byte(tc.want))
		})
	}
	// Nothing to send at all: a translation error (the route moves on to
	// a target that takes it), never "contents": null.
	for _, messages := range []string{`[{"role":"user","content":""}]`, `[]`} {
		if out, err := Translate(adaptertest.ClientRequest(t, []byte(`{"model":"m","messages":`+messages+`}`))); err == nil {
			t.Errorf("%s: sent %s, want an error", messages, out)
		}
	}
}
