package anthropic

import (
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// TestMalformedArgumentsInHistory: a call in the history whose arguments
// are not a JSON object (a model's slip the client kept: the OpenAI Agents
// SDK's Chat Completions model, openai/openai-agents-python#2061;
// LangChain's invalid_tool_calls; an answer cut at its length limit) is
// sent with the members that were whole, {} when none was: OpenAI takes
// arguments as an opaque string, and refusing them refused every later
// turn of the session at Claude (docs/doors.md, "Chat Completions to
// Claude and Gemini targets").
func TestMalformedArgumentsInHistory(t *testing.T) {
	for _, tc := range []struct{ args, input string }{
		{`{\"format\": \"%Y-%m-%d %H:%M:%S\"`, `{"format":"%Y-%m-%d %H:%M:%S"}`},
		{`[1`, `{}`},
		{`not json`, `{}`},
		{`{\"a\":1,\"b\":tru`, `{"a":1}`},
	} {
		in := `{"model":"m","messages":[{"role":"user","content":"What time is it?"},
			{"role":"assistant","tool_calls":[{"id":"call_Yb0","type":"function","function":{"name":"get_server_time","arguments":"` + tc.args + `"}}]},
			{"role":"tool","tool_call_id":"call_Yb0","content":"An error occurred while running the tool. Please try again."}]}`
		out, err := Translate(adaptertest.ClientRequest(t, []byte(in)), "claude")
		if err != nil {
			t.Fatalf("%s: %v", tc.args, err)
		}
		adaptertest.SameJSON(t, out, []byte(`{"model":"claude","max_tokens":4096,"messages":[{"role":"user","content":[{"type":"text","text":"What time is it?"}]},
			{"role":"assistant","content":[{"type":"tool_use","id":"call_Yb0","name":"get_server_time","input":`+tc.input+`}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_Yb0","content":"An error occurred while running the tool. Please try again."}]}]}`))
	}
}
