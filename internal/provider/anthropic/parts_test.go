package anthropic

import (
	"strconv"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/adaptertest"
	"github.com/detour-llm/detour/internal/provider/chat"
)

// An upstream picks the content block indices: a stream whose every event
// opens a tool_use block at a new one keeps at most chat.MaxParts tool
// calls, the rest skipped as malformed (review 30b: a million such blocks
// held 35 MB before).
func TestToolBlocksOpenedAreBounded(t *testing.T) {
	const extra = 300
	var b strings.Builder
	b.WriteString("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":\"c\",\"usage\":{\"input_tokens\":1}}}\n\n")
	for i := range chat.MaxParts + extra {
		b.WriteString("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":" + strconv.Itoa(i) +
			`,"content_block":{"type":"tool_use","id":"t","name":"f","input":{}}}` + "\n\n")
	}
	st := Adapter{}.Stream(strings.NewReader(b.String()), provider.Endpoint{Model: "c"})
	malformed := 0
	for _, ev := range adaptertest.Events(t, st) {
		if ev.Malformed {
			malformed++
		}
	}
	if n := len(st.(*stream).tools); n > chat.MaxParts {
		t.Errorf("%d tool blocks kept, want at most %d", n, chat.MaxParts)
	}
	if malformed != extra {
		t.Errorf("%d events skipped as malformed, want the %d past the bound", malformed, extra)
	}
}
