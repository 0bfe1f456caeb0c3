package provider

import "testing"

// An odd value in LiteLLM's cache_creation_tokens (a float, a string, a
// number past int64) leaves the writes' total unknown, never the whole usage:
// a lost usage under-charges a client's budget (review 28e).
func TestReview28eOddCacheCreationTokensKeepsTheUsage(t *testing.T) {
	for _, raw := range []string{
		`{"prompt_tokens":100,"completion_tokens":50,"total_tokens":150,"prompt_tokens_details":{"cached_tokens":0,"cache_creation_tokens":30.0}}`,
		`{"prompt_tokens":100,"completion_tokens":50,"total_tokens":150,"prompt_tokens_details":{"cache_creation_tokens":"30"}}`,
		`{"prompt_tokens":100,"completion_tokens":50,"total_tokens":150,"prompt_tokens_details":{"cache_creation_tokens":1e30}}`,
		// The split, as odd: the same holds (it was read strictly).
		`{"prompt_tokens":100,"completion_tokens":50,"total_tokens":150,"prompt_tokens_details":{"cache_creation_token_details":"x"}}`,
		`{"prompt_tokens":100,"completion_tokens":50,"total_tokens":150,"prompt_tokens_details":{"cache_creation_token_details":{"ephemeral_1h_input_tokens":750.0}}}`,
	} {
		u, err := ParseUsage([]byte(raw))
		if err != nil || u == nil || u.PromptTokens != 100 || u.CompletionTokens != 50 {
			t.Errorf("%s: got %+v, %v; want the prompt and completion counts kept", raw, u, err)
		}
	}
}
