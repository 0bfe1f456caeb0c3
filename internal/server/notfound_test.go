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
		"/":                   "",
	} {
		got := notFoundMessage(path)
		if !strings.HasPrefix(got, "unknown path "+path) || (want == "" && strings.Contains(got, "did you mean")) || !strings.Contains(got, want) {
			t.Errorf("%s: %q, want it to say %q", path, got, want)
		}
	}
}
