package decision

import (
	"encoding/json"
	"testing"
)

// Audio's parts stay within the plain input and the output whatever the
// counts say, and the record writes them only when not 0 (builder 57).
func TestUsageAudioBuilder57(t *testing.T) {
	for _, c := range []struct {
		u       Usage
		in, out int
	}{
		{Usage{PromptTokens: 100, CompletionTokens: 50, AudioInputTokens: 40, AudioOutputTokens: 30}, 40, 30},
		{Usage{PromptTokens: 100, CachedTokens: 80, AudioInputTokens: 40}, 20, 0},
		{Usage{PromptTokens: 100, CompletionTokens: 10, AudioInputTokens: 400, AudioOutputTokens: 90}, 100, 10},
		{Usage{PromptTokens: 100, CompletionTokens: 10, AudioInputTokens: -4, AudioOutputTokens: -9}, 0, 0},
		{Usage{PromptTokens: -1, CompletionTokens: -1, AudioInputTokens: 4, AudioOutputTokens: 9}, 0, 0},
	} {
		if in, out := c.u.Audio(); in != c.in || out != c.out {
			t.Errorf("%+v: Audio() = %d, %d, want %d, %d", c.u, in, out, c.in, c.out)
		}
	}
	u := Usage{PromptTokens: 1, AudioInputTokens: 2}
	u.Add(Usage{AudioInputTokens: 3, AudioOutputTokens: 4})
	if u.AudioInputTokens != 5 || u.AudioOutputTokens != 4 {
		t.Errorf("Add: %+v", u)
	}
	for _, u := range []Usage{{PromptTokens: 20, CompletionTokens: 10000, TotalTokens: 10020, AudioOutputTokens: 9900}, {PromptTokens: 1}} {
		got := string(appendUsage(nil, &u))
		want, _ := json.Marshal(&u)
		if got != string(want) {
			t.Errorf("appendUsage = %s, json.Marshal %s", got, want)
		}
	}
	if got := string(appendUsage(nil, &Usage{AudioOutputTokens: 9900})); got != `{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0,"audio_output_tokens":9900}` {
		t.Errorf("appendUsage = %s", got)
	}
}
