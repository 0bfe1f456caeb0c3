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

// BenchmarkOversizedBody: a 1 MiB 400 whose error object is followed by an
// echoed request carrying a base64 image, as vendors that echo input send:
// only the first 4 KiB are read.
func BenchmarkOversizedBody(b *testing.B) {
	b.ReportAllocs()
	body := []byte(`{"error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the API. Please go to Plans & Billing to upgrade or purchase credits."},"request":{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,`)
	body = append(body, bytes.Repeat([]byte("iVBORw0KGgoAAAANSUhEUgAA"), (1<<20)/24)...)
	r := Response{Status: 400, Body: body}
	for b.Loop() {
		if v := Classify(r); v.Class != Quota {
			b.Fatal(v)
		}
	}
}

// BenchmarkOversizedProse is the worst case for phrase matching: a 1 MiB
// error whose message is prose made of the very words vendor errors use
// ("request", "not", "could", "process"…), so every word start meets
// candidate phrases over the whole 4 KiB.
func BenchmarkOversizedProse(b *testing.B) {
	b.ReportAllocs()
	prose := []byte("The service could not process this payload; please review the request and retry later. ")
	body := append([]byte(`{"error":{"type":"invalid_request_error","message":"`), bytes.Repeat(prose, (1<<20)/len(prose))...)
	r := Response{Status: 400, Body: body}
	for b.Loop() {
		if v := Classify(r); v.Class != Unknown {
			b.Fatal(v)
		}
	}
}

// BenchmarkOversizedHTML5xx: a 1 MiB HTML 502 page (timeout wording searched
// in its first 4 KiB only).
func BenchmarkOversizedHTML5xx(b *testing.B) {
	b.ReportAllocs()
	page := []byte("<div class=\"cf-error\"><p>The web server reported a bad gateway error.</p></div>\n")
	body := append([]byte("<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>"), bytes.Repeat(page, (1<<20)/len(page))...)
	r := Response{Status: 502, Body: body}
	for b.Loop() {
		if v := Classify(r); v.Class != ServerError {
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

// BenchmarkEchoedPhrase: a 400 quoting the client's role back (OpenAI's
// older wording, no param), the quoted quota wording at the end of a 16 KiB
// request: one phrase found, one echo check over the whole request, the
// verdict from the status.
func BenchmarkEchoedPhrase(b *testing.B) {
	b.ReportAllocs()
	req := []byte(`{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("Lorem ipsum dolor sit amet. ", 585) +
		`"},{"role":"You exceeded your current quota","content":"hi"}]}`)
	r := Response{Status: 400, Request: req,
		Body: []byte(`{"error":{"message":"'You exceeded your current quota' is not one of ['system', 'assistant', 'user', 'function'] - 'messages.1.role'","type":"invalid_request_error","param":null,"code":null}}`)}
	for b.Loop() {
		if v := Classify(r); v.Class != Unknown {
			b.Fatal(v)
		}
	}
}

// BenchmarkSuccess2xxEscaped: a 3 KiB chat.completion whose text has an
// escape every few dozen bytes (quotes, newlines), as a long answer has:
// every 2xx is classified (an error may hide in a 200).
func BenchmarkSuccess2xxEscaped(b *testing.B) {
	b.ReportAllocs()
	text := strings.Repeat(`The quick brown fox jumps over the lazy dog, \"quoted\" and \n escaped. `, 40)
	body := []byte(`{"id":"chatcmpl-1","object":"chat.completion","created":1764489600,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"` +
		text + `"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}`)
	r := Response{Status: 200, Body: body, Dialect: OpenAI}
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if v := Classify(r); v.Failed {
			b.Fatal(v)
		}
	}
}
