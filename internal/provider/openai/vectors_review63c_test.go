package openai

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// Review 63c: an embeddings answer is checked and put in input order in one
// walk of its "data" list (vectors.go).

func embedReq(body string) *provider.Request { return &provider.Request{Body: []byte(body)} }

func TestEmbeddingsAnswerRefusedUnlessOneVectorPerInput(t *testing.T) {
	two := embedReq(`{"model":"r","input":["a","b"]}`)
	for name, body := range map[string]string{
		"short":          `{"data":[{"index":0,"embedding":[1]}]}`,
		"long":           `{"data":[{"index":0,"embedding":[1]},{"index":1,"embedding":[1]},{"index":2,"embedding":[1]}]}`,
		"none":           `{"data":[]}`,
		"empty list":     `{"data":[{"index":0,"embedding":[1]},{"index":1,"embedding":[ ]}]}`,
		"empty string":   `{"data":[{"index":0,"embedding":[1]},{"index":1,"embedding":""}]}`,
		"null":           `{"data":[{"index":0,"embedding":[1]},{"index":1,"embedding":null}]}`,
		"absent":         `{"data":[{"index":0,"embedding":[1]},{"index":1}]}`,
		"a number":       `{"data":[{"index":0,"embedding":[1]},{"index":1,"embedding":1}]}`,
		"not an object":  `{"data":[{"index":0,"embedding":[1]},[1]]}`,
		"index repeated": `{"data":[{"index":1,"embedding":[1]},{"index":1,"embedding":[2]}]}`,
		"index past":     `{"data":[{"index":0,"embedding":[1]},{"index":2,"embedding":[2]}]}`,
		"index negative": `{"data":[{"index":0,"embedding":[1]},{"index":-1,"embedding":[2]}]}`,
		"index a string": `{"data":[{"index":0,"embedding":[1]},{"index":"1","embedding":[2]}]}`,
		"index huge":     `{"data":[{"index":0,"embedding":[1]},{"index":99999999999999999999,"embedding":[2]}]}`,
		"absent clashes": `{"data":[{"embedding":[1]},{"index":0,"embedding":[2]}]}`,
		"cut":            `{"data":[{"index":0,"embedding":[1]},{"index":1,"embedding":[2`,
	} {
		if out, err := (Adapter{}).EmbeddingsResponse(two, []byte(body), provider.Endpoint{}); err == nil {
			t.Errorf("%s: got %s", name, out)
		}
	}
	// Token arrays: one vector per array, a flat array one input.
	if _, err := (Adapter{}).EmbeddingsResponse(embedReq(`{"model":"r","input":[[1,2],[3]]}`), []byte(`{"data":[{"index":0,"embedding":[1]}]}`), provider.Endpoint{}); err == nil {
		t.Error("one vector for two token arrays passed")
	}
	if _, err := (Adapter{}).EmbeddingsResponse(embedReq(`{"model":"r","input":[1,2,3]}`), []byte(`{"data":[{"index":0,"embedding":[1]}]}`), provider.Endpoint{}); err != nil {
		t.Errorf("a flat token array: %v", err)
	}
}

func TestEmbeddingsAnswerInIndexOrder(t *testing.T) {
	for _, k := range []struct{ name, req, in, want string }{
		{"in order: untouched", `{"input":["a","b"]}`,
			`{"data":[ {"index":0,"embedding":[1]} , {"index":1,"embedding":[2]} ],"model":"m"}`,
			`{"data":[ {"index":0,"embedding":[1]} , {"index":1,"embedding":[2]} ],"model":"m"}`},
		{"a permutation", `{"input":["a","b","c"]}`,
			`{"object":"list","data":[{"object":"embedding","index":2,"embedding":[3]},{"index":0,"embedding":[1]},{"embedding":[2],"index":1}],"model":"m"}`,
			`{"object":"list","data":[{"index":0,"embedding":[1]},{"embedding":[2],"index":1},{"object":"embedding","index":2,"embedding":[3]}],"model":"m"}`},
		{"index 0 left out", `{"input":["a","b"]}`,
			`{"data":[{"object":"embedding","embedding":[1]},{"object":"embedding","index":1,"embedding":[2]}]}`,
			`{"data":[{"index":0,"object":"embedding","embedding":[1]},{"object":"embedding","index":1,"embedding":[2]}]}`},
		{"index null", `{"input":["a","b"]}`,
			`{"data":[{"index":null,"embedding":[1]},{"index":null,"embedding":[2]}]}`,
			`{"data":[{"index":0,"embedding":[1]},{"index":1,"embedding":[2]}]}`},
		{"base64, an index written after the vector and before it", `{"input":["a","b","c"],"encoding_format":"base64"}`,
			`{"data":[{"embedding":[1],"index":null},{"embedding":[2.5]},{"embedding":"AAAAAA==","index":2}]}`,
			`{"data":[{"embedding":"AACAPw==","index":0},{"index":1,"embedding":"AAAgQA=="},{"embedding":"AAAAAA==","index":2}]}`},
		{"base64, reordered", `{"input":["a","b"],"encoding_format":"base64"}`,
			`{"data":[{"index":1,"embedding":[2.5]},{"index":0,"embedding":[1]}]}`,
			`{"data":[{"index":0,"embedding":"AACAPw=="},{"index":1,"embedding":"AAAgQA=="}]}`},
		{"base64 unreadable, reordered: floats in order", `{"input":["a","b"],"encoding_format":"base64"}`,
			`{"data":[{"index":1,"embedding":[1e999]},{"index":0,"embedding":[1]}]}`,
			`{"data":[{"index":0,"embedding":[1]},{"index":1,"embedding":[1e999]}]}`},
		{"base64 of a number past float32", `{"input":"a","encoding_format":"base64"}`,
			`{"data":[{"index":0,"embedding":[1e300]}]}`,
			`{"data":[{"index":0,"embedding":[1e300]}]}`},
	} {
		out, err := (Adapter{}).EmbeddingsResponse(embedReq(k.req), []byte(k.in), provider.Endpoint{})
		if err != nil || string(out) != k.want {
			t.Errorf("%s:\n got %s, %v\nwant %s", k.name, out, err, k.want)
		}
	}
}

// The answer OpenAI's SDKs make most, 2,048 vectors of 1,536 floats asked
// for as base64 from a server that answers floats, in order.
func BenchmarkEmbeddingsAnswerBase64(b *testing.B) {
	vec := "[" + strings.TrimSuffix(strings.Repeat("-0.0123456789,", 1536), ",") + "]"
	var sb strings.Builder
	sb.WriteString(`{"object":"list","data":[`)
	for i := range 2048 {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"object":"embedding","index":` + itoa(i) + `,"embedding":` + vec + `}`)
	}
	sb.WriteString(`],"model":"m","usage":{"prompt_tokens":1,"total_tokens":1}}`)
	body := []byte(sb.String())
	inputs := `["` + strings.TrimSuffix(strings.Repeat(`a","`, 2048), `","`) + `"]`
	for _, enc := range []string{"float", "base64"} {
		req := embedReq(`{"model":"r","input":` + inputs + `,"encoding_format":"` + enc + `"}`)
		e, _ := provider.EmbeddingsOf(req)
		req.Embeddings = e
		b.Run(enc, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if _, err := (Adapter{}).EmbeddingsResponse(req, body, provider.Endpoint{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var d []byte
	for ; i > 0; i /= 10 {
		d = append([]byte{byte('0' + i%10)}, d...)
	}
	return string(d)
}
