package responses

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
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
	n := 0 // items open or done (a done item is kept as its JSON)
	for _, it := range s.resp.Output {
		if b, _ := json.Marshal(it); strings.Contains(string(b), `"type":"function_call"`) {
			n++
		}
	}
	if n != chat.MaxParts {
		t.Errorf("%d function_call items opened, want %d", n, chat.MaxParts)
	}
}

// The answer a Stream keeps to repeat in its done events is bounded: past
// MaxHeld, Chunk says ErrTooLarge rather than hold more (review 30b).
func TestHeldAnswerIsBounded(t *testing.T) {
	s := NewStream(nil, "m", 1)
	piece := strings.Repeat("x", 1<<20-64) // 16 of them and the message item's itemHeld are under the bound
	c := []byte(`{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"` + piece + `"}}]}`)
	for i := range MaxHeld>>20 + 1 {
		_, err := s.Chunk(c)
		if i < MaxHeld>>20 && err != nil {
			t.Fatalf("chunk %d: %v", i, err)
		}
		if i == MaxHeld>>20 && !errors.Is(err, ErrTooLarge) {
			t.Fatalf("past %d MiB: %v, want ErrTooLarge", MaxHeld>>20, err)
		}
	}
}
