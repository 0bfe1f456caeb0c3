package dispatch

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/provider"
)

// Hostile 52: capOutput multiplies the client's own max_tokens by its n
// with no care for overflow. max_tokens 2^62+1 with n 4 is 2^64+4, which
// wraps to 4: the whole-answer output estimate of a usage-less answer (and
// the too-large answer's output floor) is then capped at 4 tokens, whatever
// the answer held. A client's limit that large allows any output; it must
// not make the estimate smaller than the same request without it.
func TestCapOutputOverflowDoesNotShrinkTheEstimate(t *testing.T) {
	text := strings.Repeat("word ", 40000) // 200,000 bytes of text: 50,000 tokens at 4 bytes a token
	answer := []byte(`{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"` + text + `"},"finish_reason":"stop"}]}`)
	plain := []byte(`{"model":"m","n":4,"messages":[{"role":"user","content":"hi"}]}`)
	huge := []byte(`{"model":"m","n":4,"max_tokens":4611686018427387905,"messages":[{"role":"user","content":"hi"}]}`)
	want := answerOutputEstimate(answer, plain)
	got := answerOutputEstimate(answer, huge)
	if got < want {
		t.Errorf("output estimate with max_tokens 2^62+1 and n 4: %d tokens, without a limit %d: the product wrapped", got, want)
	}
	floorPlain := largeOutputFloor([]byte(`{"logprobs":true,"n":4}`), 64<<20, false)
	floorHuge := largeOutputFloor([]byte(`{"logprobs":true,"n":4,"max_tokens":4611686018427387905}`), 64<<20, false)
	if floorHuge < floorPlain {
		t.Errorf("too-large output floor with max_tokens 2^62+1 and n 4: %d tokens, without a limit %d: the product wrapped", floorHuge, floorPlain)
	}
}

// Hostile 52, after ed3cde4: isDataURL read only a string's first bytes
// ("data:" … ";base64,"), so a message text that begins with
// "data:a;base64," and goes on in plain prose — which the model reads as
// text, all of it — was one image, 1,600 tokens, however long. A data:
// URL is inline bytes only where what follows its comma is base64.
func TestProseBehindADataPrefixIsText(t *testing.T) {
	prose := "data:a;base64," + strings.Repeat("Summarise the following report in three lines. ", 8000) // ~400 KB
	req := []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"` + prose + `"}]}`)
	if got, want := inputEstimate(req), len(prose)/bytesPerToken; got < want {
		t.Errorf("input estimate of %d bytes of prose behind \"data:a;base64,\": %d tokens, want at least %d", len(prose), got, want)
	}
}

// Hostile 52: the input a stream's upstream counted before it was cut (an
// Anthropic stream's message_start counts the whole prompt) is a floor of
// the estimate: the estimate takes inline data for 1,600 tokens, and a
// plain-text document under "data" (Anthropic's text source) or a PDF of
// a hundred pages is billed as far more.
func TestEstimateKeepsTheUpstreamsInputCount(t *testing.T) {
	tgt := &config.Target{Price: &config.Price{Input: 2, Output: 8}}
	u := provider.Usage{PromptTokens: 100_000, CompletionTokens: 1}
	o := &outcome{billable: true, committed: true, usage: &u, delivered: 3}
	var a decision.Attempt
	account(&a, tgt, o, []byte(`{"messages":[{"role":"user","content":[{"type":"document","source":{"type":"text","media_type":"text/plain","data":"`+strings.Repeat("QUJD", 1000)+`"}}]}]}`), []byte(`{"messages":[{"role":"user","content":[{"type":"document","source":{"type":"text","media_type":"text/plain","data":"`+strings.Repeat("QUJD", 1000)+`"}}]}]}`))
	if e := a.Estimate; e == nil || e.InputTokens != 100_000 || e.OutputTokens != 3 {
		t.Errorf("estimate %+v, want the upstream's 100000 input tokens and the 3 events served", e)
	}
}

// Review 52: the Responses API's image_generation_call input item carries
// its image as raw base64 under "result" (OpenAI's ImageGenToolCall.result,
// "The generated image encoded in base64"): a stateless image-editing loop
// sends it back, and a client that leaves its stream was charged it by its
// bytes (~100,000 tokens for a 400 KB image) once inline data was limited
// to data and file_data.
func TestImageGenerationResultIsInlineData(t *testing.T) {
	img := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("\x89PNG\r\n\x1a\n-pixels-", 30000)))
	body := `{"model":"gpt-5","stream":true,"store":false,"tools":[{"type":"image_generation"}],"input":[` +
		`{"role":"user","content":"draw a cat"},` +
		`{"type":"image_generation_call","id":"ig_1","status":"completed","result":"` + img + `"},` +
		`{"role":"user","content":"now make it blue"}]}`
	got := inputEstimate([]byte(body))
	if got > 4*imageTokens {
		t.Errorf("inputEstimate = %d tokens for one image passed back (%d base64 bytes); one inline image is %d", got, len(img), imageTokens)
	}
}
