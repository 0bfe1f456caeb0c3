package classify

import (
	"bytes"
	"strings"
)

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

// memberInvalidPhrases say that a request member, named in words, is
// invalid (Bedrock Converse: "service tier provided is invalid" for a
// serviceTier outside its enum; "Invalid max_tokens value"): the client's
// input, bad_request with that member as Verdict.Param (memberInvalid).
// The members are the multi-word ones of requestMembers, as the snake_case
// token or with spaces for its underscores; not the model (the "model … is
// invalid" family is gone wording: phrasesgone.go), the user, one-word
// members a sentence uses as plain words ("The input is invalid"), nor an
// id the client replays from elsewhere. "Invalid <member>" counts only
// before "value" or "provided": LM Studio's "Invalid tool_choice type:
// 'object'. Supported string values: …" is a type this server lacks
// (unknown). They rank after the capability gaps (mainPhrases).
var memberInvalidPhrases = func() []phrase {
	var out []phrase
	for _, m := range []string{"tool_choice", "function_call", "parallel_tool_calls", "response_format",
		"reasoning_effort", "top_p", "top_k", "stop_sequences", "presence_penalty", "frequency_penalty",
		"top_logprobs", "logit_bias", "max_tokens", "max_completion_tokens", "max_output_tokens",
		"stream_options", "service_tier", "encoding_format", "web_search_options"} {
		forms := []string{m}
		if m != "function_call" { // "the function call is invalid": the model's own call, as often
			forms = append(forms, strings.ReplaceAll(m, "_", " "))
		}
		ev := "phrase:" + m + memberInvalidEvidence
		for _, w := range forms {
			for _, mid := range []string{"", " provided", " specified", " value", " parameter"} {
				out = append(out, phrase{a: w + mid + " is invalid", class: BadRequest, badInput: true, evidence: ev})
			}
			out = append(out,
				phrase{a: "invalid " + w + " value", class: BadRequest, badInput: true, evidence: ev},
				phrase{a: "invalid " + w + " provided", class: BadRequest, badInput: true, evidence: ev})
		}
	}
	return out
}()

// memberInvalidEvidence ends the evidence of every memberInvalidPhrases
// verdict: "phrase:service_tier is invalid" for all the forms.
const memberInvalidEvidence = " is invalid"

// memberInvalid is the request member a memberInvalidPhrases verdict's
// evidence names, "" for any other evidence.
func memberInvalid(ev string) string {
	if !strings.HasPrefix(ev, "phrase:") || !strings.HasSuffix(ev, memberInvalidEvidence) {
		return ""
	}
	ev = ev[len("phrase:") : len(ev)-len(memberInvalidEvidence)]
	for _, m := range requestMembers {
		if ev == m {
			return m
		}
	}
	return ""
}
