package dispatch

import (
	"encoding/json"
	"strings"

	"github.com/detour-llm/detour/internal/provider"
)

// answerUsage reads the usage of a whole OpenAI chat.completion answer, nil
// when it has none, so a plain answer's attempt records its tokens as a
// stream's does.
func answerUsage(answer []byte) *provider.Usage {
	var a struct {
		Usage *provider.Usage `json:"usage"`
	}
	if json.Unmarshal(answer, &a) != nil {
		return nil
	}
	return a.Usage
}

// redact removes the provider's own key from an upstream message before it
// is recorded: some upstreams echo the credential they were sent.
func redact(msg, key string) string {
	if key == "" {
		return msg
	}
	return strings.ReplaceAll(msg, key, "[key]")
}
