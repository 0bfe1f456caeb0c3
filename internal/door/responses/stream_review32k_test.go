package responses

import "testing"

// Review 32k. A call closes before a message opened after it closes, so
// that items close in output order (call, text, call: 0, 1, 2). An upstream
// that streams a call's arguments interleaved with text and a later call
// (call 0 opens, text, call 1 opens, call 0's remaining arguments; no
// vendor is known to) then sends a piece of a call already closed: it must
// not open a NEW function_call with an empty name and a made-up call_id,
// which a client would run. The piece is dropped (docs/doors.md).
func TestCallDeltaAfterItsCallClosedOpensNoCall(t *testing.T) {
	const head = `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":`
	frames := encode(t, []string{
		head + `{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":"{\"city\":"}}]},"finish_reason":null}]}`,
		head + `{"content":"and "},"finish_reason":null}]}`,
		head + `{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"get_time","arguments":"{}"}}]},"finish_reason":null}]}`,
		head + `{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]},"finish_reason":null}]}`,
		head + `{},"finish_reason":"tool_calls"}]}`,
	})
	r := accumulate(t, frames)
	var calls []string
	for _, it := range r.Output {
		if it.Type == "function_call" {
			it := it.AsFunctionCall()
			calls = append(calls, it.Name+"("+it.Arguments+") "+it.CallID)
			if it.Name == "" {
				t.Errorf("a function_call with no name (call_id %s, arguments %q): the tail of call_a's arguments became a call of its own", it.CallID, it.Arguments)
			}
		}
	}
	if len(calls) != 2 {
		t.Errorf("calls: %q, want call_a and call_b only", calls)
	}
}
