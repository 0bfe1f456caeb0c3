package classify

import (
	"bytes"
	"strings"
	"testing"
)

// benchJSONError is a 2 KiB Gemini 429 (QuotaFailure, Help, RetryInfo),
// padded with more Help links to 2048 bytes.
var benchJSONError = func() []byte {
	head := `{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_input_token_count","quotaId":"GenerateContentInputTokensPerModelPerMinute-FreeTier","quotaDimensions":{"location":"global","model":"gemini-2.5-flash"},"quotaValue":"250000"}]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"26s"},{"@type":"type.googleapis.com/google.rpc.Help","links":[`
	var b strings.Builder
	b.WriteString(head)
	link := `{"description":"Learn more about Gemini API quotas","url":"https://ai.google.dev/gemini-api/docs/rate-limits"},`
	for b.Len()+len(link)+8 < 2048 {
		b.WriteString(link)
	}
	b.WriteString(`{"description":"x","url":"https://ai.google.dev"}]}]}}`)
	return []byte(b.String())
}()

// benchSuccess is a normal 2 KiB chat.completion.
var benchSuccess = func() []byte {
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 40)
	return []byte(`{"id":"chatcmpl-abc123","object":"chat.completion","created":1700000000,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"message":{"role":"assistant","content":"` +
		text + `","refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":20,"completion_tokens":400,"total_tokens":420},"system_fingerprint":"fp_1"}`)
}()

func BenchmarkStatusOnly(b *testing.B) {
	b.ReportAllocs()
	sts := []int{429, 500, 401}
	for i := 0; b.Loop(); i++ {
		if v := Classify(Response{Status: sts[i%3]}); !v.Failed {
			b.Fatal("not failed")
		}
	}
}

func BenchmarkJSONError2KiB(b *testing.B) {
	b.ReportAllocs()
	r := Response{Status: 429, Body: benchJSONError}
	for b.Loop() {
		if v := Classify(r); v.Class != RateLimited {
			b.Fatal(v)
		}
	}
}

func BenchmarkOversizedBody(b *testing.B) {
	b.ReportAllocs()
	body := bytes.Repeat([]byte("x"), 1<<20)
	copy(body, `{"error":{"type":"invalid_request_error","message":"`)
	r := Response{Status: 400, Body: body}
	for b.Loop() {
		if v := Classify(r); v.Class != Unknown {
			b.Fatal(v)
		}
	}
}

func BenchmarkSuccess2xx(b *testing.B) {
	b.ReportAllocs()
	r := Response{Status: 200, Body: benchSuccess}
	for b.Loop() {
		if v := Classify(r); v.Failed {
			b.Fatal(v)
		}
	}
}
