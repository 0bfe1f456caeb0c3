package server_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

const embedAllowanceCfg = `
max_body_bytes: 1048576
max_inflight_body_bytes: 8388608
providers:
  - {name: gem, dialect: gemini, base_url: "{gem}", api_key: sk-test}
  - {name: p, dialect: openai, base_url: "{p}", api_key: sk-test}
targets:
  - {name: g, model: gemini-embedding-001, providers: [gem]}
  - {name: o, model: text-embedding-3-small, providers: [p]}
routes:
  - {name: vectors, targets: [g, o]}
`

// openAIVector is an OpenAI embeddings answer of one vector.
const openAIVector = `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1]}],"model":"m","usage":{"prompt_tokens":1,"total_tokens":1}}`

// geminiVectors answers a batchEmbedContents call with one vector a text.
func geminiVectors(r upstreamtest.Request) upstreamtest.Step {
	var req struct {
		Requests []json.RawMessage `json:"requests"`
	}
	_ = json.Unmarshal(r.Body, &req)
	embs := make([]string, len(req.Requests))
	for i := range embs {
		embs[i] = `{"values":[0.1,0.2]}`
	}
	return upstreamtest.Step{Body: `{"embeddings":[` + strings.Join(embs, ",") + `]}`}
}

func embeddingsBody(texts int, size int) string {
	one := `"` + strings.Repeat("a", size) + `"`
	return `{"model":"vectors","input":[` + strings.TrimSuffix(strings.Repeat(one+",", texts), ",") + `]}`
}

// An embeddings request is parsed into its texts, which the call holds
// while it runs, and an attempt at Gemini builds every batchEmbedContents
// call before the first is sent: both are memory the allowance bounds, and
// both went uncounted (review 36a). While a Gemini call of a 600 KiB
// request is in flight, the allowance holds its body, its texts and the
// calls' bodies; after, nothing.
func TestEmbeddingsTextsAndGeminiCallsAreCounted(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	gem := upstreamtest.New(func(n int, r upstreamtest.Request) upstreamtest.Step {
		if n == 1 { // the first call (n counts from 1) waits for the test
			<-release
		}
		return geminiVectors(r)
	})
	t.Cleanup(gem.Close)
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	p := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step { return upstreamtest.Step{Status: 500} })
	t.Cleanup(p.Close)
	cfg := strings.NewReplacer("{gem}", gem.URL, "{p}", p.URL).Replace(embedAllowanceCfg)
	url, a := gatewaytest.Start(t, gatewaytest.Config(t, cfg), app.Options{Decisions: decision.Discard})

	body := embeddingsBody(300, 2048) // 300 texts: three calls of 100
	done := make(chan int, 1)
	go func() {
		resp, err := http.Post(url+"/v1/embeddings", "application/json", strings.NewReader(body))
		if err != nil {
			done <- 0
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	for deadline := time.Now().Add(5 * time.Second); gem.Calls() == 0; time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the Gemini fake got no call")
		}
	}
	held, n := a.Server.BodiesHeld(), int64(len(body))
	t.Logf("body %d, held while the first call runs %d (%.2f×)", n, held, float64(held)/float64(n))
	if held < 5*n/2 {
		t.Errorf("while its Gemini calls run, an embeddings request of %d bytes holds %d of the allowance: its texts and its calls' bodies are not counted (want about 3×)", n, held)
	}
	once.Do(func() { close(release) })
	if st := <-done; st != http.StatusOK {
		t.Fatalf("status %d", st)
	}
	if !drained(a.Server) {
		t.Fatalf("after the request the allowance holds %d bytes", a.Server.BodiesHeld())
	}
}

// A burst of embeddings requests — batched to Gemini, some calls failing,
// failover to an OpenAI endpoint, malformed inputs, clients that leave —
// leaves the allowance at exactly zero.
func TestEmbeddingsAllowanceReturnsToZeroAfterABurst(t *testing.T) {
	url, a := embedBurstGateway(t, 4, 3, strings.NewReplacer())

	statuses := burst(url, 300, 16, func(i int) (string, string, time.Duration) {
		var body string
		switch i % 4 {
		case 0:
			body = embeddingsBody(1+i%250, 1+i%700)
		case 1:
			body = embeddingsBody(2048, 3)
		case 2:
			body = `{"model":"vectors","input":["a",""]}` // Gemini cannot take an empty text
		default:
			body = fmt.Sprintf(`{"model":"vectors","input":"%s"}`, strings.Repeat("<b>", 1+i*100))
		}
		var cut time.Duration
		if i%7 == 0 {
			cut = time.Duration(1+i%5) * time.Millisecond
		}
		return "/v1/embeddings", body, cut
	})
	t.Logf("statuses %v", statuses)
	if !drained(a.Server) {
		t.Fatalf("after the burst the allowance holds %d bytes (overdrawn: %v), want 0", a.Server.BodiesHeld(), a.Server.Overdrawn())
	}
}

// embedBurstGateway starts a gateway of embedAllowanceCfg (edited by edit)
// over a Gemini fake that answers every failEvery-th call 503 and delays
// the others up to delays-1 ms, and an OpenAI fake that always answers.
func embedBurstGateway(t *testing.T, failEvery, delays int, edit *strings.Replacer) (string, *app.App) {
	gem := upstreamtest.New(func(n int, r upstreamtest.Request) upstreamtest.Step {
		if n%failEvery == failEvery-1 {
			return upstreamtest.Step{Status: 503, Body: `{"error":{"code":503,"message":"busy","status":"UNAVAILABLE"}}`}
		}
		st := geminiVectors(r)
		st.Delay = time.Duration(n%delays) * time.Millisecond
		return st
	})
	t.Cleanup(gem.Close)
	p := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step { return upstreamtest.Step{Body: openAIVector} })
	t.Cleanup(p.Close)
	cfg := strings.NewReplacer("{gem}", gem.URL, "{p}", p.URL).Replace(edit.Replace(embedAllowanceCfg))
	return gatewaytest.Start(t, gatewaytest.Config(t, cfg), app.Options{Decisions: decision.Discard})
}
