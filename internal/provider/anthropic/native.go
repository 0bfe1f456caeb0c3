package anthropic

import (
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

var _ provider.Native = Adapter{}

// Serves reports the client APIs Anthropic serves as they are: Messages
// and its count_tokens.
func (Adapter) Serves(api string) bool {
	return api == provider.APIMessages || api == provider.APICountTokens
}

// forwarded are the client headers an Anthropic upstream gets as sent:
// the one allow-list, which the front reads through ForwardedHeader.
var forwarded = []string{"anthropic-version", "anthropic-beta"}

// ForwardedHeader is the part of a client's headers h that an Anthropic
// upstream gets as sent (anthropic-version, anthropic-beta; never
// credentials), for provider.NativeRequest's Header; nil when h has none.
// Its values are h's own.
func ForwardedHeader(h http.Header) http.Header {
	var out http.Header
	for _, k := range forwarded {
		if vs := h.Values(k); len(vs) > 0 {
			if out == nil {
				out = http.Header{}
			}
			out[http.CanonicalHeaderKey(k)] = vs
		}
	}
	return out
}

// ForwardedBytes is the size of the lines of h an Anthropic upstream gets
// as sent (ForwardedHeader), each line counted whole: name, ": ", value,
// CRLF (review 63q: counted by their values alone, 3,000 empty lines
// passed as none).
func ForwardedBytes(h http.Header) int {
	n := 0
	for _, k := range forwardedKeys {
		for _, v := range h[k] { // canonical already: no key made on every request
			n += len(k) + 4 + len(v)
		}
	}
	return n
}

// forwardedKeys are forwarded's names as http.Header keys them.
var forwardedKeys = func() []string {
	ks := make([]string, len(forwarded))
	for i, k := range forwarded {
		ks[i] = http.CanonicalHeaderKey(k)
	}
	return ks
}()

// NativeRequest POSTs the client's Messages body, "model" replaced and
// the members the target's model refuses fitted to it (fitNative), to
// {base_url}/v1/messages (or /v1/messages/count_tokens, model replaced
// only), with the
// client's anthropic-version (this adapter's Version when it sent none)
// and anthropic-beta.
func (Adapter) NativeRequest(ctx context.Context, ep provider.Endpoint, req *provider.NativeRequest) (*http.Request, error) {
	body, err := (&provider.Request{Body: req.Body}).WithModel(ep.Model)
	if err != nil {
		return nil, err
	}
	path := "/v1/messages"
	if req.API == provider.APICountTokens {
		path = "/v1/messages/count_tokens"
	} else {
		body = fitNative(body, ep.Model)
	}
	hr, err := provider.NewPost(ctx, ep.BaseURL, path, body, nil)
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("anthropic-version", Version)
	for _, k := range forwarded {
		// One line, blank values dropped: values combine as a list (RFC
		// 9110, 5.3), and 3,000 empty lines went upstream as 54 KB of
		// headers past the front's bound on their bytes (review 63q).
		var keep []string
		for _, v := range req.Header.Values(k) {
			if v = strings.TrimSpace(v); v != "" {
				keep = append(keep, v)
			}
		}
		if len(keep) > 0 {
			hr.Header.Set(k, strings.Join(keep, ","))
		}
	}
	if req.Stream && req.API == provider.APIMessages {
		hr.Header.Set("Accept", "text/event-stream")
	} else {
		hr.Header.Set("Accept", "application/json")
	}
	if ep.APIKey != "" {
		hr.Header.Set("x-api-key", ep.APIKey)
	}
	return hr, nil
}

// NativeAnswer checks a Messages answer (or a count_tokens answer) and
// returns its usage.
func (Adapter) NativeAnswer(api string, body []byte) (*provider.Usage, error) {
	if api == provider.APICountTokens {
		var c struct {
			InputTokens *int `json:"input_tokens"`
		}
		if err := json.Unmarshal(body, &c); err != nil {
			return nil, err
		}
		if c.InputTokens == nil {
			return nil, errors.New("anthropic: count_tokens answer has no input_tokens")
		}
		return nil, nil
	}
	var a answer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, err
	}
	if a.Type != "message" {
		return nil, errors.New("anthropic: answer is not a message")
	}
	if a.Usage == nil {
		return nil, nil
	}
	return a.Usage.openai(), nil
}

// NativeStream reads a Messages event stream as the translated Stream does
// (content, finish, errors, usage) but hands on each event's own data.
// Every content block delta is content here, thinking included: the
// client reads it.
func (Adapter) NativeStream(_ string, body io.Reader, ep provider.Endpoint) provider.Stream {
	return &nativeStream{in: stream{r: sse.NewReader(body, 0), model: ep.Model, raw: true}}
}

type nativeStream struct{ in stream }

func (s *nativeStream) Next() (provider.Event, error) {
	ev, err := s.in.Next()
	if err != nil || ev.Malformed || len(ev.Raw) == 0 {
		return ev, err
	}
	ev.Chunks = [][]byte{ev.Raw}
	return ev, nil
}

// deltaValues are the members holding what a content_block_delta of each
// known type adds: text, a tool's input, thinking, its signature.
var deltaValues = map[string]string{"text_delta": "text", "input_json_delta": "partial_json",
	"thinking_delta": "thinking", "signature_delta": "signature"}

// deltaAdds reports whether a content_block_delta event relayed as it came
// adds to the answer: a delta of a known type with its value not empty,
// or of another type (a citation, a kind Detour does not know), not one
// that names no type. One that adds nothing is no progress
// (docs/config.md, "idle_timeout"; review 62b: an empty text_delta every
// 50 ms held a stalled stream open for ever).
func deltaAdds(data []byte) bool {
	d := rawjson.Member(data, "delta")
	if d == nil || string(d) == "null" {
		return false
	}
	typ, ok := rawjson.String(rawjson.Member(d, "type"))
	if !ok || typ == "" {
		// No type ({}, "type":null): no writing a client can read, and since
		// probe 66b a translated stream's progress — an upstream that kept
		// sending it held the stream open for ever (review 66g).
		return false
	}
	name, known := deltaValues[typ]
	if !known {
		return true
	}
	v := rawjson.Member(d, name)
	return v != nil && string(v) != `""` && string(v) != "null"
}
