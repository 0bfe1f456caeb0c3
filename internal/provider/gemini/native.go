package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/rawjson"
	"github.com/detour-llm/detour/internal/sse"
)

// The Gemini door's passthrough (docs/doors.md, "Google Gemini"): a client
// of Google's generateContent API gets a Gemini target as Google would
// serve it, its body as sent (safety settings, thought signatures, Gemini's
// own tools, everything), the answer back as it came.

var _ provider.Native = Adapter{}

// Serves reports the client APIs Gemini serves as they are:
// generateContent (and its stream) and countTokens.
func (Adapter) Serves(api string) bool {
	return api == provider.APIGenerateContent || api == provider.APIGeminiCountTokens
}

// NativeRequest POSTs the client's body to
// {base_url}/v1beta/models/{model}:generateContent
// (:streamGenerateContent?alt=sse when streaming, :countTokens for a
// count), with the endpoint's key. Only what names another model is
// changed: a top-level "model" is left out (the URL names it), and a
// countTokens generateContentRequest's "model" names the target's. A
// thought signature this gateway sealed (a turn a translation served) goes
// back unsealed to the endpoint that wrote it, and is dropped elsewhere
// (the placeholder on a function call, as the translation sends it).
func (Adapter) NativeRequest(ctx context.Context, ep provider.Endpoint, req *provider.NativeRequest) (*http.Request, error) {
	body := req.Body
	if rawjson.Member(body, "model") != nil {
		body = rawjson.Without(body, "model")
	}
	model := strings.TrimPrefix(ep.Model, "models/")
	method := ":generateContent"
	switch {
	case req.API == provider.APIGeminiCountTokens:
		method = ":countTokens"
		if g := rawjson.Member(body, "generateContentRequest"); g != nil && rawjson.Member(g, "model") != nil {
			body = withCountModel(body, "models/"+model)
		}
	case req.Stream:
		method = ":streamGenerateContent?alt=sse"
	}
	if bytes.Contains(body, []byte(provider.SignaturePrefix)) {
		body = unsealed(body, ep)
	}
	return post(ctx, ep, method, body, req.Stream && req.API == provider.APIGenerateContent)
}

var _ provider.NativeDecoder = Adapter{}

// NativeDecodes reports whether NativeRequest decodes body whole: it
// holds a sealed signature's prefix (unsealed), or it is a count whose
// generateContentRequest names a model (withCountModel).
func (Adapter) NativeDecodes(api string, body []byte) bool {
	if bytes.Contains(body, []byte(provider.SignaturePrefix)) {
		return true
	}
	if api != provider.APIGeminiCountTokens {
		return false
	}
	g := rawjson.Member(body, "generateContentRequest")
	return g != nil && rawjson.Member(g, "model") != nil
}

// withCountModel is a countTokens body whose generateContentRequest names
// model; the body as it is when it cannot be read.
func withCountModel(body []byte, model string) []byte {
	var top map[string]json.RawMessage
	var g map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil || json.Unmarshal(top["generateContentRequest"], &g) != nil {
		return body
	}
	g["model"], _ = json.Marshal(model)
	top["generateContentRequest"], _ = json.Marshal(g)
	out, err := json.Marshal(top)
	if err != nil {
		return body
	}
	return out
}

// unsealed is body with every thoughtSignature the gateway sealed (a
// translated answer's: provider.Seal) replaced by the signature itself
// when sealed for ep, else left out (a function call's by the documented
// placeholder, SkipSignature). The body as it is when it cannot be read.
func unsealed(body []byte, ep provider.Endpoint) []byte {
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	var v map[string]any
	if d.Decode(&v) != nil {
		return body
	}
	changed := false
	contents, _ := v["contents"].([]any)
	for _, c := range contents {
		cm, _ := c.(map[string]any)
		parts, _ := cm["parts"].([]any)
		for _, p := range parts {
			pm, _ := p.(map[string]any)
			for _, k := range []string{"thoughtSignature", "thought_signature"} {
				sig, ok := pm[k].(string)
				if !ok || !strings.HasPrefix(sig, provider.SignaturePrefix) {
					continue
				}
				changed = true
				switch raw := provider.Unseal(ep, sig); {
				case raw != "":
					pm[k] = raw
				case pm["functionCall"] != nil || pm["function_call"] != nil:
					pm[k] = SkipSignature
				default:
					delete(pm, k)
				}
			}
		}
	}
	if !changed {
		return body
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return body
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// NativeAnswer checks a GenerateContentResponse (or a CountTokensResponse)
// and returns its usage. An answer Google blocked is the client's to
// read, as Google gave it.
func (Adapter) NativeAnswer(api string, body []byte) (*provider.Usage, error) {
	if api == provider.APIGeminiCountTokens {
		var c struct {
			TotalTokens *json.Number `json:"totalTokens"`
		}
		if err := json.Unmarshal(body, &c); err != nil {
			return nil, err
		}
		if c.TotalTokens == nil {
			return nil, errors.New("gemini: countTokens answer has no totalTokens")
		}
		return nil, nil
	}
	var a answer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, err
	}
	if a.isError() {
		return nil, errors.New("gemini: the answer is an error")
	}
	if a.UsageMetadata == nil || !a.UsageMetadata.counts() {
		return nil, nil
	}
	return a.UsageMetadata.usage(), nil
}

// NativeStream reads a streamGenerateContent?alt=sse stream as Stream reads
// it (content, finish, usage, errors) and hands on each event's own data,
// but a relay's [DONE]: OpenAI's end marker, which Google never sends and
// @google/genai would try to parse as a GenerateContentResponse (build
// 69p: it reached the client), ends the stream as it ends a translated
// one, and the client gets nothing of it.
func (a Adapter) NativeStream(_ string, body io.Reader, ep provider.Endpoint) provider.Stream {
	in := a.Stream(body, ep).(*stream)
	in.raw = true
	return &nativeStream{in: in}
}

type nativeStream struct{ in provider.Stream }

func (s *nativeStream) Next() (provider.Event, error) {
	ev, err := s.in.Next()
	if err != nil || ev.Malformed || len(ev.Raw) == 0 || ev.Done && bytes.Equal(ev.Raw, sse.Done) {
		return ev, err
	}
	ev.Chunks = [][]byte{ev.Raw}
	return ev, nil
}
