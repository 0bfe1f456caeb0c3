package gemini

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// TestNativeStreamDropsARelaysDone (build 69p): a relay in front of
// Gemini that ends a passed-through stream with OpenAI's data: [DONE]
// (here after a last chunk that finished no candidate) had it handed on
// as an event's data, and @google/genai tried to parse it as a
// GenerateContentResponse. It ends the stream, normally, and the client
// gets nothing of it.
func TestNativeStreamDropsARelaysDone(t *testing.T) {
	in := `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Hel"}]},"index":0}]}

data: {"candidates":[{"content":{"role":"model","parts":[{"text":"lo"}]},"index":0}],"usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":2,"totalTokenCount":6}}

data: [DONE]

`
	evs := adaptertest.Events(t, Adapter{}.NativeStream("generateContent", strings.NewReader(in), testEP))
	if len(evs) != 3 {
		t.Fatalf("%d events, want 3", len(evs))
	}
	for i, ev := range evs[:2] {
		if len(ev.Chunks) != 1 || ev.Done {
			t.Errorf("event %d: chunks %q, done %v", i, ev.Chunks, ev.Done)
		}
	}
	if last := evs[2]; !last.Done || len(last.Chunks) != 0 || last.Error || last.Malformed {
		t.Errorf("[DONE]: %+v, want a normal end that writes nothing", last)
	}
}
