package dispatch

import (
	"encoding/json"

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
