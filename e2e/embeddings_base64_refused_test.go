package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/detour-llm/detour/internal/clienttest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// The official SDKs ask for encoding_format base64 when the caller names
// none (openai-node, openai-python), and some OpenAI-compatible servers
// refuse it by name. Before, the refusal read unknown and the walk moved
// on: to another model, whose vectors the client's index cannot use, or,
// with none, the 400 reached every SDK user of such a target, though the
// server serves floats, which Detour encodes itself. Now the endpoint that refuses
// is sent the request again at once without the member, and the client gets
// base64 (docs/doors.md, "Embeddings"; internal/dispatch/embedformat.go).

// The sourced refusals, status and body as the servers answer them.
var base64Refusals = []struct{ name, body string }{
	// vLLM before 0.5.1 (vllm-project/vllm#5734, #6174).
	{"vLLM", `{"object":"error","message":"base64 encoding is not currently supported","type":"BadRequestError","param":null,"code":400}`},
	// Jina AI (1Panel-dev/MaxKB#2639).
	{"Jina", `{"detail":"extra fields not permitted: ['encoding_format']"}`},
}

// floatsOnly is an OpenAI-compatible server that refuses any request
// naming encoding_format with refusal (a 400), and answers the others with
// the floats of wantVectors.
func floatsOnly(refusal string) upstreamtest.Script {
	return p64eRefuseThen(refusal, upstreamtest.Step{Body: p64eFloats})
}

const base64RefusedCfg = `
providers:
  - {name: strict, dialect: openai, base_url: "{strict}", api_key: ` + secret + `}
  - {name: other, dialect: openai, base_url: "{other}", api_key: ` + secret + `}
targets:
  - {name: bge, model: bge-m3, providers: [strict]}
  - {name: small, model: text-embedding-3-small, providers: [other]}
routes:
  - {name: vectors, targets: [bge, small]}
`

// openai-go asked for base64: the refusing endpoint is asked once more,
// without the member; the client decodes base64 of the server's floats;
// the refusal is recorded, not billed, and usage is counted once.
func TestEmbeddingsBase64RefusedIsAskedAgainForFloats(t *testing.T) {
	for _, ref := range base64Refusals {
		t.Run(ref.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{
				"strict": floatsOnly(ref.body),
				"other":  script(upstreamtest.Step{Status: 500, Body: `{"error":{"message":"not to be called"}}`}),
			})
			g := start(t, base64RefusedCfg, fs)
			p := embedTwo("vectors")
			p.EncodingFormat = openai.EmbeddingNewParamsEncodingFormatBase64
			e, err := sdk(g).Embeddings.New(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			var got [][]float64
			for _, d := range e.Data {
				if raw := d.JSON.Embedding.Raw(); !strings.HasPrefix(raw, `"`) {
					t.Errorf("embedding %d as %.20s, want a base64 string", d.Index, raw)
				}
				got = append(got, d.Embedding)
			}
			if !reflect.DeepEqual(got, wantVectors) || e.Usage.TotalTokens != 4 {
				t.Errorf("vectors %v usage %+v, want %v", got, e.Usage, wantVectors)
			}
			reqs := fs["strict"].Requests()
			if len(reqs) != 2 || !strings.Contains(string(reqs[0].Body), `"encoding_format":"base64"`) ||
				strings.Contains(string(reqs[1].Body), "encoding_format") || !strings.Contains(string(reqs[1].Body), `"input"`) {
				t.Fatalf("upstream calls: %d %q", len(reqs), reqs)
			}
			if n := len(fs["other"].Requests()); n != 0 {
				t.Errorf("the next target was called %d times", n)
			}
			d := g.recs.wait(t, 1)
			wantSteps(t, d, "bge/strict unknown retry", "bge/strict ok done")
			if a := d.Attempts; a[0].ResentWithout != "encoding_format" || a[1].ResentWithout != "" {
				t.Errorf("resent_without %q then %q, want the refusal to say what the resend left out", a[0].ResentWithout, a[1].ResentWithout)
			}
			if a := d.Attempts; a[0].Billable || a[0].Status != 400 || !a[1].Billable || d.Usage == nil || d.Usage.TotalTokens != 4 {
				b, _ := json.Marshal(d)
				t.Errorf("billed: %s", b)
			}
		})
	}
}

// The refusal is the endpoint's own: when its resend fails too, the walk
// goes on as that failure's class says, and the next target is sent base64
// as the client asked. A 400 about something else is not sent again.
func TestEmbeddingsBase64RefusedFailoverUnaffected(t *testing.T) {
	strict := func(n int, r upstreamtest.Request) upstreamtest.Step {
		if n == 1 {
			return floatsOnly(base64Refusals[0].body)(n, r)
		}
		return corpus(t, "openai-model-overloaded-server-error-503")
	}
	fs := fakes(t, map[string]upstreamtest.Script{
		"strict": strict,
		"other":  script(upstreamtest.Step{Body: `{"object":"list","data":[{"object":"embedding","index":0,"embedding":"AACAPwAAoD8AAMA/"},{"object":"embedding","index":1,"embedding":"AAAAQAAAEEAAACBA"}],"model":"text-embedding-3-small","usage":{"prompt_tokens":4,"total_tokens":4}}`}),
	})
	g := start(t, base64RefusedCfg, fs)
	r := g.raw(t, http.MethodPost, "/v1/embeddings", `{"model":"vectors","input":["alpha","beta"],"encoding_format":"base64"}`)
	if r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"AACAPwAAoD8AAMA/"`) {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	if up := fs["other"].Requests(); len(up) != 1 || !strings.Contains(string(up[0].Body), `"encoding_format":"base64"`) {
		t.Errorf("the next target got %q", up)
	}
	d := g.recs.wait(t, 1)
	var steps []string
	for _, a := range d.Attempts {
		steps = append(steps, a.Target+" "+a.Class+" "+string(a.Action))
	}
	if steps[0] != "bge unknown retry" || steps[len(steps)-1] != "small  done" {
		t.Errorf("attempts %q", steps)
	}

	// Another fault's 400 is the client's answer, as before: one call.
	fs2 := fakes(t, map[string]upstreamtest.Script{
		"strict": script(upstreamtest.Step{Status: 400, Body: `{"object":"error","message":"This model's maximum context length is 512 tokens. However, you requested 2048 tokens in the input for embedding generation. Please reduce the length of the input.","type":"BadRequestError","param":null,"code":400}`}),
		"other":  script(upstreamtest.Step{Status: 500, Body: `{"error":{"message":"not to be called"}}`}),
	})
	g2 := start(t, base64RefusedCfg, fs2)
	r2 := g2.raw(t, http.MethodPost, "/v1/embeddings", `{"model":"vectors","input":["alpha","beta"],"encoding_format":"base64"}`)
	if n := len(fs2["strict"].Requests()); r2.Status/100 == 2 || n != 1 {
		t.Errorf("another fault: %d after %d calls, want its 4xx after one", r2.Status, n)
	}
}

// The openai Node SDK's own default (base64, asked for without the caller
// naming it) reaches a server that refuses it: the caller gets its floats.
func TestNodeOpenAISDKDefaultBase64Refused(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"openai": floatsOnly(base64Refusals[0].body)})
	g := start(t, strings.ReplaceAll(nodeCfg("openai", "{openai}"), "{up}", "{openai}"), fs)
	res := clienttest.RunNode(t, g.URL, "openai.mjs", "DETOUR_CASES=embeddings")
	var c struct {
		Vectors [][]float64 `json:"vectors"`
	}
	if res.Case(t, "embeddings", &c) && !reflect.DeepEqual(c.Vectors, wantVectors) {
		t.Errorf("embeddings: %v, want %v", c.Vectors, wantVectors)
	}
	if reqs := fs["openai"].Requests(); len(reqs) != 2 || !strings.Contains(string(reqs[0].Body), `"encoding_format":"base64"`) {
		t.Errorf("upstream calls: %q", reqs)
	}
}
