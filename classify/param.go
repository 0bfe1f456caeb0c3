package classify

import "bytes"

// requestMembers are the top-level request members of the client APIs
// Detour serves (Chat Completions, Responses, Messages, embeddings) that a
// bad_request's param may name (Verdict.Param). Held as constants, so a
// verdict carries one without copying the body's bytes: classifying
// allocates nothing (TestCorpusAllocs).
var requestMembers = []string{
	"model", "messages", "input", "instructions", "system", "tools", "tool_choice", "functions",
	"function_call", "parallel_tool_calls", "response_format", "text", "reasoning", "reasoning_effort",
	"thinking", "temperature", "top_p", "top_k", "stop", "stop_sequences", "presence_penalty",
	"frequency_penalty", "logprobs", "top_logprobs", "seed", "logit_bias", "n", "max_tokens",
	"max_completion_tokens", "max_output_tokens", "stream", "stream_options", "user", "metadata",
	"store", "modalities", "audio", "prediction", "service_tier", "include", "truncation",
	"previous_response_id", "prompt_cache_key", "safety_identifier", "verbosity",
	"web_search_options", "dimensions", "encoding_format",
}

// requestMember is the member of requestMembers that param names, alone
// or as the head of a path ("messages[2].content", "tools.6.type",
// "input[0]"); "" for any other.
func requestMember(param []byte) string {
	if i := bytes.IndexAny(param, ".["); i >= 0 {
		param = param[:i]
	}
	for _, m := range requestMembers {
		if string(param) == m {
			return m
		}
	}
	return ""
}
