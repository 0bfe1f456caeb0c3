package provider

import (
	"bytes"
	"context"
	"io"
	"net/http"

	"github.com/detour-llm/detour/internal/rawjson"
	"github.com/detour-llm/detour/internal/signkey"
	"github.com/detour-llm/detour/internal/sse"
)

// Endpoint is what an adapter needs to reach one model at one provider
// account. APIKey is a secret: adapters put it in a request header and
// nowhere else.
type Endpoint struct {
	// BaseURL is the provider's base URL without a trailing slash.
	BaseURL string
	// APIKey is the provider account's key ("" sends no key).
	APIKey string
	// Model is the upstream model name to ask for.
	Model string
	// Account is the provider's configured name: with Model and APIKey it
	// says whose answer an opaque token is, which may go back only there
	// (a Gemini thought signature: docs/doors.md). "" in tests.
	Account string
	// Signing holds the keys the thought signatures handed to clients are
	// sealed with (Seal, Unseal); nil carries none.
	Signing *signkey.Ring
}

// Request is one client chat-completions request, parsed once.
type Request struct {
	// Body is the client's JSON exactly as sent.
	Body []byte
	// Stream is the client's "stream" flag.
	Stream bool
	// Translated: Body is a door's translation of the client's request
	// (the Messages or Responses door), not a chat body the client wrote.
	// An adapter may then fit it to its vendor's limits, which the client
	// did not choose (openai.FitDescriptions); a client's own body (false,
	// the zero value) travels as sent.
	Translated bool
	// Unsealed sends none of the thought signatures a client handed back
	// (Google's placeholder goes in their place): the endpoint refused one
	// it wrote, and the request is sent again so (docs/doors.md, "Gemini
	// thought signatures").
	Unsealed bool
	// CachePrompt: the client asked for its prompt to be cached
	// (OpenAI's prompt_cache_key, which a door's translation leaves out):
	// a Claude translation marks the prompt up to its last block, where
	// the client marked nothing itself (docs/doors.md, "Chat Completions
	// to Claude and Gemini targets").
	CachePrompt bool
	// Embeddings is Body read as an embeddings request, when the caller
	// parsed it already (once per call); nil: an adapter that needs it
	// parses Body (EmbeddingsOf).
	Embeddings *Embeddings
}

// Adapter speaks one dialect. Implementations are stateless and safe for
// concurrent use.
type Adapter interface {
	// NewRequest builds the upstream HTTP request for req at ep.
	NewRequest(ctx context.Context, ep Endpoint, req *Request) (*http.Request, error)
	// Response translates a complete 2xx upstream body into an OpenAI
	// chat.completion JSON body. An error means the body is unusable (the
	// caller files it as server_error).
	Response(body []byte, ep Endpoint) ([]byte, error)
	// Stream returns a reader of the upstream's SSE body translated into
	// OpenAI chat.completion.chunk events.
	Stream(body io.Reader, ep Endpoint) Stream
}

// Stream yields translated events until io.EOF.
type Stream interface {
	Next() (Event, error)
}

// Event is one upstream stream event after translation.
type Event struct {
	// Raw is the upstream event's data, handed to the classifier. Valid
	// until the next call to Next.
	Raw []byte
	// Error is set when the event signals an error or a block in the
	// dialect's own shape (OpenAI `{"error":…}` or `event: error`, Anthropic
	// `type: error`, Gemini `error` or `promptFeedback.blockReason`). The
	// caller classifies Raw with classify.Response{Status: 200, Stream: true}.
	Error bool
	// Chunks are zero or more OpenAI chat.completion.chunk JSON objects to
	// send to the client, each one SSE data line.
	Chunks [][]byte
	// Content is set when a chunk carries content: text, a tool call, or a
	// finish_reason (not one said again, alone, for a choice that had
	// finished). Events without content are held back before the commit
	// point so an error that follows them can still fail over.
	Content bool
	// Progress is set when the upstream is writing the answer though
	// nothing of it is sent yet (a structured value gathered whole until
	// its block ends): no content, but it restarts the running timeout,
	// first-token or idle (docs/behaviour.md#streams).
	Progress bool
	// Done is set when the upstream signalled a normal end of the stream.
	Done bool
	// Finished is set on the event that completes the answer in the
	// dialect's own terms: a finish reason for every choice the stream
	// opened (OpenAI finish_reason, Anthropic message_delta stop_reason,
	// Gemini finishReason on every candidate). A stream whose body ends
	// before any Finished or Done event was cut, not completed.
	Finished bool
	// Choices is, on a Finished event, how many choices the answer
	// finished (an OpenAI-dialect stream's); 0 stands for one. A request
	// for n choices is finished only by n of them (docs/behaviour.md,
	// "Streams"): an upstream that streams its choices one after the other
	// and is cut before the second began had finished every choice it
	// opened.
	Choices int
	// Reopened is set on an event that opens a part of the answer after an
	// event was Finished (an OpenAI choice that starts after the others
	// finished): the answer is incomplete again until a later Finished.
	Reopened bool
	// Malformed is set when the event could not be parsed, or opens more
	// parts than MaxParts; it is skipped and recorded, never sent.
	Malformed bool
	// Usage is the token usage when this event reported it.
	Usage *Usage
	// Digest, when set, is the event's outcome in the dialect's own shape
	// (as NoAnswer's): an event that holds nothing for the client and ends
	// the answer so. The caller classifies it in Raw's place when Raw is
	// longer than the classifier reads, its outcome perhaps past that.
	Digest []byte
}

// MaxParts bounds the parts one streamed answer may open, each kind on
// its own: its choices (Gemini's candidates) and its tool calls. The
// adapters and the doors keep a little state for each part, and an
// upstream picks their indices, so without a bound one endless stream
// whose every chunk names a new index would grow the gateway's memory for
// as long as it runs. OpenAI takes at most 128 choices (n) a request; a
// part past the bound is dropped (docs/security.md, "Bounded memory").
const MaxParts = 1024

// Usage is token accounting in OpenAI's terms.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
	// PromptTokensDetails says how many of PromptTokens were read from the
	// provider's prompt cache, and how many written to it; nil when the
	// upstream did not say.
	PromptTokensDetails *TokenDetails `json:"prompt_tokens_details,omitempty"`
	// CompletionTokensDetails says how many of CompletionTokens were the
	// model's reasoning, where a translated answer's upstream counts them
	// apart (Gemini's thoughtsTokenCount); nil when it did not say. An
	// OpenAI-dialect answer's own details reach the client as it sent them.
	CompletionTokensDetails *OutputDetails `json:"completion_tokens_details,omitempty"`
	// CacheCreationInputTokens is LiteLLM's name, beside OpenAI's members,
	// for the part of PromptTokens written to the prompt cache
	// (https://litellm.vercel.app/docs/completion/prompt_caching); read, never
	// written by Detour.
	CacheCreationInputTokens int `json:"cache_creation_input_tokens,omitempty"`
	// PromptCacheHitTokens is DeepSeek's name, beside OpenAI's members, for
	// the part of PromptTokens read from the prompt cache
	// (https://api-docs.deepseek.com/api/create-chat-completion, usage), and
	// CachedTokens Moonshot's (Kimi's context caching, usage.cached_tokens):
	// read, never written by Detour; Cached reads them (round 63: a host
	// that sent only DeepSeek's names was billed its cache hits at the
	// plain input price, ten times theirs).
	PromptCacheHitTokens Count `json:"prompt_cache_hit_tokens,omitempty"`
	CachedTokens         Count `json:"cached_tokens,omitempty"`
	// Fast says the answer was served in a premium fast mode its provider
	// bills above the model's price (Anthropic's usage.speed "fast"),
	// priced at the target's fast price (docs/config.md, "Usage and
	// cost"). Never written to a client.
	Fast bool `json:"-"`
	// WebSearches and WebFetches are the uses of the provider's
	// server-run web search and web fetch the answer reports (Anthropic's
	// usage.server_tool_use.web_search_requests and web_fetch_requests),
	// priced per 1,000 at the target's web_search and web_fetch prices
	// (docs/config.md, "Usage and cost"); 0 when it reports none. Read as
	// written (a negative count too: bounded where it is priced). Never
	// written to a client.
	WebSearches int `json:"-"`
	WebFetches  int `json:"-"`
}

// TokenDetails is OpenAI's prompt_tokens_details.
type TokenDetails struct {
	CachedTokens int `json:"cached_tokens"`
	// CacheWriteTokens is the part of the prompt written to the prompt
	// cache, which Anthropic bills above plain input: OpenRouter's name
	// (https://openrouter.ai/docs/use-cases/usage-accounting), and what a
	// translated Claude answer says for its cache_creation_input_tokens.
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
	// CacheCreationTokens is LiteLLM's name for the same writes, inside
	// prompt_tokens_details, read leniently (Count): a value that is not a
	// whole number leaves it 0 and loses nothing else of the usage. Detour
	// writes it only where it passes the upstream's usage on (a spliced
	// stream).
	CacheCreationTokens Count `json:"cache_creation_tokens,omitempty"`
	// CacheCreation splits the writes by the cache's lifetime, as LiteLLM
	// names it for a relayed Claude answer, and as a translated Claude
	// answer says it (its usage.cache_creation); nil when unknown. Anthropic
	// bills 1-hour writes above 5-minute ones (docs/config.md, "Usage and
	// cost").
	CacheCreation *CacheCreation `json:"cache_creation_token_details,omitempty"`
	// AudioTokens is the part of the prompt that was audio, which OpenAI
	// (and Gemini) price apart from text (docs/config.md, "Usage and
	// cost"); read leniently (Count), as OpenAI's
	// prompt_tokens_details.audio_tokens.
	AudioTokens Count `json:"audio_tokens,omitempty"`
}

// Count is a token count an upstream reports beside the ones Detour
// needs, read leniently: a value that is not a whole number of at most 18
// digits (30.0, "30", 1e30, an object) leaves it 0 rather than failing the
// usage it sits in (review28e).
type Count int

// UnmarshalJSON reads b as a whole number, else 0; it never fails.
func (c *Count) UnmarshalJSON(b []byte) error {
	n, ok := PlainInt(b)
	if !ok {
		n = 0
	}
	*c = Count(n)
	return nil
}

// CacheCreation is LiteLLM's cache_creation_token_details, in the words of
// Anthropic's usage.cache_creation: the writes to the 5-minute and 1-hour
// caches.
type CacheCreation struct {
	Ephemeral5m int `json:"ephemeral_5m_input_tokens"`
	Ephemeral1h int `json:"ephemeral_1h_input_tokens"`
}

// ParseCacheCreation reads a split of the cache writes, raw, leniently: nil
// where its 1-hour count is not a number (a string, an array; 750.0 reads
// as 750, a count past any as 0),
// which leaves the split unknown and nothing else of the usage lost.
func ParseCacheCreation(raw []byte) *CacheCreation {
	raw = WholeCounts(raw) // 750.0 is 750, as every other count is read (hostile 52)
	h, ok := PlainInt(rawjson.Member(raw, "ephemeral_1h_input_tokens"))
	if !ok {
		return nil
	}
	f, _ := PlainInt(rawjson.Member(raw, "ephemeral_5m_input_tokens"))
	return &CacheCreation{Ephemeral5m: f, Ephemeral1h: h}
}

// UnmarshalJSON reads c as ParseCacheCreation does; it never fails (a split
// it cannot read is none: 0 to the 1-hour cache).
func (c *CacheCreation) UnmarshalJSON(b []byte) error {
	*c = CacheCreation{}
	if p := ParseCacheCreation(b); p != nil {
		*c = *p
	}
	return nil
}

// OutputDetails is OpenAI's completion_tokens_details, as far as Detour
// reports it.
type OutputDetails struct {
	ReasoningTokens int `json:"reasoning_tokens"`
	// AudioTokens is the part of the output that was audio (OpenAI's
	// completion_tokens_details.audio_tokens), priced apart from text;
	// read leniently (Count).
	AudioTokens Count `json:"audio_tokens,omitempty"`
}

// Cached is the number of cached input tokens u reports (0 when none),
// under any name providers give it: the largest, as all count the same
// tokens.
func (u *Usage) Cached() int {
	if u == nil {
		return 0
	}
	n := max(int(u.PromptCacheHitTokens), int(u.CachedTokens))
	if d := u.PromptTokensDetails; d != nil {
		n = max(n, d.CachedTokens)
	}
	return n
}

// Output is the output tokens u reports: completion_tokens, or what
// total_tokens counts beyond the prompt where that is more (0 when
// neither is above 0). xAI, and Gemini's OpenAI-compatible endpoint,
// count reasoning beside completion_tokens, not in it, and bill it as
// output (docs/config.md, "Usage and cost").
func (u *Usage) Output() int {
	if u == nil {
		return 0
	}
	return max(u.CompletionTokens, u.TotalTokens-max(u.PromptTokens, 0), 0) // a negative prompt is nonsense, never output
}

// AudioIn and AudioOut are the prompt's and the output's audio tokens u
// reports (0 when none).
func (u *Usage) AudioIn() int {
	if u == nil || u.PromptTokensDetails == nil {
		return 0
	}
	return int(u.PromptTokensDetails.AudioTokens)
}

// AudioOut: see AudioIn.
func (u *Usage) AudioOut() int {
	if u == nil || u.CompletionTokensDetails == nil {
		return 0
	}
	return int(u.CompletionTokensDetails.AudioTokens)
}

// CacheWrite is the number of input tokens u reports written to the prompt
// cache (0 when none), under any name relays give it: the largest, as all
// count the same tokens.
func (u *Usage) CacheWrite() int {
	if u == nil {
		return 0
	}
	n := u.CacheCreationInputTokens
	if d := u.PromptTokensDetails; d != nil {
		n = max(n, d.CacheWriteTokens, int(d.CacheCreationTokens))
	}
	return n
}

// CacheWrite1h is the part of CacheWrite written to Anthropic's 1-hour
// cache (0 when none, never more than CacheWrite).
func (u *Usage) CacheWrite1h() int {
	if u == nil || u.PromptTokensDetails == nil || u.PromptTokensDetails.CacheCreation == nil {
		return 0
	}
	return min(max(u.PromptTokensDetails.CacheCreation.Ephemeral1h, 0), max(u.CacheWrite(), 0))
}

// NextEvent reads the next upstream SSE event into the parts every dialect
// shares: Raw is its trimmed data, and an `event: error` is an Error event.
// decode is false when out is already complete (an error event, or an event
// with no data); otherwise the dialect decodes Raw.
func NextEvent(r *sse.Reader) (out Event, decode bool, err error) {
	ev, err := r.Next()
	if err != nil {
		return Event{}, false, err
	}
	out.Raw = bytes.TrimSpace(ev.Data)
	if ev.Name == "error" {
		out.Error = true
		return out, false, nil
	}
	return out, len(out.Raw) > 0, nil
}

// MaxName bounds a name an upstream's stream gives its answer (the model,
// the message id) that a translation repeats in every chunk it writes: a
// longer one is not taken (the endpoint's model, the id the stream had,
// stay), so a few bytes from the upstream cannot become that many in each
// of thousands of chunks (hostile review 51b: a 900 KiB model name made
// 177 MiB of chunks of one-letter deltas).
const MaxName = 256

// Name reports whether s is a name a stream's chunks may repeat: not
// empty, at most MaxName bytes.
func Name(s string) bool { return s != "" && len(s) <= MaxName }
