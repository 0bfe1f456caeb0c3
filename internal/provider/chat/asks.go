package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/rawjson"
)

// Limit returns the output-token cap the client asked for:
// max_completion_tokens first, then max_tokens; ok is false when neither.
func (r *Request) Limit() (n int, ok bool) {
	if r.MaxCompletionTokens != nil {
		return *r.MaxCompletionTokens, true
	}
	if r.MaxTokens != nil {
		return *r.MaxTokens, true
	}
	return 0, false
}

// TopKValue is the request's top_k when it is a whole number of at least 1
// (40, or 40.0 as some clients write it); ok is false otherwise.
func (r *Request) TopKValue() (int, bool) {
	var f float64
	if len(r.TopK) == 0 || json.Unmarshal(r.TopK, &f) != nil || f < 1 || f > 1<<20 || f != float64(int(f)) {
		return 0, false
	}
	return int(f), true
}

// WantsLogprobs reports whether the request asks for the tokens'
// log-probabilities (logprobs true, or a top_logprobs count above 0).
func (r *Request) WantsLogprobs() bool {
	return (r.Logprobs != nil && *r.Logprobs) || (r.TopLogprobs != nil && *r.TopLogprobs > 0)
}

// LogprobsParam is the member that asks for log-probabilities
// (WantsLogprobs): logprobs, or top_logprobs where it asks alone.
func (r *Request) LogprobsParam() string {
	if r.Logprobs != nil && *r.Logprobs {
		return "logprobs"
	}
	return "top_logprobs"
}

// Unanswerable names the first member of the request that asks for
// something a translated answer (Claude's, Gemini's) would lack without a
// word, so that the request goes to a target that has it instead
// (docs/doors.md, "Chat Completions to Claude and Gemini targets"), or nil:
// a tool that is not a function (a "custom" tool with free-form input, a
// vendor's server tool), the deprecated "functions" (whose answer is a
// message's function_call, which the translations do not write), audio
// output ("modalities" with "audio"), and web search
// ("web_search_options"). Dropped, each of them gave the client a prose
// answer to a request for a call, a text to a request for audio, an
// answer from the model's memory to a request to search.
func (r *Request) Unanswerable() error {
	for i, t := range r.Tools {
		if t.Type != "function" && t.Type != "" {
			param := fmt.Sprintf("tools[%d]", i)
			return &provider.Unsupported{Param: param, Msg: fmt.Sprintf("chat: %s: a %q tool does not translate (only function tools do)", param, t.Type)}
		}
	}
	if len(r.Functions) > 0 {
		return &provider.Unsupported{Param: "functions", Msg: "chat: functions: the deprecated functions (and function_call) do not translate; send tools (and tool_choice)"}
	}
	if slices.Contains(r.Modalities, "audio") {
		return &provider.Unsupported{Param: "modalities", Msg: "chat: modalities: audio output does not translate"}
	}
	if rawjson.Set(r.WebSearchOptions) {
		return &provider.Unsupported{Param: "web_search_options", Msg: "chat: web_search_options: web search does not translate"}
	}
	return nil
}

// WantsCache reports whether the request set a prompt_cache_key
// (CacheKeySet).
func (r *Request) WantsCache() bool { return CacheKeySet(r.PromptCacheKey) }

// CacheKeySet reports whether k, a raw prompt_cache_key, is set: a value
// other than null or "" (a value of another type sets it too).
func CacheKeySet(k json.RawMessage) bool {
	k = bytes.TrimSpace(k)
	return len(k) > 0 && string(k) != "null" && string(k) != `""`
}
