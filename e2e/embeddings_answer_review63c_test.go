package e2e

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/detour-llm/detour/internal/clienttest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 63c: an OpenAI-compatible embeddings answer that cannot be what
// the client asked for (a vector short, an empty or null one, indices
// missing or repeated) is unusable, as docs/doors.md says of Gemini's: the
// route's next target answers, and the endpoint is not credited a
// success. Indices that are a permutation are put in input order, which
// LangChain JS and the AI SDK read by position.

const embedAnswerCfg = `
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
  - {name: compat, dialect: openai, base_url: "{compat}", api_key: ` + secret + `}
targets:
  - {name: small, model: text-embedding-3-small, providers: [openai]}
  - {name: small2, model: text-embedding-3-small, providers: [compat]}
routes:
  - {name: compatfirst, targets: [small2, small]}
`

// twoVectors is the route's second target: a good answer to two inputs.
const twoVectors = `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.6,0.8,0]},{"object":"embedding","index":1,"embedding":[0,0.6,0.8]}],"model":"text-embedding-3-small","usage":{"prompt_tokens":2,"total_tokens":2}}`

func TestEmbeddingsBrokenAnswerMovesOn(t *testing.T) {
	two := openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: []string{"a", "b"}}
	for name, k := range map[string]struct {
		body string
		in   openai.EmbeddingNewParamsInputUnion
	}{
		"one_for_two": {`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,0.2,0.3]}],"model":"m","usage":{"prompt_tokens":2,"total_tokens":2}}`, two},
		"empty_data":  {`{"object":"list","data":[],"model":"m"}`, two},
		// Ollama 0.21's answer to a batch (ollama/ollama#13020).
		"ollama_empty_vectors": {`{"object":"list","data":[{"object":"embedding","embedding":[],"index":0},{"object":"embedding","embedding":[],"index":1}],"model":"nomic-embed-text"}`, two},
		"empty_vector":         {`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,0.2,0.3]},{"object":"embedding","index":1,"embedding":[ ]}],"model":"m"}`, two},
		"null_vector":          {`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,0.2,0.3]},{"object":"embedding","index":1,"embedding":null}],"model":"m"}`, two},
		"no_vector":            {`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,0.2,0.3]},{"object":"embedding","index":1}],"model":"m"}`, two},
		"empty_base64":         {`{"object":"list","data":[{"object":"embedding","index":0,"embedding":"zczMPQ=="},{"object":"embedding","index":1,"embedding":""}],"model":"m"}`, two},
		"index_repeated":       {`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,0.2,0.3]},{"object":"embedding","index":0,"embedding":[0.4,0.5,0.6]}],"model":"m"}`, two},
		"index_past_the_end":   {`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,0.2,0.3]},{"object":"embedding","index":2,"embedding":[0.4,0.5,0.6]}],"model":"m"}`, two},
		"tokens_one_for_two": {`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,0.2,0.3]}],"model":"m"}`,
			openai.EmbeddingNewParamsInputUnion{OfArrayOfTokenArrays: [][]int64{{1, 2}, {3}}}},
	} {
		t.Run(name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"openai": script(upstreamtest.Step{Body: twoVectors}), "compat": script(upstreamtest.Step{Body: k.body})})
			g := start(t, embedAnswerCfg, fs)
			for i, enc := range []openai.EmbeddingNewParamsEncodingFormat{openai.EmbeddingNewParamsEncodingFormatFloat, openai.EmbeddingNewParamsEncodingFormatBase64} {
				e, err := sdk(g).Embeddings.New(context.Background(), openai.EmbeddingNewParams{Model: "compatfirst", Input: k.in, EncodingFormat: enc})
				if err != nil {
					t.Fatalf("%s: %v", enc, err)
				}
				if e.Model != "text-embedding-3-small" || len(e.Data) != 2 || len(e.Data[1].Embedding) != 3 || float32(e.Data[1].Embedding[2]) != 0.8 {
					t.Errorf("%s: the broken answer reached the client: %+v", enc, e.Data)
				}
				// The compat endpoint failed (maybe twice: a server_error
				// may be asked again), counted against its health; the
				// route's next target answered.
				d := g.recs.wait(t, i+1)
				got := steps(d)
				if len(got) < 2 || got[len(got)-1] != "small/openai ok done" || got[len(got)-2] != "small2/compat server_error next_target" {
					t.Errorf("%s: attempts %v", enc, got)
				}
				if a := d.Attempts[0]; a.Evidence != "decode" || i == 0 && !a.Counted {
					t.Errorf("%s: evidence %q, counted %v", enc, a.Evidence, a.Counted)
				}
			}
		})
	}
}

// Indices that are a permutation of 0..n-1 come back in input order; an
// index left out (Gemini's OpenAI-compatible endpoint omits index 0, as
// protobuf omits a zero: samfoy/pi-session-search#13) is the entry's
// position, and written for the client (openai-python reads it as None).
func TestEmbeddingsAnswerInInputOrder(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"openai": script(upstreamtest.Step{Body: twoVectors}), "compat": func(n int, _ upstreamtest.Request) upstreamtest.Step {
		if n <= 2 { // the two SDK calls: a permutation
			return upstreamtest.Step{Body: `{"object":"list","data":[{"object":"embedding","index":1,"embedding":[0.4,0.5,0.6]},{"object":"embedding","index":0,"embedding":[0.1,0.2,0.3]}],"model":"m","usage":{"prompt_tokens":2,"total_tokens":2}}`}
		}
		return upstreamtest.Step{Body: `{"object":"list","data":[{"object":"embedding","embedding":[0.1,0.2,0.3]},{"object":"embedding","index":1,"embedding":[0.4,0.5,0.6]}],"model":"m"}`}
	}})
	g := start(t, embedAnswerCfg, fs)
	two := openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: []string{"a", "b"}}
	for i, enc := range []openai.EmbeddingNewParamsEncodingFormat{openai.EmbeddingNewParamsEncodingFormatFloat, openai.EmbeddingNewParamsEncodingFormatBase64} {
		e, err := sdk(g).Embeddings.New(context.Background(), openai.EmbeddingNewParams{Model: "compatfirst", Input: two, EncodingFormat: enc})
		if err != nil {
			t.Fatalf("%s: %v", enc, err)
		}
		if len(e.Data) != 2 || e.Data[0].Index != 0 || float32(e.Data[0].Embedding[0]) != 0.1 || e.Data[1].Index != 1 || float32(e.Data[1].Embedding[0]) != 0.4 {
			t.Errorf("%s: not in input order: %+v", enc, e.Data)
		}
		wantSteps(t, g.recs.wait(t, i+1), "small2/compat ok done")
	}
	r := g.raw(t, http.MethodPost, "/v1/embeddings", `{"model":"compatfirst","input":["a","b"]}`)
	r.wantStatus(t, http.StatusOK)
	var got struct {
		Data []map[string]json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(r.Body, &got); err != nil || len(got.Data) != 2 || string(got.Data[0]["index"]) != "0" || string(got.Data[1]["index"]) != "1" {
		t.Errorf("the index left out is not written: %s", r.Body)
	}
}

// The JavaScript clients read vectors by position (openai-node decodes its
// default base64 into them, LangChain JS and the AI SDK take data[i] as
// input i): Ollama's empty vectors reach none of them, and a permutation
// reaches them in input order.
func TestNodeEmbeddingsBrokenOrShuffledAnswer(t *testing.T) {
	for name, k := range map[string]struct {
		body string
		want [][]float64
	}{
		"ollama_empty_vectors": {`{"object":"list","data":[{"object":"embedding","embedding":[],"index":0},{"object":"embedding","embedding":[],"index":1}],"model":"nomic-embed-text"}`,
			[][]float64{{0.6, 0.8, 0}, {0, 0.6, 0.8}}}, // the route's next target's
		"shuffled": {`{"object":"list","data":[{"object":"embedding","index":1,"embedding":[0.4,0.5,0.6]},{"object":"embedding","index":0,"embedding":[0.1,0.2,0.3]}],"model":"m","usage":{"prompt_tokens":2,"total_tokens":2}}`,
			[][]float64{{0.1, 0.2, 0.3}, {0.4, 0.5, 0.6}}},
	} {
		t.Run(name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"openai": script(upstreamtest.Step{Body: twoVectors}), "compat": script(upstreamtest.Step{Body: k.body})})
			g := start(t, embedAnswerCfg, fs)
			env := []string{"DETOUR_EMBED_MODEL=compatfirst", "DETOUR_PROVIDERS=embed"}
			for script, cases := range map[string][]string{
				"openai.mjs":    {"embeddings", "embeddings_base64"},
				"langchain.mjs": {"embed_documents"},
				"ai.mjs":        {"openai_embed_many", "compat_embed_many"},
			} {
				res := clienttest.RunNode(t, g.URL, script, append(env, "DETOUR_CASES="+strings.Join(cases, ","))...)
				for _, c := range cases {
					var got struct {
						Vectors [][]float64 `json:"vectors"`
					}
					if res.Case(t, c, &got) && !closeVectors(got.Vectors, k.want) {
						t.Errorf("%s %s: %v, want %v", script, c, got.Vectors, k.want)
					}
				}
			}
		})
	}
}

// closeVectors reports whether got is want to float32's precision.
func closeVectors(got, want [][]float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if len(got[i]) != len(want[i]) {
			return false
		}
		for j := range got[i] {
			if math.Abs(got[i][j]-want[i][j]) > 1e-6 {
				return false
			}
		}
	}
	return true
}
