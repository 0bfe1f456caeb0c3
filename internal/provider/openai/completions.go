package openai

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/rawjson"
	"github.com/detour-llm/detour/internal/sse"
)

// OpenAI's legacy Completions API (POST /v1/completions: a "prompt", not
// messages), served by a provider with completions: true (docs/doors.md,
// "Legacy Completions"). It has no translation: the client's body goes as
// it came, only "model" replaced, and the answer comes back as it came.
// Its answers have chat's outer shape — "choices", "usage" with
// prompt_tokens and completion_tokens, "finish_reason", [DONE] — with a
// choice's "text" in place of a message or a delta, so the chat reader
// reads them (facts.completions) rather than a copy of it.

// completionsRequest POSTs the client's Completions body, only "model"
// replaced, to {base_url}/completions, the provider's key as a Bearer
// token and no header of the client's.
func completionsRequest(ctx context.Context, ep provider.Endpoint, req *provider.NativeRequest) (*http.Request, error) {
	body, err := (&provider.Request{Body: req.Body}).WithModel(ep.Model)
	if err != nil {
		return nil, err
	}
	return provider.NewPost(ctx, ep.BaseURL, "/completions", body, postHeader(req.Stream, ep.APIKey))
}

// completionsAnswer checks a whole Completions answer — a JSON object with
// a non-empty "choices" list, as a chat completion's is checked (a client
// reads choices[0]) — and returns its usage, nil when it reports none or
// a count that does not read (the walk then estimates it).
func completionsAnswer(body []byte) (*provider.Usage, error) {
	_, raw, err := Adapter{}.ResponseUsage(body, provider.Endpoint{})
	if err != nil {
		return nil, err
	}
	if chatAnswer(body) {
		return nil, errChatAnswer
	}
	if raw == nil {
		return nil, nil
	}
	u, err := provider.ParseUsage(raw)
	if err != nil {
		return nil, nil
	}
	return u, nil
}

// errChatAnswer is a whole answer to a Completions request that is a chat
// completion: no client of the API reads it (choices[0].text undefined).
var errChatAnswer = errors.New("the answer is a chat completion (a choice with a message and no text), not a text_completion")

// chatAnswer reports whether a whole answer's choices hold one with a
// "message" and no "text": a chat completion, as a chat chunk in a
// Completions stream is malformed (chatShaped; review 65f: recorded ok,
// the openai SDK read text undefined).
func chatAnswer(body []byte) bool {
	list, ok := rawjson.ScanArray(rawjson.Member(body, "choices"))
	if !ok {
		return false
	}
	for _, el, ok := list.Next(); ok; _, el, ok = list.Next() {
		obj, ok := rawjson.ScanObject(el)
		if !ok {
			continue
		}
		message, text := false, false
		for k, v, ok := obj.Next(); ok; k, v, ok = obj.Next() {
			switch {
			case rawjson.KeyIs(k, "message"):
				message = string(v) != "null"
			case rawjson.KeyIs(k, "text"):
				text = true
			}
		}
		if message && !text {
			return true
		}
	}
	return false
}

// completionsStream reads a Completions event stream with the chat
// stream's reader: a choice's non-empty "text" is content (an empty one is
// not, and restarts no idle_timeout), a finish_reason or [DONE] finishes
// it, a usage chunk (stream_options.include_usage) is its usage, an error
// chunk or `event: error` is an error. Each event's data goes to the
// client as it came.
func completionsStream(body io.Reader) provider.Stream {
	return &stream{r: sse.NewReader(body, 0), facts: facts{completions: true}}
}
