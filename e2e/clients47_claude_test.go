package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// Round 47a: request shapes real OpenAI clients send that reached Claude
// in a form Anthropic refuses or that lost the conversation
// (client review 46), through a real
// gateway on the route [claude, gpt] (edgesCfg), asserting what Claude gets.

// c47aClaudeAnswered checks that the client got a 200 from the claude
// attempt, the first and only one.
func c47aClaudeAnswered(t *testing.T, g *gateway, r reply) {
	t.Helper()
	if r.Status != http.StatusOK {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	wantSteps(t, g.recs.wait(t, 1), "claude/anthropic ok done")
}

// A client's `user` (an email address as often as not: OpenAI's `user` is
// any stable end-user id) reaches Claude as the hex SHA-256 of it, through
// the chat and the Responses doors. Anthropic's metadata.user_id must hold
// no "name, email address, or phone number"
// (https://docs.anthropic.com/en/api/messages#body-metadata-user-id) and an
// email is a 400 (BerriAI/litellm#10106).
func TestClients47aUserEmailReachesClaudeHashed(t *testing.T) {
	const user = "jane.doe@example.com"
	sum := sha256.Sum256([]byte(user))
	want := hex.EncodeToString(sum[:])
	for path, body := range map[string]string{
		"/v1/chat/completions": `{"model":"judge","messages":[{"role":"user","content":"hi"}],"user":"` + user + `"}`,
		"/v1/responses":        `{"model":"judge","input":"hi","user":"` + user + `"}`,
	} {
		t.Run(path, func(t *testing.T) {
			fs := strictFakes(t, "Hello")
			g := start(t, edgesCfg, fs)
			c47aClaudeAnswered(t, g, g.raw(t, http.MethodPost, path, body))
			md, _ := lastBody(t, fs["anthropic"])["metadata"].(map[string]any)
			if got, _ := md["user_id"].(string); got != want {
				t.Errorf("metadata.user_id %q, want %q", got, want)
			}
			if raw := string(fs["anthropic"].Requests()[0].Body); strings.Contains(raw, user) {
				t.Errorf("the client's user reached Anthropic: %s", raw)
			}
		})
	}
}

// A function declared with `"parameters": {}` (VS Code Copilot Chat's
// serializer, microsoft/vscode#330662; a JSON Schema object to OpenAI's
// reference) reaches Claude with input_schema {"type":"object",
// "properties":{}}: Anthropic refuses a schema without type
// ("tools.0.custom.input_schema.type: Field required",
// Kilo-Org/kilocode#12238).
func TestClients47aEmptyParametersReachClaudeTyped(t *testing.T) {
	for path, body := range map[string]string{
		"/v1/chat/completions": `{"model":"judge","messages":[{"role":"user","content":"What time is it?"}],
			"tools":[{"type":"function","function":{"name":"get_time","description":"Current time","parameters":{}}}]}`,
		"/v1/responses": `{"model":"judge","input":"What time is it?","tools":[{"type":"function","name":"get_time","description":"Current time","parameters":{}}]}`,
	} {
		t.Run(path, func(t *testing.T) {
			fs := strictFakes(t, "Noon")
			g := start(t, edgesCfg, fs)
			c47aClaudeAnswered(t, g, g.raw(t, http.MethodPost, path, body))
			tools, _ := lastBody(t, fs["anthropic"])["tools"].([]any)
			if len(tools) != 1 {
				t.Fatalf("tools %v", tools)
			}
			got, _ := json.Marshal(tools[0].(map[string]any)["input_schema"])
			if string(got) != `{"properties":{},"type":"object"}` {
				t.Errorf("input_schema %s", got)
			}
		})
	}
}

// A conversation ending with an assistant text that ends in whitespace (a
// prefill): Anthropic answers 400 "messages: final assistant content
// cannot end with trailing whitespace"; Claude gets the text trimmed.
func TestClients47aPrefillTrailingWhitespaceTrimmed(t *testing.T) {
	fs := strictFakes(t, "Gulls wheel overhead")
	g := start(t, edgesCfg, fs)
	c47aClaudeAnswered(t, g, g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"judge","messages":[
		{"role":"user","content":"Write a haiku about the sea."},{"role":"assistant","content":"Waves fold into foam\n"}]}`))
	msgs, _ := lastBody(t, fs["anthropic"])["messages"].([]any)
	last, _ := json.Marshal(msgs[len(msgs)-1])
	if string(last) != `{"content":[{"text":"Waves fold into foam","type":"text"}],"role":"assistant"}` {
		t.Errorf("last message %s", last)
	}
}

// An assistant turn that refused, as openai-go's ToParam writes it
// (`"content":null,"refusal":"…"`) or as a refusal part (OpenAI's
// reference: an assistant's content is "one or more of type `text`, or
// exactly one of type `refusal`"), reaches Claude as the assistant's text:
// the turn is neither lost nor a translation error.
func TestClients47aAssistantRefusalReachesClaude(t *testing.T) {
	const refusal = "I'm sorry, I can't help with that."
	for name, assistant := range map[string]string{
		"member": `{"role":"assistant","content":null,"refusal":"` + refusal + `"}`,
		"part":   `{"role":"assistant","content":[{"type":"refusal","refusal":"` + refusal + `"}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			fs := strictFakes(t, "Why did the chicken…")
			g := start(t, edgesCfg, fs)
			c47aClaudeAnswered(t, g, g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"judge","messages":[
				{"role":"user","content":"How do I pick a lock?"},`+assistant+`,{"role":"user","content":"Then tell me a joke."}]}`))
			msgs, _ := json.Marshal(lastBody(t, fs["anthropic"])["messages"])
			want := `[{"content":[{"text":"How do I pick a lock?","type":"text"}],"role":"user"},` +
				`{"content":[{"text":"` + refusal + `","type":"text"}],"role":"assistant"},` +
				`{"content":[{"text":"Then tell me a joke.","type":"text"}],"role":"user"}]`
			if string(msgs) != want {
				t.Errorf("messages\n got %s\nwant %s", msgs, want)
			}
		})
	}
}

// An inline image of a type Claude cannot take (Anthropic takes
// image/jpeg, image/png, image/gif, image/webp:
// https://docs.anthropic.com/en/docs/build-with-claude/vision) is not sent:
// the claude attempt is unknown with evidence translate and the route moves
// on to GPT (docs/behaviour.md: "A request a dialect cannot express … is an
// unknown attempt with evidence translate: nothing is sent, nothing cools,
// the request moves on"), where it stopped at Anthropic's 400 before.
func TestClients47aImageTypeClaudeCannotTakeMovesOn(t *testing.T) {
	fs := strictFakes(t, "A photo of a cat")
	g := start(t, edgesCfg, fs)
	r := g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"judge","messages":[{"role":"user","content":[
		{"type":"text","text":"What is in this photo?"},{"type":"image_url","image_url":{"url":"data:image/heic;base64,AAAAGGZ0eXBoZWlj"}}]}]}`)
	if r.Status != http.StatusOK {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "claude/anthropic unknown next_target", "gpt/openai ok done")
	if d.Attempts[0].Evidence != "translate" || fs["anthropic"].Calls() != 0 {
		t.Errorf("claude attempt %+v, %d calls", d.Attempts[0], fs["anthropic"].Calls())
	}
}
