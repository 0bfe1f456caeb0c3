package provider

import (
	"encoding/json"
	"reflect"
	"testing"
)

var usageCases = []string{
	`{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}`,
	`{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7,"prompt_tokens_details":{"cached_tokens":2,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":1}}`,
	// OpenRouter's cache writes (https://openrouter.ai/docs/use-cases/usage-accounting)
	// and LiteLLM's (https://litellm.vercel.app/docs/completion/prompt_caching).
	`{"completion_tokens":2,"completion_tokens_details":{"reasoning_tokens":0},"cost":0.95,"cost_details":{"upstream_inference_cost":19},"prompt_tokens":194,"prompt_tokens_details":{"cached_tokens":0,"cache_write_tokens":100,"audio_tokens":0},"total_tokens":196}`,
	`{"prompt_tokens":2006,"completion_tokens":300,"total_tokens":2306,"prompt_tokens_details":{"cached_tokens":1920},"completion_tokens_details":{"reasoning_tokens":0},"cache_creation_input_tokens":0}`,
	`{"prompt_tokens":30,"cache_creation_input_tokens":20,"prompt_tokens_details":{"cache_write_tokens":null}}`,
	// The writes split by the cache's lifetime, as LiteLLM reports a
	// relayed Claude answer's (BerriAI/litellm,
	// tests/integration/translation/chat_completions/bases/azure_ai.py) and
	// a translated one says it: left to encoding/json.
	`{"prompt_tokens":1021,"completion_tokens":393,"total_tokens":1414,"prompt_tokens_details":{"cached_tokens":0,"cache_write_tokens":1000,"cache_creation_token_details":{"ephemeral_5m_input_tokens":250,"ephemeral_1h_input_tokens":750}}}`,
	`{"prompt_tokens_details":{"cached_tokens":1,"cache_creation_token_details":null}}`,
	// LiteLLM's name for the writes' total inside the details (a
	// LiteLLM-compatible proxy's cache-billing fixture, review 28d).
	`{"prompt_tokens":200,"completion_tokens":50,"total_tokens":250,"prompt_tokens_details":{"cached_tokens":80,"cache_creation_tokens":30}}`,
	`{"prompt_tokens_details":{"cache_creation_tokens":30,"cache_creation_token_details":{"ephemeral_5m_input_tokens":10,"ephemeral_1h_input_tokens":20}}}`,
	`{"prompt_tokens_details":{"cache_creation_tokens":1,"cache_creation_tokens":2}}`,
	`{"prompt_tokens":100,"prompt_tokens_details":{"cache_creation_tokens":30.0}}`,
	`{"prompt_tokens":100,"prompt_tokens_details":{"cache_creation_tokens":"30"}}`,
	`{"prompt_tokens":100,"prompt_tokens_details":{"cache_creation_tokens":1e30}}`,
	`{"prompt_tokens_details":{"cache_creation_token_details":7}}`,
	`{"prompt_tokens":null,"prompt_tokens_details":null}`,
	`{"prompt_tokens_details":{"cached_tokens":null}}`,
	`{"total_tokens":-5}`,
	`{}`,
	`null`,
	// Left to encoding/json.
	`{"Prompt_Tokens":3}`,
	`{"prompt_tokens":3,"prompt_tokens":4}`,
	`{"prompt_t\u006fkens":3}`,
	`{"prompt_tokens":3.0}`,
	`{"prompt_tokens":1e3}`,
	`{"prompt_tokens":"3"}`,
	`{"prompt_tokens":99999999999999999999}`,
	`{"prompt_tokens_details":[1]}`,
	`{"prompt_tokens_details":{"CACHED_TOKENS":1}}`,
	`{"prompt_tokens_details":{"cached_tokens":1,"cached_tokens":2}}`,
	`{"prompt_tokens_details":{"cache_write_tokens":1,"cache_write_tokens":2}}`,
	`{"prompt_tokens_details":{"Cache_Write_Tokens":1}}`,
	`{"prompt_tokens_details":{"cache_creation_token_details":null,"cache_creation_token_details":{"ephemeral_1h_input_tokens":2}}}`,
	`{"cache_creation_input_tokens":1,"cache_creation_input_tokens":2}`,
	`{"cache_creation_input_tokens":"1"}`,
	`[1]`,
	`"x"`,
	`7`,
}

// TestParseUsageReadsAsUnmarshal: the scan reads usage as json.Unmarshal
// does once its counts are whole (WholeCounts; the figures billed and
// metered depend on it).
func TestParseUsageReadsAsUnmarshal(t *testing.T) {
	for _, c := range usageCases {
		checkUsage(t, c)
	}
}

func FuzzParseUsage(f *testing.F) {
	for _, c := range usageCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, c string) {
		if !json.Valid([]byte(c)) {
			return // callers pass members of bodies already checked
		}
		checkUsage(t, c)
	})
}

func checkUsage(t *testing.T, c string) {
	t.Helper()
	var want *Usage
	wantErr := json.Unmarshal(WholeCounts([]byte(c)), &want)
	if wantErr != nil {
		want = nil
	}
	got, err := ParseUsage([]byte(c))
	if (err != nil) != (wantErr != nil) || !reflect.DeepEqual(got, want) {
		t.Errorf("ParseUsage(%s) = %+v, %v; json.Unmarshal: %+v, %v", c, got, err, want, wantErr)
	}
}

// Cache writes are read under either name a relay gives them: OpenRouter's
// prompt_tokens_details.cache_write_tokens, LiteLLM's top-level
// cache_creation_input_tokens.
func TestCacheWrite(t *testing.T) {
	for raw, want := range map[string]int{
		`{"prompt_tokens":194,"prompt_tokens_details":{"cached_tokens":0,"cache_write_tokens":100,"audio_tokens":0}}`: 100,
		`{"prompt_tokens":2006,"prompt_tokens_details":{"cached_tokens":1920},"cache_creation_input_tokens":86}`:      86,
		`{"prompt_tokens":3,"prompt_tokens_details":{"cached_tokens":2}}`:                                             0,
		`null`: 0,
	} {
		u, err := ParseUsage([]byte(raw))
		if err != nil || u.CacheWrite() != want {
			t.Errorf("%s: CacheWrite() = %d, %v; want %d", raw, u.CacheWrite(), err, want)
		}
	}
}
