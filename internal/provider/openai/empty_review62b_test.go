package openai

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// Review 62b: a tool call's delta that adds nothing (its index alone,
// empty arguments) is no content, so a broken upstream sending one every
// 50 ms no longer restarts idle_timeout; one that opens a call or adds to
// its arguments is. Read by scan and by decode alike (an escaped key sends
// the chunk to decode).
func TestStreamEmptyToolCallDeltasAreNoContent(t *testing.T) {
	for _, c := range []struct {
		delta   string
		content bool
	}{
		{`{"tool_calls":[{"index":0}]}`, false},
		{`{"tool_calls":[{"index":0,"function":{"arguments":""}}]}`, false},
		{`{"tool_calls":[{"index":0,"type":"function","id":"","function":{"name":null,"arguments":""}}]}`, false},
		{`{"tool_calls":[{"index":0},{"index":1,"function":{"arguments":""}}]}`, false},
		{`{"function_call":{"arguments":""}}`, false},
		{`{"tool_calls":[{"index":0,"function":{"arguments":"{"}}]}`, true},
		{`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]}`, true},
		{`{"tool_calls":[{"index":0},{"index":1,"function":{"arguments":"x"}}]}`, true},
		{`{"tool_calls":[{"index":0,"extra_content":{"google":{"thought_signature":"c2ln"}}}]}`, true},
		{`{"function_call":{"name":"f"}}`, true},
	} {
		for _, escaped := range []bool{false, true} {
			d := c.delta
			if escaped {
				d = strings.Replace(d, `{"`, `{"\u0078":1,"`, 1) // an escaped key: decode reads it
			}
			s := Adapter{}.Stream(strings.NewReader(`data: {"choices":[{"index":0,"delta":`+d+`}]}`+"\n\n"), provider.Endpoint{})
			if e, err := s.Next(); err != nil || e.Content != c.content {
				t.Errorf("%s: content %v (err %v), want %v", d, e.Content, err, c.content)
			}
		}
	}
}

// Review 62b: a Responses delta relayed as it came that adds nothing is no
// content.
func TestNativeStreamEmptyDeltaIsNoContent(t *testing.T) {
	got := nativeEvents(t, frames(created, delta,
		`{"type":"response.output_text.delta","item_id":"m","output_index":0,"content_index":0,"delta":""}`,
		`{"type":"response.function_call_arguments.delta","item_id":"f","output_index":1}`,
		`{"type":"response.function_call_arguments.delta","item_id":"f","output_index":1,"delta":"{"}`))
	want := []string{"event", "content", "event", "event", "content"}
	for i := range want {
		if i >= len(got) || !strings.HasPrefix(got[i], want[i]+" ") {
			t.Fatalf("events %q, want kinds %q", got, want)
		}
	}
}
