package chat

import "testing"

// The same in a stream's usage chunk: the chunk still reads (review 28e).
func TestReview28eOddCacheCreationTokensInAChunk(t *testing.T) {
	chunk := `{"id":"c","model":"m","choices":[],"usage":{"prompt_tokens":100,"completion_tokens":50,"total_tokens":150,"prompt_tokens_details":{"cached_tokens":0,"cache_creation_tokens":30.0}}}`
	var c StreamChunk
	if err := ReadStreamChunk([]byte(chunk), &c); err != nil {
		t.Fatalf("ReadStreamChunk: %v", err)
	}
	if c.Usage == nil || c.Usage.CompletionTokens != 50 {
		t.Errorf("usage %+v, want the completion tokens kept", c.Usage)
	}
}
