package classify

import (
	"strings"
	"testing"
)

// Review 64g: the corpus's known misses read again for rules that now
// hold, by what the wrong class cost: an account cooled and the operator
// paged for a second request from one address (the per-address queue at a
// 402), and a client's long prompt counted against the endpoint and
// retried there (the AI SDK's nested upstream error).

// A 402 whose words count the caller's requests in flight or queued
// against their limit: a rate, not an account that cannot pay
// (budget.go, inFlightPhrases).
func TestReview64gInFlightAtA402(t *testing.T) {
	corpus := `{"x402Version":1,"error":"Queue full for IP: [my hosting IP]: 1 requests already queued (max: 1). Get unlimited access at https://enter.pollinations.ai"}`
	want56(t, "the corpus answer", classify56(402, corpus, "", false), RateLimited, "phrase:requests already queued")
	want56(t, "a concurrency limit at a 402", classify56(402,
		`{"error":{"message":"Your current concurrency is 26, which exceeds your concurrency limit of 25 based on your remaining balance. Please top up."}}`, "", false), RateLimited, "")

	// Near: a tier, a balance, a provider's own queue stay the 402's quota.
	want56(t, "a tier", classify56(402, `{"error":"Model not found or tier not high enough. Your tier: anonymous, required tier: seed.","status":402}`, "", false), Quota, "")
	want56(t, "credits", classify56(402, `{"error":{"message":"Insufficient credits. Add more at https://example.com/credits"}}`, "", false), Quota, "")
	want56(t, "a provider's queue", classify56(402, `{"error":"request queue is full"}`, "", false), Quota, "")

	// Echo: the words quoted back from the client's own text decide
	// nothing.
	words := "1 requests already queued (max: 1)"
	want56(t, "the same words, not the client's", classify56(402, `{"error":"Payment required for: `+words+`"}`, "", false), RateLimited, "")
	echo56(t, 402, words, `{"error":"Payment required for: `+words+`"}`, Quota)
}

// The AI SDK's TypeValidationError keeps the upstream's chunk under
// error.value: its error_message there is the answer (scalar.go).
func TestReview64gTypeValidationValue(t *testing.T) {
	frame := func(value string) string {
		return `data: {"id":"gen_1","object":"chat.completion.chunk","created":1,"model":"alibaba/qwen-3-14b","error":{"code":"error","message":"Stream error occurred","name":"AI_TypeValidationError","cause":{"name":"ZodError","message":"[]"},"value":` + value + `}}` + "\n\n"
	}
	window := `{"error_type":"validation_error","error_message":"{\"error\":{\"message\":\"This model's maximum context length is 40960 tokens. However, you requested 100 output tokens and your prompt contains at least 40861 input tokens.\"}}"}`
	want56(t, "the corpus answer", classify56(200, frame(window), "", true), ContextLength, "phrase:maximum context length")

	// Near: a chunk's content under value is the model's output, and the
	// gateway's own words alone say nothing more than a stream error.
	content := `{"choices":[{"index":0,"delta":{"content":"This model's maximum context length is 40960 tokens."}}]}`
	want56(t, "the model's output", classify56(200, frame(content), "", true), ServerError, "stream:error")
	want56(t, "nothing under value", classify56(200, frame(`{}`), "", true), ServerError, "stream:error")

	// Echo: an upstream error quoting the client's own words decides
	// nothing.
	words := "maximum context length is 40960 tokens"
	want56(t, "the same words, not the client's", classify56(200, frame(`{"error_message":"Invalid prompt: `+words+`"}`), "", true), ContextLength, "")
	v := classify56(200, frame(`{"error_message":"Invalid prompt: `+words+`"}`),
		`{"model":"m","messages":[{"role":"user","content":"`+words+`"}]}`, true)
	if v.Class == ContextLength {
		t.Errorf("the client's words quoted back: %s (%s)", v.Class, v.Evidence)
	}
	if !strings.HasPrefix(v.Evidence, "stream:error") {
		t.Errorf("the client's words quoted back: %s (%s), want the stream error's", v.Class, v.Evidence)
	}
}
