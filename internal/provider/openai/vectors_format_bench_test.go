package openai

import (
	"encoding/base64"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// What asking an OpenAI-compatible server for floats in place of the
// client's base64 would cost (round 64, internal/dispatch/embedformat.go):
// a batch of 100 vectors of 1,536 values, each value a float32 written as
// its shortest decimal, as OpenAI writes them ("-0.0069292834"). "base64"
// is the answer the server gives when asked base64, checked and passed on;
// "floats" the same vectors as JSON floats, checked and encoded as base64
// for the client. upstream-B/op is the answer's size on the wire.
func BenchmarkEmbeddingsFloatsVsBase64(b *testing.B) {
	const n, dims = 100, 1536
	r := rand.New(rand.NewPCG(1, 2))
	var floats, b64 strings.Builder
	floats.WriteString(`{"object":"list","data":[`)
	b64.WriteString(`{"object":"list","data":[`)
	raw := make([]byte, 0, 4*dims)
	for i := range n {
		if i > 0 {
			floats.WriteByte(',')
			b64.WriteByte(',')
		}
		head := `{"object":"embedding","index":` + strconv.Itoa(i) + `,"embedding":`
		floats.WriteString(head + "[")
		raw = raw[:0]
		for d := range dims {
			f := float32(r.NormFloat64() * 0.025)
			if d > 0 {
				floats.WriteByte(',')
			}
			floats.WriteString(strconv.FormatFloat(float64(f), 'g', -1, 32))
			raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(f))
		}
		floats.WriteString("]}")
		b64.WriteString(head + `"` + base64.StdEncoding.EncodeToString(raw) + `"}`)
	}
	tail := `],"model":"text-embedding-3-small","usage":{"prompt_tokens":100,"total_tokens":100}}`
	floats.WriteString(tail)
	b64.WriteString(tail)
	inputs := `["` + strings.TrimSuffix(strings.Repeat(`a","`, n), `","`) + `"]`
	req := embedReq(`{"model":"r","input":` + inputs + `,"encoding_format":"base64"}`)
	e, err := provider.EmbeddingsOf(req)
	if err != nil {
		b.Fatal(err)
	}
	req.Embeddings = e
	for _, c := range []struct{ name, body string }{{"base64", b64.String()}, {"floats", floats.String()}} {
		body := []byte(c.body)
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				out, err := (Adapter{}).EmbeddingsResponse(req, body, provider.Endpoint{})
				if err != nil || !strings.Contains(string(out[:200]), `"embedding":"`) {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(body)), "upstream-B/op")
		})
	}
}
