package gemini

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// Gemini counts a prompt's and the candidates' tokens by modality
// (usageMetadata.promptTokensDetails, cacheTokensDetails,
// candidatesTokensDetails: ModalityTokenCount{modality, tokenCount},
// https://docs.cloud.google.com/vertex-ai/docs/reference/rest/v1beta1/ModalityTokenCount),
// and prices audio input apart from text. The translated usage says the
// uncached audio as OpenAI does (prompt_tokens_details.audio_tokens,
// completion_tokens_details.audio_tokens), for the gateway's cost; a list
// it cannot read counts no audio and loses nothing else (builder 57).
func TestUsageAudioByModalityBuilder57(t *testing.T) {
	body := `{"candidates":[{"content":{"role":"model","parts":[{"text":"It is a dog barking."}]},"finishReason":"STOP","index":0}],` +
		`"usageMetadata":{"promptTokenCount":1530,"candidatesTokenCount":7,"totalTokenCount":1537,"cachedContentTokenCount":800,` +
		`"promptTokensDetails":[{"modality":"TEXT","tokenCount":30},{"modality":"AUDIO","tokenCount":1500}],` +
		`"cacheTokensDetails":[{"modality":"AUDIO","tokenCount":800}],` +
		`"candidatesTokensDetails":[{"modality":"TEXT","tokenCount":7}]},"modelVersion":"gemini-2.5-flash"}`
	out, err := Adapter{}.Response([]byte(body), provider.Endpoint{Model: "gemini-2.5-flash"})
	if err != nil {
		t.Fatal(err)
	}
	var r struct{ Usage *provider.Usage }
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	if r.Usage.AudioIn() != 700 || r.Usage.AudioOut() != 0 || r.Usage.Cached() != 800 {
		t.Errorf("usage %s: audio in %d (want 700: 1500 less the 800 cached), out %d, cached %d", out, r.Usage.AudioIn(), r.Usage.AudioOut(), r.Usage.Cached())
	}
	if !strings.Contains(string(out), `"prompt_tokens_details":{"cached_tokens":800,"audio_tokens":700}`) {
		t.Errorf("translated usage: %s", out)
	}
	for _, c := range []struct {
		raw     string
		in, out int
	}{
		{`{"promptTokenCount":10,"candidatesTokenCount":900,"candidatesTokensDetails":[{"modality":"AUDIO","tokenCount":880.0},{"modality":"TEXT","tokenCount":20}]}`, 0, 880},
		{`{"promptTokenCount":10,"candidatesTokenCount":9,"promptTokensDetails":"AUDIO","candidatesTokensDetails":[{"modality":1,"tokenCount":5}]}`, 0, 0},
		{`{"promptTokenCount":10,"candidatesTokenCount":9,"promptTokensDetails":[{"modality":"AUDIO","tokenCount":"5"}],"cacheTokensDetails":[{"modality":"AUDIO","tokenCount":50}]}`, 0, 0},
	} {
		var m usageMetadata
		if err := json.Unmarshal([]byte(c.raw), &m); err != nil {
			t.Fatalf("%s: %v", c.raw, err)
		}
		u := m.usage()
		if u.AudioIn() != c.in || u.AudioOut() != c.out || u.PromptTokens != 10 {
			t.Errorf("%s: audio %d in, %d out, prompt %d; want %d, %d, 10", c.raw, u.AudioIn(), u.AudioOut(), u.PromptTokens, c.in, c.out)
		}
	}
}
