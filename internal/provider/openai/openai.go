package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/rawjson"
	"github.com/detour-llm/detour/internal/sse"
)

var (
	contentJSON = []string{"application/json"}
	acceptJSON  = []string{"application/json"}
	acceptSSE   = []string{"text/event-stream"}
)

// Adapter speaks the OpenAI Chat Completions dialect. The zero value is
// ready and serves no client API natively.
type Adapter struct {
	// Responses: the upstream serves the Responses API at
	// {base_url}/responses (the provider's responses option), so a
	// /v1/responses request is passed through (native.go).
	Responses bool
	// Completions: the upstream serves the legacy Completions API at
	// {base_url}/completions (the provider's completions option), so a
	// /v1/completions request is passed through (completions.go). Opt-in:
	// a server without the path answers 404, which must never cool the
	// endpoint its chat requests use.
	Completions bool
}

var _ provider.Adapter = Adapter{}

// NewRequest POSTs the client's body to {base_url}/chat/completions with only
// "model" replaced; every other member reaches the upstream as sent. A
// door's translation (req.Translated) also has the tool descriptions Chat
// Completions refuses as too long fitted (FitDescriptions): the client
// wrote them for an API that takes them.
func (Adapter) NewRequest(ctx context.Context, ep provider.Endpoint, req *provider.Request) (*http.Request, error) {
	body, err := req.WithModel(ep.Model)
	if err != nil {
		return nil, err
	}
	if bytes.Contains(body, []byte(provider.SignaturePrefix)) {
		body = withoutOurSignatures(body, geminiCompat(siteOf(ep.BaseURL)))
	}
	// The output limit goes under the name the server reads, a client's own
	// body's too (probe 54a: on a route [claude, deepseek] the client's
	// limit held at Claude and was ignored at DeepSeek, which wrote to its
	// default length, billed): unless the body names max_tokens itself.
	if bytes.Contains(body, []byte(`"max_completion_tokens"`)) && !reasoningModel(ep.Model) {
		if host, _ := siteOf(ep.BaseURL); !openAIHost(host) {
			switch mt := rawjson.Member(body, "max_tokens"); {
			case mt == nil:
				body = rawjson.Rename(body, "max_completion_tokens", "max_tokens")
			case !rawjson.Set(mt): // "max_tokens": null says nothing: the limit takes its name (review 54b: written twice)
				body = rawjson.Rename(rawjson.Without(body, "max_tokens"), "max_completion_tokens", "max_tokens")
			}
		}
	}
	// A client's own body without a tool call (most requests) needs none
	// of what follows: its base URL is not parsed.
	if calls := bytes.Contains(body, []byte(`"tool_calls"`)); req.Translated || calls {
		host, path := siteOf(ep.BaseURL) // parsed once for what follows
		wants := wantsReasoning(host, ep.Model)
		if wants && calls {
			body = withReasoningOnToolCalls(body, host == "openrouter.ai" || strings.HasSuffix(host, ".openrouter.ai"))
		}
		if req.Translated {
			body = FitDescriptions(body)
			if !wants {
				body = withoutReasoning(body)
			}
			if geminiCompat(host, path) {
				body = withSignatures(body)
				body = geminiEffort(body)
			} else {
				body = fitToGeneration(body, ep.Model) // review 66e: an OpenAI reasoning model's generation
			}
		}
	}
	return provider.NewPost(ctx, ep.BaseURL, "/chat/completions", body, postHeader(req.Stream, ep.APIKey))
}

// postHeader is the headers of a POST to the upstream: JSON, the answer
// as a stream or whole, the key as a Bearer token (none when empty). One
// map of shared values, not three Header.Set calls (each allocates a
// slice). The value slices are full (len == cap): an Add by anyone after
// us copies, it never writes into them.
func postHeader(stream bool, key string) http.Header {
	accept := acceptJSON
	if stream {
		accept = acceptSSE
	}
	h := make(http.Header, 3)
	h["Content-Type"] = contentJSON
	h["Accept"] = accept
	if key != "" {
		h["Authorization"] = []string{"Bearer " + key}
	}
	return h
}

// A door's translation names the output limit max_completion_tokens,
// which OpenAI's reasoning models require (they refuse max_tokens: "Use
// 'max_completion_tokens' instead"). Every other OpenAI-compatible server
// gets it as max_tokens, the name they all read: DeepSeek ignores
// max_completion_tokens and answers at its default length (probe 53a,
// docs/doors.md "The output limit's name"). openAIHost and reasoningModel
// say where the first name stays: OpenAI's and Azure's own hosts, and an
// OpenAI reasoning model behind any other (a proxy in front of OpenAI).

// siteOf is baseURL's host, lower case, and path; "" for a URL that does
// not parse.
func siteOf(baseURL string) (host, path string) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return "", ""
	}
	return strings.ToLower(u.Hostname()), u.Path
}

// openAIHost reports whether host (siteOf's) is OpenAI's own API or Azure
// OpenAI's.
func openAIHost(h string) bool {
	return h == "api.openai.com" || strings.HasSuffix(h, ".openai.azure.com") || strings.HasSuffix(h, ".cognitiveservices.azure.com") ||
		strings.HasSuffix(h, ".services.ai.azure.com")
}

// reasoningModel reports whether model names one of OpenAI's reasoning
// models (o1, o3, o4-mini, gpt-5…, gpt-6…, codex-…), with or without a
// vendor prefix ("openai/gpt-5").
func reasoningModel(model string) bool {
	_, ok := generationOf(model) // gpt-5 and every later generation (review 66e: gpt-6.1 got max_tokens)
	return ok
}

// Response checks that a 2xx body is a chat completion and passes it through
// untouched but for a vendor's finish reason, written as OpenAI's
// (openaiFinishes), and a message's content that is a list of chunks,
// written as OpenAI's (flatListAnswer): OpenAI-compatible upstreams already name the model that
// answered.
func (a Adapter) Response(body []byte, ep provider.Endpoint) ([]byte, error) {
	out, _, err := a.ResponseUsage(body, ep)
	return out, err
}

// answerMembers are the members ResponseUsage reads.
var answerMembers = []string{"choices", "usage"}

// ResponseUsage is Response, and also returns the answer's raw top-level
// "usage" member (nil when there is none, as rawjson.Member finds it): the
// common case is checked and both members found in one pass
// (rawjson.Check), with no allocation; anything else takes the decoding
// path below, which words the error.
func (Adapter) ResponseUsage(body []byte, _ provider.Endpoint) (out, usage []byte, err error) {
	var m [2][]byte
	if rawjson.Check(body, answerMembers, m[:]) && len(m[0]) > 0 && m[0][0] == '[' {
		if emptyArray(m[0]) {
			return nil, nil, errNoChoice
		}
		if listContentAnswer(m[0]) {
			body = flatListAnswer(body) // m[1] stays valid: body's bytes are not written
		}
		return openaiFinishes(body), m[1], nil
	}
	var probe struct {
		Choices json.RawMessage `json:"choices"`
	}
	if err := json.Unmarshal(body, &probe); err != nil {
		return nil, nil, err
	}
	if len(probe.Choices) == 0 || probe.Choices[0] != '[' {
		return nil, nil, errors.New("openai: response has no choices array")
	}
	if emptyArray(probe.Choices) {
		return nil, nil, errNoChoice
	}
	if listContentAnswer(probe.Choices) {
		body = flatListAnswer(body)
	}
	return openaiFinishes(body), rawjson.Member(body, "usage"), nil
}

// errNoChoice is a chat completion whose choices array is empty: no
// answer, which a client reading choices[0] cannot use (review 33a).
var errNoChoice = errors.New("openai: response has no choice")

// emptyArray reports whether the JSON array raw holds no element.
func emptyArray(raw []byte) bool {
	for _, c := range raw[1:] {
		switch c {
		case ' ', '\t', '\n', '\r':
		default:
			return c == ']'
		}
	}
	return false
}

// Stream passes chunks through as they come, marking content, errors, usage
// and the [DONE] marker.
func (Adapter) Stream(body io.Reader, _ provider.Endpoint) provider.Stream {
	return &stream{r: sse.NewReader(body, 0)}
}

type stream struct {
	r *sse.Reader
	// open and finished count the choices seen and those that had a
	// finish_reason: the answer is complete when every choice finished;
	// complete is what the last event said of it. At most provider.MaxParts
	// choices are kept: an upstream picks the indices.
	open     map[int]bool
	finished int
	complete bool
	facts    facts        // the current event's, reused
	one      [1][]byte    // backs Event.Chunks
	called   map[int]bool // the choices in which a tool call began
}

// chunk is the part of a chat.completion.chunk the gateway looks at.
type chunk struct {
	Error   json.RawMessage `json:"error"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content          *string `json:"content"`
			Refusal          *string `json:"refusal"`
			ReasoningContent *string `json:"reasoning_content"`
			// Reasoning is OpenRouter's name for reasoning text.
			Reasoning        *string         `json:"reasoning"`
			ReasoningDetails json.RawMessage `json:"reasoning_details"`
			ToolCalls        json.RawMessage `json:"tool_calls"`
			FunctionCall     json.RawMessage `json:"function_call"`
			// Audio (audio output) and Images (image output, OpenRouter)
			// are content the client renders, however the text begins.
			Audio  json.RawMessage `json:"audio"`
			Images json.RawMessage `json:"images"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
		// Error is a choice's own error object (OpenRouter's in-band
		// failure of one choice, with finish_reason "error").
		Error json.RawMessage `json:"error"`
		// Usage is a choice's own count (Moonshot's Kimi streams its
		// usage in the finishing choice): read where the chunk has none.
		Usage *provider.Usage `json:"usage"`
		// Text is a legacy Completions chunk's content (facts.completions);
		// raw, so a chat chunk's odd "text" fails nothing.
		Text json.RawMessage `json:"text"`
	} `json:"choices"`
	Usage *provider.Usage `json:"usage"`
	XGroq json.RawMessage `json:"x_groq"`
}

func (s *stream) Next() (provider.Event, error) {
	out, decode, err := provider.NextEvent(s.r)
	if !decode {
		return out, err
	}
	data := out.Raw
	if bytes.Equal(data, sse.Done) {
		out.Done = true
		return out, nil
	}
	f := &s.facts
	f.read(data)
	if f.malformed {
		flat, ok := flatListContent(data)
		if !ok {
			out.Malformed = true
			return out, nil
		}
		if f.read(flat); f.malformed {
			out.Malformed = true
			return out, nil
		}
		data = flat
	}
	if f.error {
		// The usage beside an error is the upstream's count of what it ran
		// (OpenRouter's error chunk after a finish carries the answer's).
		out.Error, out.Usage = true, f.usage
		return out, nil
	}
	for _, ch := range f.choices {
		if ch.tool && (s.called[ch.index] || len(s.called) < provider.MaxParts) {
			if s.called == nil {
				s.called = make(map[int]bool)
			}
			s.called[ch.index] = true
		}
	}
	for _, ch := range f.choices {
		if ch.filter && s.called[ch.index] {
			// A filter cut a choice after a tool call began in it (in
			// this chunk or before: review 58b): the call may be cut short ({"content":"hello wor"}), and a client
			// that finishes it as it stands runs it (probe 58b:
			// LangChain's ChatAnthropic and its Responses model handed an
			// agent a write_file of half a file). The answer fails, as
			// Anthropic ends a stream its filter stopped: an error event
			// at every door, read as the refusal it is.
			out.Error, out.Usage = true, f.usage
			return out, nil
		}
	}
	for _, ch := range f.choices {
		if _, seen := s.open[ch.index]; !seen && len(s.open) >= provider.MaxParts {
			out.Malformed = true // more choices than any request asks for
			return out, nil
		}
	}
	out.Usage = f.usage
	more := false // this event finished a choice
	for _, ch := range f.choices {
		was, seen := s.open[ch.index]
		// A finish reason is content, but not one said again, alone, for
		// a choice that had finished (OpenRouter repeats finish_reason
		// "length" on an empty chunk): it adds nothing to the answer, which
		// did not go on after its finish (review 40e).
		if ch.content || ch.finish && !was {
			out.Content = true
		}
		if s.open == nil {
			s.open = make(map[int]bool)
		}
		if !seen || ch.finish && !was {
			s.open[ch.index] = ch.finish
			if ch.finish {
				s.finished++
				more = true
			}
		}
	}
	// A choice may open after the others finished (they finish one by
	// one): the answer is then incomplete again, and a body that ends
	// there was cut.
	// A choice that opens and finishes in one event keeps the answer
	// complete, with one more choice: Finished again, for its count.
	if complete := len(s.open) > 0 && s.finished == len(s.open); complete != s.complete {
		out.Finished, out.Reopened = complete, !complete
		s.complete = complete
	} else if complete && more {
		out.Finished = true
	}
	if out.Finished {
		out.Choices = s.finished
	}
	for _, ch := range f.choices {
		if ch.vendor && !f.completions { // a passthrough's events go as they came
			data = openaiFinishes(data)
			break
		}
	}
	out.Chunks = s.one[:0:1]
	out.Chunks = append(out.Chunks, data)
	return out, nil
}

func nonEmpty(s *string) bool { return s != nil && *s != "" }

// present reports whether a JSON member holds something: not absent, not
// null, not an empty array or object.
func present(m json.RawMessage) bool {
	switch string(m) {
	case "", "null", "[]", "{}":
		return false
	}
	return true
}
