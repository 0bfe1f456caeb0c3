package gemini

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// An assistant turn that refused, carried on in the history as OpenAI's
// clients hand it back: the Chat Completions reference's assistant message
// has "refusal: The refusal message by the assistant" and content "one or
// more of type text, or exactly one of type refusal"
// (https://platform.openai.com/docs/api-reference/chat/create); openai-go's
// ChatCompletionMessage.ToParam writes the member with no content
// (chatcompletion_helpers.go), openai-python's message.model_dump() hands
// back {"content":null,"refusal":"…"}. The turn reaches Gemini as the
// model's text, so the model knows it refused; before, the member vanished
// (two user turns merged into one) and the part was a 400 (client review 46).
func TestC47bAssistantRefusalIsModelText(t *testing.T) {
	const (
		user1 = `{"role":"user","content":"How do I pick a lock?"}`
		user2 = `{"role":"user","content":"OK. Then how do locks work?"}`
		want  = `{"contents":[{"role":"user","parts":[{"text":"How do I pick a lock?"}]},{"role":"model","parts":[{"text":"I'm sorry, I can't help with that."}]},{"role":"user","parts":[{"text":"OK. Then how do locks work?"}]}]}`
	)
	for name, assistant := range map[string]string{
		"member, content null":     `{"role":"assistant","content":null,"refusal":"I'm sorry, I can't help with that."}`,
		"member, no content":       `{"role":"assistant","refusal":"I'm sorry, I can't help with that."}`,
		"part":                     `{"role":"assistant","content":[{"type":"refusal","refusal":"I'm sorry, I can't help with that."}]}`,
		"part and the same member": `{"role":"assistant","content":[{"type":"refusal","refusal":"I'm sorry, I can't help with that."}],"refusal":"I'm sorry, I can't help with that."}`,
	} {
		t.Run(name, func(t *testing.T) {
			out, err := Translate(adaptertest.ClientRequest(t, []byte(`{"model":"m","messages":[`+user1+`,`+assistant+`,`+user2+`]}`)))
			if err != nil {
				t.Fatal(err)
			}
			adaptertest.SameJSON(t, out, []byte(want))
		})
	}
	// Text and a refusal in one turn keep their order; an empty refusal
	// is no text (Gemini refuses an empty text part).
	out, err := Translate(adaptertest.ClientRequest(t, []byte(`{"model":"m","messages":[`+user1+`,
		{"role":"assistant","content":[{"type":"text","text":"Locks are puzzles."},{"type":"refusal","refusal":""},{"type":"refusal","refusal":"I can't say more."}],"refusal":"I won't."},`+user2+`]}`)))
	if err != nil {
		t.Fatal(err)
	}
	adaptertest.SameJSON(t, out, []byte(`{"contents":[{"role":"user","parts":[{"text":"How do I pick a lock?"}]},{"role":"model","parts":[{"text":"Locks are puzzles."},{"text":"I can't say more."},{"text":"I won't."}]},{"role":"user","parts":[{"text":"OK. Then how do locks work?"}]}]}`))
}

// Only an assistant turn may hold a refusal part (the reference's user
// message content is text, image, audio or file parts): in a user turn it
// stays a translation error, as before.
func TestC47bUserRefusalPartStillRefused(t *testing.T) {
	out, err := Translate(adaptertest.ClientRequest(t, []byte(`{"model":"m","messages":[{"role":"user","content":[{"type":"refusal","refusal":"no"}]}]}`)))
	if err == nil || !strings.Contains(err.Error(), "refusal") {
		t.Fatalf("sent %s, %v; want an error naming the part", out, err)
	}
}
