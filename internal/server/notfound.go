package server

import "strings"

// doorPaths are the paths clients call (docs/doors.md).
var doorPaths = []string{"/v1/chat/completions", "/v1/completions", "/v1/responses", "/v1/embeddings", "/v1/models",
	"/v1/messages", "/v1/messages/count_tokens"}

// anthropicUnserved are the Anthropic APIs beside Messages that its SDKs
// call under the same base URL, and what serving them would keep.
var anthropicUnserved = []struct{ path, name, what string }{
	{"/v1/messages/batches", "Message Batches", "batches"},
	{"/v1/files", "Files", "files"},
}

// notFoundMessage is the 404's message for path: it names the door the
// client most likely meant when its base URL lacks the /v1 the OpenAI SDKs
// expect in it, or repeats the /v1 the Anthropic SDKs add themselves.
func notFoundMessage(path string) string {
	msg := "unknown path " + path
	for _, p := range doorPaths {
		switch {
		case "/v1"+path == p && strings.HasPrefix(p, "/v1/messages"):
			return msg + "; did you mean " + p + "? (Detour serves it under /v1, as Anthropic does)"
		case "/v1"+path == p:
			return msg + "; did you mean " + p + "? (an OpenAI client's base URL ends in /v1: http://HOST:PORT/v1)"
		case strings.HasPrefix(path, "/v1/v1/") && path[len("/v1"):] == p:
			return msg + "; did you mean " + p + "? (the base URL ends in /v1 and the client adds /v1 itself: an Anthropic client's base URL is http://HOST:PORT)"
		}
	}
	if rest, ok := strings.CutPrefix(path, "/v1/responses/"); ok && rest != "" {
		// openai-go's Responses.InputTokens.Count and Responses.Compact,
		// a stored response's retrieve, delete, cancel and input_items:
		// a 404 of Detour's, not an unknown door (probe 55a).
		return msg + ": Detour serves POST /v1/responses alone (docs/doors.md); it keeps no responses, and does not serve input_tokens or compact"
	}
	for _, api := range anthropicUnserved {
		if path == api.path || strings.HasPrefix(path, api.path+"/") {
			// The Anthropic SDKs' Message Batches and Files calls (review
			// 62c: "unknown path" read as a typo of the client's).
			return msg + ": Detour serves POST /v1/messages and /v1/messages/count_tokens of Anthropic's API (docs/doors.md); it keeps no " + api.what + ", so it does not serve the " + api.name + " API"
		}
	}
	return msg
}
