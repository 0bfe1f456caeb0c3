package messages

import (
	"strings"
	"testing"
)

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

// A streamed request's estimate comes with its translation (one decode) and
// is the one count_tokens gives; a request that does not stream carries none.
func TestTranslateEstimatesStreams(t *testing.T) {
	body := `{"model":"r","max_tokens":8,"system":"be brief","messages":[{"role":"user","content":"sixteen bytes.."}]`
	want, err := Estimate([]byte(body + `}`))
	if err != nil || want == 0 {
		t.Fatalf("Estimate: %d, %v", want, err)
	}
	tr, err := Translate([]byte(body + `,"stream":true}`))
	if err != nil || tr.InputTokens != want {
		t.Errorf("stream: InputTokens %d (%v), want %d", tr.InputTokens, err, want)
	}
	if tr, _ := Translate([]byte(body + `}`)); tr.InputTokens != 0 {
		t.Errorf("no stream: InputTokens %d, want 0", tr.InputTokens)
	}
}

// Claude Code defines tools mid-conversation (a system message's
// tool_addition); count_tokens at a target that is not Anthropic counts
// them as it counts tools in tools, so a client that sizes its context by
// the count does not overrun it. Before, they counted nothing.
func TestEstimateCountsToolsAddedMidConversation(t *testing.T) {
	base := `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"system","content":[%s]},{"role":"user","content":"go"}]}`
	def := `{"type":"tool_addition","tool":{"type":"tool_definition","definition":{"name":"read_file","description":"Reads a file from the workspace and returns its text.","input_schema":{"type":"object","properties":{"path":{"type":"string"}}}}}}`
	ref := `{"type":"tool_addition","tool":{"type":"tool_reference","name":"read_file"}}`
	without, err := Estimate([]byte(strings.Replace(base, "%s", `{"type":"text","text":"x"}`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	with, err := Estimate([]byte(strings.Replace(base, "%s", `{"type":"text","text":"x"},`+def, 1)))
	if err != nil {
		t.Fatal(err)
	}
	// "hi" + "x" + "go" = 5 bytes → 2; with name 9 + description 53 +
	// input_schema 57 bytes, 124 bytes → 31.
	if without != 2 || with != 31 {
		t.Errorf("estimates %d without and %d with a tool defined mid-conversation, want 2 and 31", without, with)
	}
	byRef, err := Estimate([]byte(strings.Replace(base, "%s", `{"type":"text","text":"x"},`+ref, 1)))
	if err != nil || byRef != without {
		t.Errorf("a reference to a tool added %d tokens (%v): the tool it names is counted in tools", byRef-without, err)
	}
}
