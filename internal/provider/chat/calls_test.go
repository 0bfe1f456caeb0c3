package chat

import "testing"

// Calls tells parallel calls sent at one index apart by their ids and
// names, keeps a call's later pieces with it, and numbers the calls in
// the order they opened (review 33a).
func TestCallsTellsApartCallsAtOneIndex(t *testing.T) {
	piece := func(index int, id, name string) *ToolCallDelta {
		return &ToolCallDelta{Index: index, ID: id, Function: FunctionCallDelta{Name: name}}
	}
	var c Calls
	for i, step := range []struct {
		tc    *ToolCallDelta
		call  int
		opens bool
	}{
		{piece(0, "call_a", "get_weather"), 0, true},
		{piece(0, "", ""), 0, false},                  // a later piece: the index alone
		{piece(0, "call_a", "get_weather"), 0, false}, // repeated in full
		{piece(0, "call_b", "get_time"), 1, true},     // Ollama's second call, at index 0
		{piece(0, "", ""), 1, false},
		{piece(0, "call_x", ""), 1, false}, // an id without a name opens nothing
		{piece(1, "", "search"), 2, true},  // a new index opens, id or not
		{piece(1, "", ""), 2, false},
		{piece(0, "", ""), 1, false}, // index 0 goes on with its last call
	} {
		call, opens, ok := c.Of(step.tc)
		if !ok || call != step.call || opens != step.opens {
			t.Errorf("piece %d (%+v): call %d opens %v ok %v; want call %d opens %v", i, *step.tc, call, opens, ok, step.call, step.opens)
		}
	}
}

// An upstream picks the indices: past MaxParts calls, pieces that would
// open another are refused, while the calls already open go on.
func TestCallsBound(t *testing.T) {
	var c Calls
	for i := range MaxParts {
		if _, opens, ok := c.Of(&ToolCallDelta{Index: i}); !ok || !opens {
			t.Fatalf("call %d refused", i)
		}
	}
	if _, _, ok := c.Of(&ToolCallDelta{Index: MaxParts}); ok {
		t.Error("a call past MaxParts was opened")
	}
	if call, _, ok := c.Of(&ToolCallDelta{Index: 3}); !ok || call != 3 {
		t.Errorf("a piece of an open call: call %d ok %v", call, ok)
	}
}
