package e2e

import (
	"net/http"
	"strings"
	"testing"
)

// Round 48's client probes at the chat and Responses doors, through the
// gateway as the clients meet them (docs/doors.md, "Chat Completions to
// Claude and Gemini targets").

// An MCP server's tool passed on as a function, its parameters holding an
// anyOf at the top level (gitnexus's api_impact, anomalyco/opencode#35516;
// Notion's, langchain-ai/langchain#39271), reaches Claude as one object
// schema, which Anthropic takes, through the chat and Responses doors.
// Before, Anthropic's 400 ("input_schema does not support oneOf, allOf, or
// anyOf at the top level") stopped the route at every request of the
// session.
func TestRootCombinatorToolReachesClaude(t *testing.T) {
	const params = `{"type":"object","properties":{"route":{"type":"string"},"file":{"type":"string"}},"anyOf":[{"required":["route"]},{"required":["file"]}]}`
	fs := r40gTextFakes(t)
	g := start(t, clientsCfg, fs)
	for _, d := range []struct{ path, body string }{
		{"/v1/chat/completions", `{"model":"via-claude","messages":[{"role":"user","content":"What does changing the login route touch?"}],"tools":[{"type":"function","function":{"name":"api_impact","description":"Impact of a change.","parameters":` + params + `}}]}`},
		{"/v1/responses", `{"model":"via-claude","input":"What does changing the login route touch?","tools":[{"type":"function","name":"api_impact","description":"Impact of a change.","parameters":` + params + `}]}`},
	} {
		r := g.raw(t, http.MethodPost, d.path, d.body, "Authorization", "Bearer client-key")
		if r.Status != http.StatusOK {
			t.Fatalf("%s: %d %s", d.path, r.Status, r.Body)
		}
		reqs := fs["anthropic"].Requests()
		body := string(reqs[len(reqs)-1].Body)
		if strings.Contains(body, `"anyOf"`) || !strings.Contains(body, `"route":{"type":"string"}`) || !strings.Contains(body, "at least one of: route given; file given") {
			t.Errorf("%s: Claude was sent %s", d.path, body)
		}
	}
}

// A call in the history whose arguments are not a JSON object (the OpenAI
// Agents SDK keeps a model's malformed call, openai/openai-agents-python#2061;
// LangChain sends invalid_tool_calls back as tool_calls) reaches Claude and
// Gemini with the members that were whole, through the chat and Responses
// doors: OpenAI takes the arguments as an opaque string. Before, every
// later turn of the session was a 400 on a route without GPT.
func TestMalformedHistoryArgumentsReachEveryVendor(t *testing.T) {
	const args = `{\"format\": \"%Y-%m-%d %H:%M:%S\"`
	fs := r40gTextFakes(t)
	g := start(t, clientsCfg, fs)
	doors := []doorBody{
		{"/v1/chat/completions", `{"model":"%s","messages":[{"role":"user","content":"What time is it on the server?"},
			{"role":"assistant","content":null,"tool_calls":[{"id":"call_Yb0","type":"function","function":{"name":"get_server_time","arguments":"` + args + `"}}]},
			{"role":"tool","tool_call_id":"call_Yb0","content":"An error occurred while running the tool. Please try again."},
			{"role":"user","content":"Try again."}],
			"tools":[{"type":"function","function":{"name":"get_server_time","parameters":{"type":"object","properties":{"format":{"type":"string"}}}}}]}`},
		{"/v1/responses", `{"model":"%s","input":[{"role":"user","content":"What time is it on the server?"},
			{"type":"function_call","call_id":"call_Yb0","name":"get_server_time","arguments":"` + args + `"},
			{"type":"function_call_output","call_id":"call_Yb0","output":"An error occurred while running the tool. Please try again."},
			{"role":"user","content":"Try again."}],
			"tools":[{"type":"function","name":"get_server_time","parameters":{"type":"object","properties":{"format":{"type":"string"}}}}]}`},
	}
	throughEveryRoute(t, g, fs, doors, func(path, route, upstream, sent string) {
		if upstream != "openai" && !strings.Contains(sent, `{"format":"%Y-%m-%d %H:%M:%S"}`) {
			t.Errorf("%s %s: the call's whole members were not sent: %.400s", path, route, sent)
		}
	})
}
