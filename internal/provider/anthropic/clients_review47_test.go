package anthropic

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// c47aTranslate translates a chat-completions body for "claude" and fails
// the test on a translation error.
func c47aTranslate(t *testing.T, body string) []byte {
	t.Helper()
	out, err := Translate(adaptertest.ClientRequest(t, []byte(body)), "claude")
	if err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return out
}

// c47aUserID is the metadata.user_id Claude got ("" for none).
func c47aUserID(t *testing.T, out []byte) string {
	t.Helper()
	var v struct {
		Metadata *struct {
			UserID string `json:"user_id"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	if v.Metadata == nil {
		return ""
	}
	return v.Metadata.UserID
}

// A client's `user` reaches Claude as an opaque hash of it, never as sent.
// OpenAI's `user` is any stable end-user identifier (clients send an email
// address); Anthropic's metadata.user_id "should be a uuid, hash value, or
// other opaque identifier … Do not include any identifying information such
// as name, email address, or phone number"
// (https://docs.anthropic.com/en/api/messages#body-metadata-user-id), and
// answers an email with a 400 "metadata.user_id: user_id appears to contain
// an email address" (BerriAI/litellm#10106). The hash is stable per user,
// so Anthropic can still tell users apart for abuse tracking.
func TestUserIDIsAnOpaqueHash(t *testing.T) {
	const body = `{"model":"m","messages":[{"role":"user","content":"hi"}],"user":%q}`
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	var seen []string
	for _, user := range []string{"jane.doe@example.com", "+1 415 555 0100", "14155550100", "4111-1111-1111-1111", "Jane Doe"} {
		got := c47aUserID(t, c47aTranslate(t, strings.Replace(body, "%q", `"`+user+`"`, 1)))
		if got != sum(user) {
			t.Errorf("user %q: metadata.user_id %q, want the hex SHA-256 of it %q", user, got, sum(user))
		}
		if again := c47aUserID(t, c47aTranslate(t, strings.Replace(body, "%q", `"`+user+`"`, 1))); again != got {
			t.Errorf("user %q: %q then %q, want one stable id", user, got, again)
		}
		for _, s := range seen {
			if s == got {
				t.Errorf("user %q: the id of another user", user)
			}
		}
		seen = append(seen, got)
	}
	// An id already opaque by its form (a UUID, a hex digest) is sent as
	// it is: a Messages client's user_id, translated, stays the one it
	// gave Anthropic before.
	for _, user := range []string{"13803d75-b4b5-4c3e-b2a2-6f21399b021b", sum("x")} {
		if got := c47aUserID(t, c47aTranslate(t, strings.Replace(body, "%q", `"`+user+`"`, 1))); got != user {
			t.Errorf("opaque user %q: metadata.user_id %q, want it as sent", user, got)
		}
	}
	// No user, no metadata.
	if got := c47aUserID(t, c47aTranslate(t, `{"model":"m","messages":[{"role":"user","content":"hi"}]}`)); got != "" {
		t.Errorf("no user: metadata.user_id %q", got)
	}
}

// A function declared with a JSON Schema object that has no "type" (most
// often `"parameters": {}`, which VS Code Copilot Chat sent for every
// parameterless tool, microsoft/vscode#330662) reaches Claude as an object
// schema: Anthropic refuses an input_schema without type ("tools.0.custom.
// input_schema.type: Field required", Kilo-Org/kilocode#12238), while
// OpenAI's reference calls parameters "a JSON Schema object", which {} is.
// An object schema without properties is Claude's to take, and is sent as
// it came.
func TestParametersWithoutTypeAreAnObjectSchema(t *testing.T) {
	for _, tc := range []struct{ params, want string }{
		{`{}`, `{"type":"object","properties":{}}`},
		{` { } `, `{"type":"object","properties":{}}`},
		{`{"properties":{"tz":{"type":"string"}},"required":["tz"]}`, `{"type":"object","properties":{"tz":{"type":"string"}},"required":["tz"]}`},
		{`{"type":"object"}`, `{"type":"object"}`},
		{`{"type":"object","properties":{}}`, `{"type":"object","properties":{}}`},
		{`{"type":"object","properties":{"a":{"type":"integer"}}}`, `{"type":"object","properties":{"a":{"type":"integer"}}}`},
		{`null`, `{"type":"object","properties":{}}`},
	} {
		out := c47aTranslate(t, `{"model":"m","messages":[{"role":"user","content":"What time is it?"}],
			"tools":[{"type":"function","function":{"name":"get_time","description":"Current time","parameters":`+tc.params+`}}]}`)
		var v struct {
			Tools []struct {
				InputSchema json.RawMessage `json:"input_schema"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(out, &v); err != nil || len(v.Tools) != 1 {
			t.Fatalf("%s: sent %s", tc.params, out)
		}
		adaptertest.SameJSON(t, v.Tools[0].InputSchema, []byte(tc.want))
	}
}

// A conversation that ends with an assistant turn (a prefill, or a client
// continuing an answer cut between words) whose text ends in whitespace:
// Anthropic answers 400 "messages: final assistant content cannot end with
// trailing whitespace" (the wording internal/splice/refusal.go knows),
// where OpenAI answers it. The last text block is sent trimmed.
func TestFinalAssistantTextIsTrimmed(t *testing.T) {
	for _, tc := range []struct{ name, messages, want string }{{
		name:     "prefill ending in a newline",
		messages: `[{"role":"user","content":"Write a haiku about the sea."},{"role":"assistant","content":"Waves fold into foam\n"}]`,
		want: `[{"role":"user","content":[{"type":"text","text":"Write a haiku about the sea."}]},
			{"role":"assistant","content":[{"type":"text","text":"Waves fold into foam"}]}]`,
	}, {
		name: "two assistant messages merged, the last trimmed",
		messages: `[{"role":"user","content":"Go on."},{"role":"assistant","content":"One \n"},
			{"role":"assistant","content":[{"type":"text","text":"Two"},{"type":"text","text":"three \t "}]}]`,
		want: `[{"role":"user","content":[{"type":"text","text":"Go on."}]},
			{"role":"assistant","content":[{"type":"text","text":"One \n"},{"type":"text","text":"Two"},{"type":"text","text":"three"}]}]`,
	}, {
		// Earlier assistant turns are not the final content: kept as sent.
		name:     "an earlier assistant turn",
		messages: `[{"role":"user","content":"a"},{"role":"assistant","content":"b \n"},{"role":"user","content":"c"}]`,
		want: `[{"role":"user","content":[{"type":"text","text":"a"}]},{"role":"assistant","content":[{"type":"text","text":"b \n"}]},
			{"role":"user","content":[{"type":"text","text":"c"}]}]`,
	}, {
		name:     "a user turn last",
		messages: `[{"role":"user","content":"trailing \n"}]`,
		want:     `[{"role":"user","content":[{"type":"text","text":"trailing \n"}]}]`,
	}, {
		// The whitespace-only text is left out (Anthropic refuses such
		// blocks), so the turn ends in the text before it, trimmed.
		name:     "an assistant refusal of whitespace after text",
		messages: `[{"role":"user","content":"a"},{"role":"assistant","content":"b ","refusal":"  "}]`,
		want:     `[{"role":"user","content":[{"type":"text","text":"a"}]},{"role":"assistant","content":[{"type":"text","text":"b"}]}]`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			out := c47aTranslate(t, `{"model":"m","messages":`+tc.messages+`}`)
			adaptertest.SameJSON(t, out, []byte(`{"model":"claude","max_tokens":4096,"messages":`+tc.want+`}`))
		})
	}
}

// An assistant turn that refused: openai-go's ChatCompletionMessage.ToParam
// (chatcompletion_helpers.go) and openai-python's model_dump hand it back as
// {"content":null,"refusal":"…"}, and OpenAI's reference lets an assistant's
// content be "exactly one of type `refusal`". Claude gets the refusal as the
// assistant's text, so the model knows what it said; the turn is not lost
// (the two user texts merged) nor the request refused. A refusal part in a
// user turn is still no part Claude can take.
func TestAssistantRefusalIsText(t *testing.T) {
	const refusal = "I'm sorry, I can't help with that."
	want := `[{"role":"user","content":[{"type":"text","text":"How do I pick a lock?"}]},
		{"role":"assistant","content":[{"type":"text","text":"` + refusal + `"}]},
		{"role":"user","content":[{"type":"text","text":"Then tell me a joke."}]}]`
	for name, assistant := range map[string]string{
		"member":                 `{"role":"assistant","content":null,"refusal":"` + refusal + `"}`,
		"part":                   `{"role":"assistant","content":[{"type":"refusal","refusal":"` + refusal + `"}]}`,
		"member beside no parts": `{"role":"assistant","content":[],"refusal":"` + refusal + `"}`,
	} {
		t.Run(name, func(t *testing.T) {
			out := c47aTranslate(t, `{"model":"m","messages":[{"role":"user","content":"How do I pick a lock?"},`+assistant+`,
				{"role":"user","content":"Then tell me a joke."}]}`)
			adaptertest.SameJSON(t, out, []byte(`{"model":"claude","max_tokens":4096,"messages":`+want+`}`))
		})
	}
	// Text and a refusal both: the text, then the refusal.
	out := c47aTranslate(t, `{"model":"m","messages":[{"role":"user","content":"a"},
		{"role":"assistant","content":"Partly.","refusal":"No more."},{"role":"user","content":"b"}]}`)
	adaptertest.SameJSON(t, out, []byte(`{"model":"claude","max_tokens":4096,"messages":[{"role":"user","content":[{"type":"text","text":"a"}]},
		{"role":"assistant","content":[{"type":"text","text":"Partly."},{"type":"text","text":"No more."}]},{"role":"user","content":[{"type":"text","text":"b"}]}]}`))
	for _, body := range []string{
		`{"model":"m","messages":[{"role":"user","content":[{"type":"refusal","refusal":"no"}]}]}`,
		`{"model":"m","messages":[{"role":"user","content":"a"},{"role":"tool","tool_call_id":"c","content":[{"type":"refusal","refusal":"no"}]}]}`,
	} {
		if out, err := Translate(adaptertest.ClientRequest(t, []byte(body)), "claude"); err == nil {
			t.Errorf("%s: sent %s, want a translation error", body, out)
		}
	}
}

// An inline image of a type Claude cannot take is a translation error, so
// the route moves on to a target that may take it (docs/behaviour.md: "A
// request a dialect cannot express … is an unknown attempt with evidence
// translate"), not a 400 that ends the walk. Anthropic takes "image/jpeg",
// "image/png", "image/gif" or "image/webp" (its 400 when sent another:
// "media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or
// 'image/webp'"; https://docs.anthropic.com/en/docs/build-with-claude/vision).
func TestInlineImageTypesClaudeTakes(t *testing.T) {
	const body = `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"What is this?"},
		{"type":"image_url","image_url":{"url":"data:%s;base64,AAAA"}}]}]}`
	for _, mt := range []string{"image/heic", "image/heif", "image/tiff", "image/bmp", "image/svg+xml", "image/avif", "application/pdf", ""} {
		if out, err := Translate(adaptertest.ClientRequest(t, []byte(strings.Replace(body, "%s", mt, 1))), "claude"); err == nil {
			t.Errorf("%q: sent %s, want a translation error", mt, out)
		}
	}
	// In a tool result as well.
	if out, err := Translate(adaptertest.ClientRequest(t, []byte(`{"model":"m","messages":[{"role":"user","content":"a"},
		{"role":"tool","tool_call_id":"c","content":[{"type":"image_url","image_url":{"url":"data:image/tiff;base64,AAAA"}}]}]}`)), "claude"); err == nil {
		t.Errorf("tiff in a tool result: sent %s, want a translation error", out)
	}
	for mt, want := range map[string]string{"image/jpeg": "image/jpeg", "image/png": "image/png", "image/gif": "image/gif",
		"image/webp": "image/webp", "image/jpg": "image/jpeg", "image/PNG": "image/png"} {
		out := c47aTranslate(t, strings.Replace(body, "%s", mt, 1))
		if !strings.Contains(string(out), `"source":{"type":"base64","media_type":"`+want+`","data":"AAAA"}`) {
			t.Errorf("%q: sent %s, want media_type %q", mt, out, want)
		}
	}
	// An image by URL is Anthropic's to fetch and judge, as before.
	out := c47aTranslate(t, strings.Replace(body, "data:%s;base64,AAAA", "https://example.com/a.heic", 1))
	if !strings.Contains(string(out), `"source":{"type":"url","url":"https://example.com/a.heic"}`) {
		t.Errorf("url image: sent %s", out)
	}
}
