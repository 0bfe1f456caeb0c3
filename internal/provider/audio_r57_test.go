package provider

import (
	"encoding/json"
	"reflect"
	"testing"
)

// OpenAI's usage says which tokens were audio (openai-go
// CompletionUsagePromptTokensDetails.AudioTokens,
// CompletionUsageCompletionTokensDetails.AudioTokens): the scan reads them
// as json.Unmarshal does, and a count that is not a whole number loses
// only itself (builder 57).
func TestParseUsageAudioBuilder57(t *testing.T) {
	for _, c := range []struct {
		raw     string
		in, out int
	}{
		{`{"prompt_tokens":20,"completion_tokens":10000,"total_tokens":10020,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},` +
			`"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":9900,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0,"text_tokens":100}}`, 0, 9900},
		{`{"prompt_tokens":300,"completion_tokens":5,"total_tokens":305,"prompt_tokens_details":{"audio_tokens":280,"cached_tokens":10}}`, 280, 0},
		{`{"prompt_tokens":300,"completion_tokens":5,"total_tokens":305,"prompt_tokens_details":{"audio_tokens":280.0},"completion_tokens_details":{"audio_tokens":"5"}}`, 280, 0},
		{`{"prompt_tokens":300,"completion_tokens":5,"total_tokens":305,"prompt_tokens_details":{"audio_tokens":null},"completion_tokens_details":null}`, 0, 0},
		{`{"prompt_tokens":300,"completion_tokens":5,"total_tokens":305,"prompt_tokens_details":{"audio_tokens":7,"cache_creation_token_details":{"ephemeral_1h_input_tokens":3}}}`, 7, 0},
	} {
		u, err := ParseUsage([]byte(c.raw))
		if err != nil {
			t.Fatalf("%s: %v", c.raw, err)
		}
		if u.AudioIn() != c.in || u.AudioOut() != c.out {
			t.Errorf("%s: audio %d in, %d out; want %d, %d", c.raw, u.AudioIn(), u.AudioOut(), c.in, c.out)
		}
		var want *Usage
		if err := json.Unmarshal(WholeCounts([]byte(c.raw)), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(u, want) {
			t.Errorf("%s: scan %+v, json.Unmarshal %+v", c.raw, u, want)
		}
	}
	if (*Usage)(nil).AudioIn() != 0 || (*Usage)(nil).AudioOut() != 0 {
		t.Error("nil usage has audio")
	}
	// Written back (a translated answer's usage), the counts are OpenAI's
	// members, and absent when 0.
	b, _ := json.Marshal(&Usage{PromptTokens: 1, PromptTokensDetails: &TokenDetails{CachedTokens: 1}, CompletionTokensDetails: &OutputDetails{AudioTokens: 4}})
	if got := string(b); got != `{"prompt_tokens":1,"completion_tokens":0,"total_tokens":0,"prompt_tokens_details":{"cached_tokens":1},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":4}}` {
		t.Errorf("marshalled %s", got)
	}
}
