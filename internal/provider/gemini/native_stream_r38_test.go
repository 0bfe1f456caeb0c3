package gemini

import (
	"bytes"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// TestNativeStreamReadsAsStream: a passed-through stream's events are read
// as the translated Stream reads them (content, finish, usage, the end)
// though no canonical chunk is encoded for them (docs/benchmarks.md, "Round
// 38"): each event goes on as its own data.
func TestNativeStreamReadsAsStream(t *testing.T) {
	in := `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Hel"}]},"index":0}],"modelVersion":"gemini-2.0-flash-001"}

data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","args":{"a":1}}}]},"index":0}]}

data: {"candidates":[{"content":{"role":"model","parts":[{"text":"lo"}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":2,"totalTokenCount":6}}

`
	native := adaptertest.Events(t, Adapter{}.NativeStream("generateContent", strings.NewReader(in), testEP))
	translated := adaptertest.Events(t, Adapter{}.Stream(strings.NewReader(in), testEP))
	if len(native) != 3 || len(translated) != 3 {
		t.Fatalf("%d native events, %d translated, want 3 each", len(native), len(translated))
	}
	for i, n := range native {
		tr := translated[i]
		if len(n.Chunks) != 1 || !bytes.Equal(n.Chunks[0], n.Raw) {
			t.Errorf("event %d: native chunks %q, want its own data %q", i, n.Chunks, n.Raw)
		}
		if len(tr.Chunks) == 0 || bytes.Equal(tr.Chunks[0], tr.Raw) {
			t.Errorf("event %d: translated chunks %q", i, tr.Chunks)
		}
		if n.Content != tr.Content || n.Done != tr.Done || n.Finished != tr.Finished || n.Error != tr.Error ||
			(n.Usage == nil) != (tr.Usage == nil) || n.Usage != nil && (n.Usage.PromptTokens != tr.Usage.PromptTokens || n.Usage.CompletionTokens != tr.Usage.CompletionTokens) {
			t.Errorf("event %d: native %+v, translated %+v", i, n, tr)
		}
	}
	if last := native[2]; !last.Done || !last.Content || last.Usage == nil || last.Usage.CompletionTokens != 2 {
		t.Errorf("last native event %+v", last)
	}
}
