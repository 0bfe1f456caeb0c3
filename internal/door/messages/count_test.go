package messages

import "testing"

// TestEstimate checks the documented arithmetic: ceil(bytes/4) of the text
// the model reads, ImageTokens per image; no max_tokens needed.
func TestEstimate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		// Messages API count_tokens reference example: "Hello, world" (12 bytes).
		{`{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"Hello, world"}]}`, 3},
		{`{"model":"m","system":[{"type":"text","text":"abcd"}],"messages":[{"role":"user","content":[{"type":"text","text":"a"},
			{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAAAAAAAAAAAAAA"}}]},
			{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"s"},{"type":"tool_use","id":"t","name":"f","input":{"a":1}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"12345678"}]}]}],
			"tools":[{"name":"f","description":"dd","input_schema":{}}]}`,
			// 4 + 1 + 3 + 7 ({"a":1}) + 8 + 1+2+2 = 28 bytes → 7, plus one image.
			7 + ImageTokens},
	} {
		got, err := Estimate([]byte(tc.in))
		if err != nil || got != tc.want {
			t.Errorf("%s: %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	if _, err := Estimate([]byte(`{"messages":[{"role":"user","content":7}]}`)); err == nil {
		t.Error("bad content: want an error")
	}
	if string(CountTokensBody(7)) != `{"input_tokens":7}` {
		t.Error("CountTokensBody")
	}
}
