package openai

import (
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/provider"
)

// Review 66q: rawListParts read a thinking part's own thinking list again,
// at every level, each level's members found by three scans of the whole
// part (rawjson.Member), its nested lists included: an answer of thinking
// nested 4,000 deep (inside encoding/json's 10,000) around 1 MB of text
// cost each level a pass over that megabyte — seconds of CPU for a 1 MB
// answer, minutes for the 64 MiB an answer may be. The old decoding into
// listPart was one pass. A thinking part's text is what is read; the
// thinking of its parts is not (rawListParts), so it is not descended.
func TestListContentNestedThinkingCostsOnePassReview66q(t *testing.T) {
	const depth = 4000
	// A failure guard, not a measurement (BenchmarkListContentNestedThinking
	// is): one pass takes ~0.1 s here and 0.6 s under -race beside a CI
	// run; a pass per level, the defect, scans 4,000 megabytes (seconds
	// unraced, tens of seconds raced). 500 ms failed a busy CI run.
	const guard = 10 * time.Second
	inner := `{"type":"text","text":"` + strings.Repeat("x", 1<<20) + `"}`
	list := strings.Repeat(`{"type":"thinking","thinking":[`, depth) + inner + strings.Repeat(`]}`, depth)
	body := []byte(`{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":[` +
		`{"type":"thinking","thinking":[{"type":"text","text":"hm"}]},{"type":"text","text":"hi"},` + list +
		`]},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	start := time.Now()
	out, _, err := Adapter{}.ResponseUsage(body, provider.Endpoint{})
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"content":"hi"`) || !strings.Contains(string(out), `"reasoning_content":"hm`) {
		t.Errorf("not rewritten: %.300s", out)
	}
	if took > guard {
		t.Errorf("a %d KB answer of thinking nested %d deep took %v", len(body)>>10, depth, took)
	}
	t.Logf("%d KB, %v", len(body)>>10, took)

	// The stream's delta, the same reading.
	chunk := []byte(`{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":[` +
		`{"type":"text","text":"hi"},` + list + `]},"finish_reason":null}]}`)
	start = time.Now()
	_, ok := flatListContent(chunk)
	if took := time.Since(start); !ok || took > guard {
		t.Errorf("a delta of thinking nested %d deep: ok %v, took %v", depth, ok, took)
	}
}

// BenchmarkListContentNestedThinking is the cost of reading an answer of
// thinking nested 4,000 deep around 1 MB of text (review 66q): one pass.
func BenchmarkListContentNestedThinking(b *testing.B) {
	const depth = 4000
	inner := `{"type":"text","text":"` + strings.Repeat("x", 1<<20) + `"}`
	list := strings.Repeat(`{"type":"thinking","thinking":[`, depth) + inner + strings.Repeat(`]}`, depth)
	chunk := []byte(`{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":[` +
		`{"type":"text","text":"hi"},` + list + `]},"finish_reason":null}]}`)
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		if _, ok := flatListContent(chunk); !ok {
			b.Fatal("not read")
		}
	}
}
