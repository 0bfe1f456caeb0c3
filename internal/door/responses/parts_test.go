package responses

import (
	"strconv"
	"testing"

	"github.com/detour-llm/detour/internal/provider/chat"
)

// The tool calls of a translated answer are the upstream's to number: an
// answer whose every chunk opens a call at a new index gets at most
// chat.MaxParts function_call items, the rest dropped (review 30b).
func TestToolCallsOpenedAreBounded(t *testing.T) {
	s := NewStream(nil, "m", 1)
	for i := range chat.MaxParts + 300 {
		c := `{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":` +
			strconv.Itoa(i) + `,"id":"call_` + strconv.Itoa(i) + `","type":"function","function":{"name":"f","arguments":"{}"}}]}}]}`
		if _, err := s.Chunk([]byte(c)); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(s.calls); n != chat.MaxParts {
		t.Errorf("%d function_call items opened, want %d", n, chat.MaxParts)
	}
}
