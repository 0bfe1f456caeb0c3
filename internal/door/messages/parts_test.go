package messages

import (
	"strconv"
	"testing"

	"github.com/detour-llm/detour/internal/provider/chat"
)

// The tool calls of a translated answer are the upstream's to number: an
// answer whose every chunk opens a call at a new index gets at most
// chat.MaxParts tool_use blocks, the rest dropped (review 30b).
func TestToolCallsOpenedAreBounded(t *testing.T) {
	e := NewEncoder("m")
	for i := range chat.MaxParts + 300 {
		c := `{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":` +
			strconv.Itoa(i) + `,"id":"call_` + strconv.Itoa(i) + `","type":"function","function":{"name":"f","arguments":"{}"}}]}}]}`
		if _, err := e.Chunk([]byte(c)); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(e.tools); n != chat.MaxParts {
		t.Errorf("%d tool_use blocks opened, want %d", n, chat.MaxParts)
	}
}
