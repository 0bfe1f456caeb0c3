package gemini

import (
	"errors"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// Build 68c: token-array input is refused as OpenAI refuses a member it
// does not take, naming input (before: a plain error, code unknown).
func TestEmbedTokensRefusesInput(t *testing.T) {
	_, err := TranslateEmbeddings(&provider.Embeddings{Tokens: true}, "text-embedding-004")
	var u *provider.Unsupported
	if !errors.As(err, &u) || u.Param != "input" || !errors.Is(err, ErrEmbedTokens) {
		t.Fatalf("%T %v", err, err)
	}
}
