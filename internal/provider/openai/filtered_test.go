package openai

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// TestFilterAfterAToolCallIsAnError: a filter that cuts an answer after a
// tool call began ends it as an error event, never as a finish, whichever
// way the chunk is read (scan, or decode for a shape scan leaves to it) and
// whatever the vendor calls the filter (Zhipu's "sensitive"): probe 58b saw
// LangChain hand an agent the cut call {"content":"hello wor"} to run. A
// filter that cuts text alone still finishes as it did.
func TestFilterAfterAToolCallIsAnError(t *testing.T) {
	call := `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"write_file","arguments":"{\"path\":\"a.txt\",\"content\":\"hello wor"}}]}}]}`
	text := `{"choices":[{"index":0,"delta":{"content":"hello"}}]}`
	for _, c := range []struct {
		name, first, finish string
		wantErr             bool
	}{
		{"tool then content_filter", call, `{"choices":[{"index":0,"delta":{},"finish_reason":"content_filter"}]}`, true},
		{"tool then content_filter, decoded", call, `{"choices":[{"index":0,"delta":{},"finish_reason":"content_filter","Index":0}]}`, true},
		{"tool then sensitive", call, `{"choices":[{"index":0,"delta":{},"finish_reason":"sensitive"}]}`, true},
		{"tool then tool_calls", call, `{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`, false},
		{"text then content_filter", text, `{"choices":[{"index":0,"delta":{},"finish_reason":"content_filter"}]}`, false},
	} {
		body := "data: " + c.first + "\n\ndata: " + c.finish + "\n\ndata: [DONE]\n\n"
		st := Adapter{}.Stream(strings.NewReader(body), provider.Endpoint{})
		errs, finished := adaptertest.Ends(t, st)
		if got := errs == 1 && finished == 0; got != c.wantErr || !c.wantErr && finished != 1 {
			t.Errorf("%s: %d error events, %d finishes; want an error: %v", c.name, errs, finished, c.wantErr)
		}
	}
}

// The tool-call indices name deltaNames' members.
func TestDeltaToolIndices(t *testing.T) {
	if deltaNames[deltaToolCalls] != "tool_calls" || deltaNames[deltaFunctionCall] != "function_call" {
		t.Errorf("deltaNames moved: %q, %q", deltaNames[deltaToolCalls], deltaNames[deltaFunctionCall])
	}
}
