package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// nativeFirstResponses starts a gateway whose route r begins with a
// responses: true target (n) and falls back to a chat target (c).
func nativeFirstResponses(t *testing.T, n, c upstreamtest.Script) (url string, nat, chat *upstreamtest.Server, recs *gatewaytest.Records) {
	nat, chat = upstreamtest.New(n), upstreamtest.New(c)
	t.Cleanup(nat.Close)
	t.Cleanup(chat.Close)
	recs = gatewaytest.NewRecords()
	url, _ = gatewaytest.Start(t, gatewaytest.Config(t, `
providers:
  - {name: n, dialect: openai, base_url: "`+nat.URL+`", api_key: sk-n, responses: true}
  - {name: c, dialect: openai, base_url: "`+chat.URL+`", api_key: sk-c}
targets:
  - {name: nt, model: gpt-5, providers: [n]}
  - {name: ct, model: gpt-4o, providers: [c]}
routes:
  - {name: r, targets: [nt, ct]}
`), app.Options{Decisions: recs})
	return url, nat, chat, recs
}

// A route that begins with a responses: true target gets the client's body
// as sent, and that target judges it: the door refuses only what needs
// stored state, and does not translate up front (docs/doors.md, "OpenAI
// Responses"). Before, a member the translation finds malformed was a 400
// at the door though OpenAI takes the body as it is, and every request
// paid for a translation nobody read.
func TestResponsesNativeFirstIsJudgedByItsTarget(t *testing.T) {
	answer := `{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"gpt-5","output":[{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"hello","annotations":[]}]}],"usage":{"input_tokens":3,"output_tokens":1,"total_tokens":4}}`
	url, nat, chat, _ := nativeFirstResponses(t,
		upstreamtest.Steps(upstreamtest.Step{Body: answer}), upstreamtest.Steps(upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o", "from c")}))
	// A tool choice the translation cannot read ("required_tools" is not a
	// mode it knows) is the first target's to judge.
	resp, body := post(t, url, "/v1/responses", `{"model":"r","input":"hi","tool_choice":"required_tools"}`)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "hello") || nat.Calls() != 1 || chat.Calls() != 0 {
		t.Errorf("a body the translation refuses, to a responses: true route: %d %.300s (calls %d, %d)", resp.StatusCode, body, nat.Calls(), chat.Calls())
	}
	// What needs stored state is still refused before any call.
	resp, body = post(t, url, "/v1/responses", `{"model":"r","input":"hi","previous_response_id":"resp_0"}`)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `"param":"previous_response_id"`) || nat.Calls() != 1 {
		t.Errorf("previous_response_id: %d %.300s (native calls %d)", resp.StatusCode, body, nat.Calls())
	}
	resp, body = post(t, url, "/v1/responses", `{"model":"r","input":[{"role":"user","content":"hi"},{"type":"item_reference","id":"msg_0"}]}`)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `"param":"input[1]"`) || nat.Calls() != 1 {
		t.Errorf("an item_reference: %d %.300s (native calls %d)", resp.StatusCode, body, nat.Calls())
	}
}

// When the responses: true target fails, the walk translates the request
// for the chat target, once, and a streamed answer from it reaches the
// client as a Responses stream that repeats the request's settings.
func TestResponsesNativeFirstStreamFailsOverTranslated(t *testing.T) {
	url, nat, chat, recs := nativeFirstResponses(t,
		upstreamtest.Steps(upstreamtest.Step{Status: 503, Body: `{"error":{"message":"overloaded","type":"server_error"}}`}),
		upstreamtest.Steps(upstreamtest.Step{Events: upstreamtest.ChatStream("gpt-4o", "from ", "c")}))
	resp, body := post(t, url, "/v1/responses", `{"model":"r","input":"hi","instructions":"be brief","stream":true}`)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "event: response.completed") || !strings.Contains(body, `"delta":"c"`) || !strings.Contains(body, `"instructions":"be brief"`) {
		t.Fatalf("a translated stream after the native target failed: %d %.600s", resp.StatusCode, body)
	}
	if got := chat.Requests(); len(got) != 1 || !strings.Contains(string(got[0].Body), `"role":"system"`) || nat.Calls() == 0 {
		t.Errorf("the chat target got %d requests (%.300q), the native one %d calls", len(got), got, nat.Calls())
	}
	if d := recs.Wait(t, 1); d.Outcome != "ok" {
		t.Errorf("outcome %s", d.Outcome)
	}
}
