package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// doorsGateway41d starts a gateway over an Anthropic upstream (an), an
// OpenAI chat upstream (p) and an OpenAI Responses upstream (n), with the
// routes: o [b] (OpenAI alone), oc [b, claude], ro [ct] (chat alone for
// /v1/responses), rn [nt, ct] (Responses first).
func doorsGateway41d(t *testing.T) (url string, an, p, n *upstreamtest.Server, recs *gatewaytest.Records) {
	an = upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step { return upstreamtest.Step{Body: claudeJSON()} })
	p = upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("model-b", "from b")}
	})
	n = upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Body: `{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"gpt-5","output":[{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"from n","annotations":[]}]}],"usage":{"input_tokens":3,"output_tokens":1,"total_tokens":4}}`}
	})
	t.Cleanup(an.Close)
	t.Cleanup(p.Close)
	t.Cleanup(n.Close)
	recs = gatewaytest.NewRecords()
	url, _ = gatewaytest.Start(t, gatewaytest.Config(t, `
providers:
  - {name: an, dialect: anthropic, base_url: "`+an.URL+`", api_key: sk-test}
  - {name: p, dialect: openai, base_url: "`+p.URL+`", api_key: sk-test}
  - {name: n, dialect: openai, base_url: "`+n.URL+`", api_key: sk-test, responses: true}
targets:
  - {name: claude, model: claude-x, providers: [an]}
  - {name: b, model: model-b, providers: [p]}
  - {name: nt, model: gpt-5, providers: [n]}
  - {name: ct, model: gpt-4o, providers: [p]}
routes:
  - {name: o, targets: [b]}
  - {name: oc, targets: [b, claude]}
  - {name: ro, targets: [ct]}
  - {name: rn, targets: [nt, ct]}
`), app.Options{Decisions: recs})
	return url, an, p, n, recs
}

// lastChat is the canonical chat request the upstream got last.
func lastChat(t *testing.T, s *upstreamtest.Server) (req struct {
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}) {
	t.Helper()
	rs := s.Requests()
	if len(rs) == 0 {
		t.Fatal("the upstream got no request")
	}
	if err := json.Unmarshal(rs[len(rs)-1].Body, &req); err != nil {
		t.Fatalf("upstream body: %v", err)
	}
	return req
}

func toolNames(t *testing.T, s *upstreamtest.Server) string {
	var names []string
	for _, tl := range lastChat(t, s).Tools {
		names = append(names, tl.Function.Name)
	}
	return strings.Join(names, ",")
}

// A Claude Code session changes its tools in the middle of the
// conversation with tool_addition and tool_removal blocks in a system
// message (Anthropic's mid-conversation tool changes, beta
// mid-conversation-tool-changes-2026-07-01, which Claude Code sends): a
// tool loaded by reference, a tool defined by value, a tool withdrawn.
// A user of a route without Claude relies on the model being offered the
// tools in effect at the end of the conversation, and on the system text
// reaching it. Before, the door read a system message as text blocks only
// and answered 400 "want a text block" for every such request, without
// trying a Claude target the route held.
func TestMessagesSystemMessageToolChangesTranslate_review41d(t *testing.T) {
	url, an, p, _, _ := doorsGateway41d(t)
	body := `{"model":"o","max_tokens":64,
	 "tools":[{"name":"Bash","input_schema":{"type":"object"}},{"name":"Lazy","input_schema":{"type":"object"},"defer_loading":true}],
	 "messages":[
	  {"role":"user","content":"fix the bug"},
	  {"role":"system","content":[{"type":"text","text":"session instructions"},
	    {"type":"tool_addition","tool":{"type":"tool_reference","name":"Lazy"}},
	    {"type":"tool_addition","tool":{"type":"tool_definition","definition":{"name":"Added","description":"x","input_schema":{"type":"object","properties":{"q":{"type":"string"}}}}},"cache_control":{"type":"ephemeral"}}]},
	  {"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"cmd":"ls"}}]},
	  {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a.txt"}]},
	  {"role":"system","content":[{"type":"tool_removal","tool":{"type":"tool_reference","name":"Bash"}}]}
	 ]}`
	resp, out := post(t, url, "/v1/messages", body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(out, "from b") {
		t.Fatalf("tool changes in system messages, route without Claude: %d %.400s", resp.StatusCode, out)
	}
	if got := toolNames(t, p); got != "Lazy,Added" {
		t.Errorf("tools offered to the OpenAI model: %q, want Lazy,Added (Bash withdrawn, Added defined mid-conversation)", got)
	}
	var sys []string
	for _, m := range lastChat(t, p).Messages {
		if m.Role == "system" {
			sys = append(sys, string(m.Content))
		}
	}
	if len(sys) != 1 || !strings.Contains(sys[0], "session instructions") {
		t.Errorf("system messages upstream: %q, want the one with the text (a system message of tool changes alone adds none)", sys)
	}

	// What only Anthropic can serve — an MCP toolset reference needs
	// mcp_servers — goes to the route's Claude target, and is a 400
	// naming the block on a route without one.
	mcp := strings.Replace(body, `{"type":"tool_reference","name":"Lazy"}`, `{"type":"mcp_toolset_reference","server_name":"docs"}`, 1)
	resp, out = post(t, url, "/v1/messages", mcp)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(out, "messages.1.content.1.tool") || !strings.Contains(out, "invalid_request_error") {
		t.Errorf("an MCP toolset addition, route without Claude: %d %.400s, want 400 naming messages.1.content.1.tool", resp.StatusCode, out)
	}
	resp, out = post(t, url, "/v1/messages", strings.Replace(mcp, `"model":"o"`, `"model":"oc"`, 1))
	if resp.StatusCode != http.StatusOK || an.Calls() != 1 {
		t.Errorf("an MCP toolset addition, route [b, claude]: %d %.400s (Claude called %d times), want Claude's answer", resp.StatusCode, out, an.Calls())
	}
}

// A system message limited to its turn (clear_at: next_user_message, a
// beta of Anthropic's mid-conversation system messages) stops reaching the
// model once the user writes again. A user relies on a translated target
// not reading a reminder Claude would no longer see; where Anthropic's
// documentation leaves open whether tool results end the turn, the request
// goes to a target that knows (Claude), or is a 400 naming clear_at.
func TestMessagesSystemMessageClearAt_review41d(t *testing.T) {
	url, an, p, _, _ := doorsGateway41d(t)
	reminder := `{"role":"system","content":"check your inbox first","clear_at":"next_user_message"}`
	// The user wrote again: the reminder is gone.
	resp, out := post(t, url, "/v1/messages", `{"model":"o","max_tokens":64,"messages":[{"role":"user","content":"hi"},`+reminder+`,{"role":"assistant","content":"ok"},{"role":"user","content":"and now?"}]}`)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("a cleared reminder: %d %.300s", resp.StatusCode, out)
	}
	for _, m := range lastChat(t, p).Messages {
		if strings.Contains(string(m.Content), "inbox") {
			t.Errorf("a reminder cleared by the next user message reached the model: %s %s", m.Role, m.Content)
		}
	}
	// Still in its turn: it reaches the model.
	resp, out = post(t, url, "/v1/messages", `{"model":"o","max_tokens":64,"messages":[{"role":"user","content":"hi"},`+reminder+`]}`)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("a reminder in its turn: %d %.300s", resp.StatusCode, out)
	}
	if ms := lastChat(t, p).Messages; len(ms) != 2 || ms[1].Role != "system" || !strings.Contains(string(ms[1].Content), "inbox") {
		t.Errorf("a reminder in its turn: upstream messages %+v, want it as a system message", ms)
	}
	// Only tool results after it: Claude's to judge.
	loop := `{"role":"user","content":"hi"},` + reminder + `,{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"done"}]}`
	tools := `"tools":[{"name":"Bash","input_schema":{"type":"object"}}]`
	resp, out = post(t, url, "/v1/messages", `{"model":"o","max_tokens":64,`+tools+`,"messages":[`+loop+`]}`)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(out, "messages.1.clear_at") {
		t.Errorf("a reminder followed by tool results only, route without Claude: %d %.300s, want 400 naming messages.1.clear_at", resp.StatusCode, out)
	}
	resp, out = post(t, url, "/v1/messages", `{"model":"oc","max_tokens":64,`+tools+`,"messages":[`+loop+`]}`)
	if resp.StatusCode != http.StatusOK || an.Calls() != 1 {
		t.Errorf("the same, route [b, claude]: %d %.300s (Claude called %d times)", resp.StatusCode, out, an.Calls())
	}
}

// A model fallback leaves a fallback block in the answer, which the
// Anthropic SDKs send back with the turn; Anthropic accepts and ignores
// it. A user whose conversation once fell back at Anthropic relies on the
// next turn still reaching a route without Claude: before, the block was
// refused as a type only Anthropic serves, and every later turn was a 400.
func TestMessagesFallbackBlockIsDropped_review41d(t *testing.T) {
	url, _, p, _, _ := doorsGateway41d(t)
	resp, out := post(t, url, "/v1/messages", `{"model":"o","max_tokens":64,"messages":[{"role":"user","content":"hi"},
	 {"role":"assistant","content":[{"type":"fallback","from":{"model":"claude-opus-5"},"to":{"model":"claude-sonnet-5"},"trigger":null},{"type":"text","text":"hello"}]},
	 {"role":"user","content":"go on"}]}`)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("an assistant turn with a fallback block: %d %.300s", resp.StatusCode, out)
	}
	if ms := lastChat(t, p).Messages; len(ms) != 3 || string(ms[1].Content) != `"hello"` {
		t.Errorf("upstream messages %+v, want the assistant's text alone", ms)
	}
}

// The Responses API's moderation member asks OpenAI to score, or block,
// flagged input and output. A user who asked for blocking relies on not
// getting a flagged answer; no translated target moderates, so the member
// is refused for them: a route of chat targets answers 400 naming it, and a
// route that begins with a responses: true target serves it. Before, it
// was dropped and the answer came back unmoderated.
func TestResponsesModerationIsNotDropped_review41d(t *testing.T) {
	url, _, p, n, _ := doorsGateway41d(t)
	body := `{"model":"ro","input":"hi","moderation":{"model":"omni-moderation-latest","policy":{"output":{"mode":"block"}}}}`
	resp, out := post(t, url, "/v1/responses", body)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(out, `"param":"moderation"`) || p.Calls() != 0 {
		t.Errorf("moderation, chat targets only: %d %.300s (chat calls %d), want 400 naming moderation", resp.StatusCode, out, p.Calls())
	}
	resp, out = post(t, url, "/v1/responses", strings.Replace(body, `"ro"`, `"rn"`, 1))
	if resp.StatusCode != http.StatusOK || !strings.Contains(out, "from n") || n.Calls() != 1 {
		t.Errorf("moderation, a responses: true target first: %d %.300s", resp.StatusCode, out)
	}
	// null is no moderation.
	resp, out = post(t, url, "/v1/responses", `{"model":"ro","input":"hi","moderation":null}`)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("moderation null: %d %.300s", resp.StatusCode, out)
	}
}
