package gemini

import (
	"strconv"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/adaptertest"
	"github.com/detour-llm/detour/internal/provider/chat"
)

// An upstream picks the candidate indices: a stream whose every chunk
// names a new one keeps at most chat.MaxParts candidates, the rest skipped
// as malformed (review 30b).
func TestCandidatesOpenedAreBounded(t *testing.T) {
	const extra = 300
	var b strings.Builder
	for i := range chat.MaxParts + extra {
		b.WriteString(`data: {"candidates":[{"index":` + strconv.Itoa(i) + `,"content":{"role":"model","parts":[{"text":"x"}]}}]}` + "\n\n")
	}
	st := Adapter{}.Stream(strings.NewReader(b.String()), provider.Endpoint{Model: "g"})
	malformed := 0
	for _, ev := range adaptertest.Events(t, st) {
		if ev.Malformed {
			malformed++
		}
	}
	if n := len(st.(*stream).cands); n > chat.MaxParts {
		t.Errorf("%d candidates kept, want at most %d", n, chat.MaxParts)
	}
	if malformed != extra {
		t.Errorf("%d chunks skipped as malformed, want the %d past the bound", malformed, extra)
	}
}
