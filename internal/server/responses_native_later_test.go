package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// custom is a Codex request with a custom tool (free-form input under a
// grammar), which only a responses: true target can serve.
const custom = `{"model":"r","input":"fix it","tools":[{"type":"custom","name":"apply_patch","format":{"type":"grammar","syntax":"lark","definition":"start: /.+/"}}]}`

// chatThenNative starts a gateway with a chat target (ct, provider c) and
// a responses: true one (nt, provider n), and the routes given (YAML list
// items under routes:).
func chatThenNative(t *testing.T, routes string) (url string, nat, chat *upstreamtest.Server, recs *gatewaytest.Records) {
	t.Helper()
	answer := `{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"gpt-5","output":[{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"patched","annotations":[]}]}],"usage":{"input_tokens":3,"output_tokens":1,"total_tokens":4}}`
	nat = upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Body: answer}))
	chat = upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o", "from c")}))
	t.Cleanup(nat.Close)
	t.Cleanup(chat.Close)
	recs = gatewaytest.NewRecords()
	url, _ = gatewaytest.Start(t, gatewaytest.Config(t, `
providers:
  - {name: c, dialect: openai, base_url: "`+chat.URL+`", api_key: sk-c}
  - {name: n, dialect: openai, base_url: "`+nat.URL+`", api_key: sk-n, responses: true}
targets:
  - {name: ct, model: gpt-4o, providers: [c]}
  - {name: nt, model: gpt-5, providers: [n]}
routes:`+routes), app.Options{Decisions: recs})
	return url, nat, chat, recs
}

// An operator whose route puts a chat target before a responses: true one
// relies on a request only the second can serve (Codex's custom tools, a
// hosted tool) reaching it, as it would were the targets the other way
// round: the chat target is passed over without a call, and nothing is
// counted against it (docs/doors.md, "OpenAI Responses"). Before, the door
// translated up front for the first target and refused the request with a
// 400, though the route could serve it.
func TestResponsesNativeLaterServesWhatOnlyItCan(t *testing.T) {
	url, nat, chat, recs := chatThenNative(t, `
  - {name: r, targets: [ct, nt]}
  - {name: only-chat, targets: [ct]}
`)
	resp, body := post(t, url, "/v1/responses", custom)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "patched") || nat.Calls() != 1 || chat.Calls() != 0 {
		t.Fatalf("a custom tool on a route with a responses: true target second: %d %.300s (calls native %d, chat %d)", resp.StatusCode, body, nat.Calls(), chat.Calls())
	}
	if got := nat.Requests(); !strings.Contains(string(got[0].Body), `"type":"custom"`) {
		t.Errorf("the responses: true target did not get the body as sent: %.300s", got[0].Body)
	}
	d := recs.Wait(t, 1)
	if d.Outcome != "ok" || len(d.Attempts) != 2 || d.Attempts[0].Evidence != "translate" || d.Attempts[0].Counted || d.Attempts[0].Billable {
		t.Errorf("record: outcome %s, attempts %+v", d.Outcome, d.Attempts)
	}

	// What the chat target can serve, it serves: translated, first.
	resp, body = post(t, url, "/v1/responses", `{"model":"r","input":"hi"}`)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "from c") || chat.Calls() != 1 || nat.Calls() != 1 {
		t.Errorf("a plain request: %d %.300s (calls native %d, chat %d)", resp.StatusCode, body, nat.Calls(), chat.Calls())
	}

	// What needs stored state is still refused before any call.
	resp, body = post(t, url, "/v1/responses", `{"model":"r","input":"hi","previous_response_id":"resp_0"}`)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `"param":"previous_response_id"`) || chat.Calls() != 1 || nat.Calls() != 1 {
		t.Errorf("previous_response_id: %d %.300s", resp.StatusCode, body)
	}

	// A route no target of which serves Responses as is still refuses what
	// the translation cannot express, naming the member.
	resp, body = post(t, url, "/v1/responses", strings.Replace(custom, `"model":"r"`, `"model":"only-chat"`, 1))
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `"param":"tools[0].type"`) || chat.Calls() != 1 {
		t.Errorf("a custom tool on a chat-only route: %d %.300s", resp.StatusCode, body)
	}
}

// An attempt Detour never sent (a target whose dialect cannot express the
// request) costs the upstreams nothing, so it spends none of the route's
// max_attempts: a route of one attempt still reaches the target that
// serves the request as sent (docs/behaviour.md, "Budgets"). Before, the
// pass over the chat target was the one attempt, and the client got a 400.
func TestAnUnsentAttemptSpendsNoAttemptBudget(t *testing.T) {
	url, nat, chat, recs := chatThenNative(t, `
  - {name: r, targets: [ct, nt], max_attempts: 1}
`)
	resp, body := post(t, url, "/v1/responses", custom)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "patched") || nat.Calls() != 1 || chat.Calls() != 0 {
		t.Fatalf("max_attempts 1, a custom tool, [chat, native]: %d %.300s (calls native %d, chat %d)", resp.StatusCode, body, nat.Calls(), chat.Calls())
	}
	if d := recs.Wait(t, 1); len(d.Attempts) != 2 || d.Attempts[0].Evidence != "translate" || d.Attempts[1].Status != 200 {
		t.Errorf("record: %+v", d.Attempts)
	}
	// A request the chat target can serve is its one attempt.
	resp, body = post(t, url, "/v1/responses", `{"model":"r","input":"hi"}`)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "from c") || chat.Calls() != 1 || nat.Calls() != 1 {
		t.Errorf("a plain request: %d %.300s", resp.StatusCode, body)
	}
}
