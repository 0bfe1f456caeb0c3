package provider

import "testing"

// review 28: LiteLLM, the relay docs/config.md names for Claude's cache
// writes in OpenAI's usage, also reports their split by lifetime, as
// prompt_tokens_details.cache_creation_token_details (BerriAI/litellm,
// tests/integration/translation/chat_completions/bases/azure_ai.py). Read
// under Detour's own name only, a LiteLLM-relayed Claude target's 1-hour
// writes cost cache_write: when that is set to the 5-minute price, 5/8 of
// what Anthropic bills for them.
func TestReview28LiteLLMSplitIsRead(t *testing.T) {
	raw := `{"completion_tokens":393,"prompt_tokens":1021,"total_tokens":1414,` +
		`"prompt_tokens_details":{"cached_tokens":0,"text_tokens":21,"cache_write_tokens":1000,"cache_creation_tokens":1000,` +
		`"cache_creation_token_details":{"ephemeral_5m_input_tokens":250,"ephemeral_1h_input_tokens":750}},` +
		`"cache_creation_input_tokens":1000,"cache_read_input_tokens":0}`
	u, err := ParseUsage([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if u.CacheWrite() != 1000 || u.CacheWrite1h() != 750 {
		t.Errorf("LiteLLM's usage: CacheWrite %d, CacheWrite1h %d; want 1000, 750", u.CacheWrite(), u.CacheWrite1h())
	}
}
