package openai

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

var _ provider.Native = Adapter{}

// Serves reports whether the upstream serves api as is: the Responses
// API and the legacy Completions API, each when the provider says so
// (Adapter.Responses, Adapter.Completions).
func (a Adapter) Serves(api string) bool {
	return a.Responses && api == provider.APIResponses || a.Completions && api == provider.APICompletions
}

// NativeRequest POSTs the client's Responses body, only "model" replaced,
// to {base_url}/responses; a Completions body to {base_url}/completions
// (completionsRequest).
func (Adapter) NativeRequest(ctx context.Context, ep provider.Endpoint, req *provider.NativeRequest) (*http.Request, error) {
	if req.API == provider.APICompletions {
		return completionsRequest(ctx, ep, req)
	}
	body, err := (&provider.Request{Body: req.Body}).WithModel(ep.Model)
	if err != nil {
		return nil, err
	}
	host, _ := siteOf(ep.BaseURL)
	body = withoutEncryptedReasoning(body, openAIHost(host)) // what the server cannot decrypt
	body = withoutReasoningReferences(body)
	if openAIHost(host) || reasoningModel(ep.Model) { // a vLLM or DeepSeek Responses server reads its reasoning items back
		body = withoutForeignReasoning(body)
	}
	return provider.NewPost(ctx, ep.BaseURL, "/responses", body, postHeader(req.Stream, ep.APIKey))
}

// responsesUsage is the Responses API's usage object.
type responsesUsage struct {
	InputTokens        int `json:"input_tokens"`
	OutputTokens       int `json:"output_tokens"`
	TotalTokens        int `json:"total_tokens"`
	InputTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
}

// UnmarshalJSON reads a count that is not a plain integer (3.0, 37.25) as
// its floor (provider.WholeCounts): one such count failed the whole
// response or stream event around it (hostile 52).
func (u *responsesUsage) UnmarshalJSON(b []byte) error {
	type plain responsesUsage
	return json.Unmarshal(provider.WholeCounts(b), (*plain)(u))
}

func (u *responsesUsage) usage() *provider.Usage {
	if u == nil {
		return nil
	}
	// total_tokens past input and output is output all the same, as in a
	// chat answer (provider.Usage.Output): a server that counts reasoning
	// beside output_tokens (review 63b).
	out := &provider.Usage{PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens,
		TotalTokens: max(u.TotalTokens, u.InputTokens+u.OutputTokens)}
	if d := u.InputTokensDetails; d != nil && d.CachedTokens > 0 {
		out.PromptTokensDetails = &provider.TokenDetails{CachedTokens: d.CachedTokens}
	}
	if d := u.OutputTokensDetails; d != nil && d.ReasoningTokens > 0 {
		out.CompletionTokensDetails = &provider.OutputDetails{ReasoningTokens: d.ReasoningTokens}
	}
	return out
}

// NativeAnswer checks a Responses answer ("object":"response") and returns
// its usage; a Completions answer as completionsAnswer does.
func (Adapter) NativeAnswer(api string, body []byte) (*provider.Usage, error) {
	if api == provider.APICompletions {
		return completionsAnswer(body)
	}
	var r struct {
		Object string          `json:"object"`
		Usage  *responsesUsage `json:"usage"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, err
	}
	if r.Object != "response" {
		return nil, errors.New("openai: answer is not a response object")
	}
	return r.Usage.usage(), nil
}

// NativeStream reads a Responses event stream: deltas and output items are
// content, response.completed and response.incomplete finish and end it
// (with usage), response.failed and error events are errors. A
// response.failed that says nothing (its error null) is read together with
// the event after it when that is an error event: Azure ends a
// content-filtered stream so, and the reason is in the error event
// (docs/doors.md, "Passthrough"). A Completions stream is read by the chat
// stream's reader (completionsStream).
func (Adapter) NativeStream(api string, body io.Reader, _ provider.Endpoint) provider.Stream {
	if api == provider.APICompletions {
		return completionsStream(body)
	}
	return &responsesStream{r: sse.NewReader(body, 0)}
}

type responsesStream struct {
	r *sse.Reader
	// ahead is an event read past a bare response.failed that was not an
	// error event, returned by the next call (held).
	ahead   provider.Event
	aheadOK bool
	aheadEr error
	held    bool
}

func (s *responsesStream) Next() (provider.Event, error) {
	var out provider.Event
	var ok bool
	var err error
	if s.held {
		s.held = false
		out, ok, err = s.ahead, s.aheadOK, s.aheadEr
	} else {
		out, ok, err = readResponsesEvent(s.r)
	}
	if err != nil || !ok || !out.Error || !bareFailure(out.Raw) {
		return out, err
	}
	// The reason may follow: read one event ahead. The failed event's
	// data is kept (the reader reuses its buffer).
	failed := out
	failed.Raw = bytes.Clone(out.Raw)
	failed.Chunks = [][]byte{failed.Raw}
	next, nextOK, nextErr := readResponsesEvent(s.r)
	if nextErr == nil && next.Error && !bareFailure(next.Raw) {
		return next, nil // the reason decides; an error event's chunks go nowhere
	}
	s.ahead, s.aheadOK, s.aheadEr, s.held = next, nextOK, nextErr, true
	return failed, nil
}

// readResponsesEvent reads one event; ok is false for an event that is
// complete as read (an `event: error`, an event with no data).
func readResponsesEvent(r *sse.Reader) (out provider.Event, ok bool, err error) {
	out, decode, err := provider.NextEvent(r)
	if !decode {
		return out, false, err
	}
	if bytes.Equal(out.Raw, sse.Done) {
		out.Done = true
		return out, true, nil
	}
	var e struct {
		Type     string `json:"type"`
		Response *struct {
			Usage *responsesUsage `json:"usage"`
		} `json:"response"`
		Item *struct {
			Type string `json:"type"`
		} `json:"item"`
	}
	if json.Unmarshal(out.Raw, &e) != nil {
		out.Malformed = true
		return out, true, nil
	}
	out.Chunks = [][]byte{out.Raw}
	// Every delta is what the client reads: text, a refusal, a call's
	// arguments or a custom tool's input (Codex's apply_patch), reasoning
	// text or its summary, audio, a hosted tool's code (review 37b: only
	// four kinds were, so a patch streamed for 300 events before any text
	// tripped the held-back cap, and one streamed past idle_timeout was
	// cut). docs/doors.md, "Passthrough".
	// A delta that adds nothing ("delta": "", or none) is no progress
	// (docs/config.md, "idle_timeout"; review 62b: an empty
	// output_text.delta every 50 ms held a stalled stream open).
	if strings.HasPrefix(e.Type, "response.") && strings.HasSuffix(e.Type, ".delta") {
		d := rawjson.Member(out.Raw, "delta")
		out.Content = d != nil && string(d) != `""` && string(d) != "null"
	}
	switch e.Type {
	case "error", "response.failed":
		out.Error = true
		// A response that failed after it began counts what it used
		// (review 63b: dropped, a failed reasoning run was billed as the
		// text the client saw).
		if e.Response != nil {
			out.Usage = e.Response.Usage.usage()
		}
	case "response.image_generation_call.partial_image":
		out.Content = true
	case "response.output_item.done":
		// An item the client renders, whole (a generated image, a hosted
		// tool's call); a reasoning item is no answer yet.
		out.Content = e.Item != nil && e.Item.Type != "reasoning"
	case "response.completed", "response.incomplete":
		if e.Response != nil {
			out.Usage = e.Response.Usage.usage()
		}
		out.Content, out.Finished, out.Done = true, true, true
	}
	return out, true, nil
}

// bareFailure reports a response.failed event whose response carries no
// error ({"type":"response.failed","response":{…,"error":null}}).
func bareFailure(raw []byte) bool {
	var e struct {
		Type     string `json:"type"`
		Response *struct {
			Error json.RawMessage `json:"error"`
		} `json:"response"`
	}
	if json.Unmarshal(raw, &e) != nil || e.Type != "response.failed" {
		return false
	}
	return e.Response == nil || len(e.Response.Error) == 0 || bytes.Equal(e.Response.Error, []byte("null"))
}
