package server

import (
	"strings"
	"testing"
)

// Each hint names the path meant and the fix that fits the client that
// would have called it.
func TestNotFoundMessage(t *testing.T) {
	for path, want := range map[string]string{
		"/chat/completions":   "did you mean /v1/chat/completions? (an OpenAI client's base URL ends in /v1",
		"/embeddings":         "did you mean /v1/embeddings? (an OpenAI client",
		"/messages":           "did you mean /v1/messages? (Detour serves it under /v1",
		"/v1/v1/messages":     "did you mean /v1/messages? (the base URL ends in /v1 and the client adds /v1 itself",
		"/v1/v1/responses":    "did you mean /v1/responses?",
		"/v2/chat/completion": "",
		// Review 62c: the Anthropic SDKs' Batches and Files calls.
		"/v1/messages/batches":              "it keeps no batches, so it does not serve the Message Batches API",
		"/v1/messages/batches/msgbatch_01x": "does not serve the Message Batches API",
		"/v1/files":                         "it keeps no files, so it does not serve the Files API",
		"/v1/files/file_011/content":        "does not serve the Files API",
		"/v1/filesystem":                    "",
		"/":                                 "",
	} {
		got := notFoundMessage(path)
		if !strings.HasPrefix(got, "unknown path "+path) || (want == "" && got != "unknown path "+path) || !strings.Contains(got, want) {
			t.Errorf("%s: %q, want it to say %q", path, got, want)
		}
	}
}
