package messages

import (
	"strings"
	"testing"
)

// Check refuses what is not a Messages request at all and lets everything
// else through, for the upstream to judge.
func TestCheck(t *testing.T) {
	const msgs = `"messages":[{"role":"user","content":"hi"}]`
	for _, c := range []struct{ name, body, want string }{
		{"minimal", `{"model":"m","max_tokens":1,` + msgs + `}`, ""},
		{"max_tokens as 1.6e1", `{"model":"m","max_tokens":1.6e1,` + msgs + `}`, ""},
		{"max_tokens as 100.0", `{"model":"m","max_tokens":100.0,` + msgs + `}`, ""},
		{"max_tokens 0: fills the prompt cache (Anthropic's Messages reference)", `{"model":"m","max_tokens":0,` + msgs + `}`, ""},
		{"unknown members and blocks", `{"model":"m","max_tokens":5,"future":[1],"messages":[{"role":"user","content":[{"type":"future","x":{}}],"extra":1}]}`, ""},
		{"a system message", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"a"},{"role":"system","content":[{"type":"text","text":"env"}]}]}`, ""},
		{"a block Detour cannot translate", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"document","source":{"type":"file","file_id":"f"}}]}]}`, ""},
		{"names matched as encoding/json matches them", `{"Model":"m","MAX_TOKENS":1,"messages":[{"ROLE":"user","Content":"hi"}]}`, ""},
		{"a name folded from beyond ASCII (ſ is s)", `{"model":"m","max_tokens":1,"me\u017f\u017fages":[{"role":"user","content":"hi"}]}`, ""},
		{"an escaped name", `{"\u006dodel":"m","max_tokens":1,` + msgs + `}`, ""},
		{"the last of two names that fold alike", `{"model":"m","max_tokens":5,"messages":[{"role":"user","ROLE":"robot","content":"a"}]}`, `got "robot"`},
		{"null", `null`, "model: Field required"},
		{"a number", `5`, "want a JSON object, got a JSON number"},
		{"not JSON", `{"model":`, "request body is not valid JSON"},
		{"a list", `[]`, "want a JSON object"},
		{"no model", `{"max_tokens":5,` + msgs + `}`, "model: Field required"},
		{"model a number", `{"model":5,"max_tokens":5,` + msgs + `}`, "model: want a string"},
		{"model empty", `{"model":"","max_tokens":5,` + msgs + `}`, "model: must not be empty"},
		{"no max_tokens", `{"model":"m",` + msgs + `}`, "max_tokens: Field required"},
		{"max_tokens a string", `{"model":"m","max_tokens":"5",` + msgs + `}`, "max_tokens: want an integer, got a string"},
		{"max_tokens true", `{"model":"m","max_tokens":true,` + msgs + `}`, "max_tokens: want an integer, got a boolean"},
		{"max_tokens 2.5", `{"model":"m","max_tokens":2.5,` + msgs + `}`, "max_tokens: want an integer"},
		{"max_tokens -1", `{"model":"m","max_tokens":-1,` + msgs + `}`, "max_tokens: must be at least 0"},
		{"max_tokens 1e300", `{"model":"m","max_tokens":1e300,` + msgs + `}`, "max_tokens: too large"},
		{"no messages", `{"model":"m","max_tokens":5}`, "messages: Field required"},
		{"messages null", `{"model":"m","max_tokens":5,"messages":null}`, "messages: Field required"},
		{"messages a string", `{"model":"m","max_tokens":5,"messages":"hi"}`, "messages: want a list of messages, got a string"},
		{"messages empty", `{"model":"m","max_tokens":5,"messages":[]}`, "messages: at least one message is required"},
		{"a message a string", `{"model":"m","max_tokens":5,"messages":["hi"]}`, "messages.0: want a message object, got a string"},
		{"a message null", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"a"},null]}`, "messages.1: want a message object, got null"},
		{"no role", `{"model":"m","max_tokens":5,"messages":[{"content":"a"}]}`, "messages.0.role: Field required"},
		{"role a number", `{"model":"m","max_tokens":5,"messages":[{"role":2,"content":"a"}]}`, "messages.0.role: want a string, got a number"},
		{"role unknown", `{"model":"m","max_tokens":5,"messages":[{"role":"robot","content":"a"}]}`, `messages.0.role: want "user" or "assistant", got "robot"`},
		{"role developer", `{"model":"m","max_tokens":5,"messages":[{"role":"developer","content":"a"}]}`, `messages.0.role: want "user" or "assistant", got "developer"`},
		{"no content", `{"model":"m","max_tokens":5,"messages":[{"role":"user"}]}`, "messages.0.content: Field required"},
		{"content an object", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":{"type":"text"}}]}`, "messages.0.content: want a string or a list of content blocks, got an object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := Check([]byte(c.body))
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && err == nil:
				t.Fatalf("accepted, want %q", c.want)
			case c.want != "" && !strings.Contains(err.Error(), c.want):
				t.Fatalf("%q, want %q", err, c.want)
			}
		})
	}
}

// FuzzCheck: Check never panics, and accepts everything Translate accepts
// (it asks for less).
func FuzzCheck(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"model":"m","max_tokens":1e2,"messages":[{"role":"system","content":[]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		err := Check(body)
		if _, terr := Translate(body); terr == nil && err != nil {
			t.Fatalf("Translate accepts %s, Check refuses it: %v", body, err)
		}
	})
}
