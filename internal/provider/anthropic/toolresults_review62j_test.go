package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// Review 62j: OpenAI's APIs take a user's message between a call and its
// output, or between two outputs; Anthropic refuses a turn after tool_use
// blocks that does not begin with their tool_result blocks. The user turn
// Claude gets puts the results first, each kind in its order.
func TestToolResultsLeadTheirTurn(t *testing.T) {
	calls := `{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"f","arguments":"{}"}}]}`
	for _, tc := range []struct{ name, messages string }{
		{"text between two outputs", `[{"role":"user","content":"go"},` + calls + `,{"role":"tool","tool_call_id":"c1","content":"one"},{"role":"user","content":"and then"},{"role":"tool","tool_call_id":"c2","content":"two"}]`},
		{"text before the outputs", `[{"role":"user","content":"go"},` + calls + `,{"role":"user","content":"while you work"},{"role":"tool","tool_call_id":"c1","content":"one"},{"role":"tool","tool_call_id":"c2","content":"two"}]`},
	} {
		out, err := Translate(adaptertest.ClientRequest(t, []byte(`{"model":"m","messages":`+tc.messages+`}`)), "claude")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content []struct {
					Type      string `json:"type"`
					ToolUseID string `json:"tool_use_id"`
					Text      string `json:"text"`
				} `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(out, &req); err != nil {
			t.Fatal(err)
		}
		last := req.Messages[len(req.Messages)-1]
		var got []string
		for _, b := range last.Content {
			got = append(got, b.Type+":"+b.ToolUseID+b.Text)
		}
		want := []string{"tool_result:c1", "tool_result:c2"}
		if last.Role != "user" || len(got) != 3 || got[0] != want[0] || got[1] != want[1] || last.Content[2].Type != "text" {
			t.Errorf("%s: the turn after the calls is %s %q, want the two results first, in order, then the text", tc.name, last.Role, got)
		}
	}
}
