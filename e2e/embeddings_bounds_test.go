package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// bigVectors is a Gemini batchEmbedContents fake answering each input with
// the vector vec, counting its calls.
func bigVectors(calls *atomic.Int64, vec string) upstreamtest.Script {
	return func(_ int, r upstreamtest.Request) upstreamtest.Step {
		calls.Add(1)
		var req struct {
			Requests []json.RawMessage `json:"requests"`
		}
		_ = json.Unmarshal(r.Body, &req)
		embs := make([]string, len(req.Requests))
		for i := range embs {
			embs[i] = `{"values":` + vec + `}`
		}
		return upstreamtest.Step{Body: `{"embeddings":[` + strings.Join(embs, ",") + `]}`}
	}
}

// TestEmbeddingsAtMost2048Inputs: OpenAI's API takes at most 2048 inputs a
// request, and so does Detour: more is a 400 before any upstream call (one
// request cannot become any number of billable calls at a target that takes
// 100 a call); 2048 go, in 21 calls of at most 100.
func TestEmbeddingsAtMost2048Inputs(t *testing.T) {
	var calls atomic.Int64
	fs := fakes(t, map[string]upstreamtest.Script{"gemini": bigVectors(&calls, "[0.1,0.2,0.3]"), "openai": script()})
	g := start(t, batchCfg, fs)
	in, _ := json.Marshal(texts(2049))
	r := g.raw(t, "POST", "/v1/embeddings", `{"model":"gem","input":`+string(in)+`}`, "Authorization", "Bearer key-open")
	if r.Status != 400 || !strings.Contains(string(r.Body), "at most 2048") || calls.Load() != 0 {
		t.Errorf("2049 inputs: %d %.200s, %d upstream calls", r.Status, r.Body, calls.Load())
	}
	in, _ = json.Marshal(texts(2048))
	r = g.raw(t, "POST", "/v1/embeddings", `{"model":"gem","input":`+string(in)+`}`, "Authorization", "Bearer key-open")
	if r.Status != 200 || calls.Load() != 21 {
		t.Errorf("2048 inputs: %d, %d upstream calls", r.Status, calls.Load())
	}
}

// TestEmbeddingsBatchedAnswersBounded: the answers of a batched attempt are
// held together, and bounded together as one whole answer is (64 MiB): past
// it the attempt fails as overflow (the request's size, not the endpoint's
// fault: nothing cools), evidence answer:too large, billable, and the
// route moves on, instead of holding and relaying any size.
func TestEmbeddingsBatchedAnswersBounded(t *testing.T) {
	var calls atomic.Int64
	vec := "[" + strings.TrimSuffix(strings.Repeat("0.123456789,", 3000), ",") + "]" // 36 KB a vector
	small := upstreamtest.Step{Body: `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,0.2,0.3]}],"model":"text-embedding-3-small","usage":{"prompt_tokens":1,"total_tokens":1}}`}
	fs := fakes(t, map[string]upstreamtest.Script{"gemini": bigVectors(&calls, vec), "openai": script(small)})
	g := start(t, batchCfg, fs)
	in, _ := json.Marshal(texts(2048)) // 2048 × 36 KB: past 64 MiB
	g.raw(t, "POST", "/v1/embeddings", `{"model":"gem-first","input":`+string(in)+`}`, "Authorization", "Bearer key-open")
	d := g.recs.wait(t, 1)
	a := d.Attempts[0]
	if a.Class != "overflow" || a.Evidence != "answer:too large" || !a.Billable || a.Counted || calls.Load() >= 21 {
		t.Errorf("first attempt %s %s billable %v after %d calls", a.Class, a.Evidence, a.Billable, calls.Load())
	}
}

// Review 63m: a server that ignores encoding_format base64 and answers
// JSON floats past the 64 MiB the gateway holds is refused as before, but
// the client that asked for base64 is not told to ask for it.
func TestEmbeddingsTooLargeFloatsToABase64Ask(t *testing.T) {
	vec := "[" + strings.TrimSuffix(strings.Repeat("0.123456789,", 3072), ",") + "]"
	var b strings.Builder
	b.WriteString(`{"object":"list","data":[`)
	for i := range 2048 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"object":"embedding","index":%d,"embedding":%s}`, i, vec)
	}
	b.WriteString(`],"model":"text-embedding-3-small"}`)
	fs := fakes(t, map[string]upstreamtest.Script{"gemini": script(ok("x", "x")), "openai": script(upstreamtest.Step{Body: b.String()})})
	g := start(t, batchCfg, fs)
	in, _ := json.Marshal(texts(2048))
	for _, c := range []struct{ format, want, not string }{
		{"base64", "though base64 was asked", "ask for encoding_format base64"},
		{"float", "ask for encoding_format base64", "though base64 was asked"},
	} {
		r := g.raw(t, "POST", "/v1/embeddings", `{"model":"small","encoding_format":"`+c.format+`","input":`+string(in)+`}`, "Authorization", "Bearer key-open")
		if !strings.Contains(string(r.Body), c.want) || strings.Contains(string(r.Body), c.not) {
			t.Errorf("%s asked: %d %.300s", c.format, r.Status, r.Body)
		}
	}
}
