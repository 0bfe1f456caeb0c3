package classify

import (
	"net/http"
	"testing"
	"time"
)

// Round 57's rules, from hunts 57a (coding agents' issues, a random
// sample), 57b (chat apps and gateways, a random sample) and 57d (vendors'
// own fixtures and error tables), each beside the near answers it must
// leave alone and an echo guard: the client's own words quoted back never
// steer the class. Helpers: rules56_test.go.

// (a) hunt 57a. The plural "are required" is the bad-input twin of "is
// required": the ChatGPT Codex backend's 400 {"detail":"Instructions are
// required"} (charmbracelet/crush#1795, a Responses request with no
// instructions member) read unknown (status:400). Same flags and place as
// the singular: after the model-is-required rows.
func TestRoundFiftySevenAreRequired(t *testing.T) {
	want56(t, "Codex's detail", classify56(400, `{"detail":"Instructions are required"}`, "", false), BadRequest, "phrase:are required")
	want56(t, "OpenAI envelope", classify56(400, `{"error":{"message":"Messages are required.","type":"invalid_request_error","param":null,"code":null}}`, "", false), BadRequest, "phrase:are required")
	want56(t, "the singular, as before", classify56(400, `{"detail":"Instructions is required"}`, "", false), BadRequest, "phrase:is required")
	want56(t, "a bare 400, as before", classify56(400, `{"detail":"Bad Request"}`, "", false), Unknown, "status:400")
	// A client's own words quoted back prove nothing.
	echo56(t, 400, "Instructions are required", `{"detail":"You wrote: Instructions are required"}`, Unknown)
}

// (b) hunt 57b. A spend cap's wording relayed in a 5xx is quota, as the
// balance wordings already are (phrases5xx.go): Continue's hosted proxy
// answered 500 with Anthropic's "You have reached your specified API usage
// limits. You will regain access on 2026-04-01 at 00:00 UTC." JSON-encoded
// once more (continuedev/continue#11703), and read server_error (status:500):
// the endpoint cooled briefly and the exhausted account was retried.
func TestRoundFiftySevenSpendCapIn5xx(t *testing.T) {
	inner := `{"type":"error","error":{"type":"invalid_request_error","message":"You have reached your specified API usage limits. You will regain access on 2026-04-01 at 00:00 UTC."},"request_id":"req_011CZHx9eJKk4UzjxXVhUXgB"}`
	want56(t, "Continue's proxy, a JSON string", classify56(500, `"{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"You have reached your specified API usage limits. You will regain access on 2026-04-01 at 00:00 UTC.\"},\"request_id\":\"req_011CZHx9eJKk4UzjxXVhUXgB\"}"`, "", false), Quota, "")
	want56(t, "the object at 500", classify56(500, inner, "", false), Quota, "")
	want56(t, "at 502", classify56(502, inner, "", false), Quota, "")
	want56(t, "at 400, as before", classify56(400, inner, "", false), Quota, "")
	want56(t, "regain access alone at 503", classify56(503, `{"error":{"message":"Workspace limit reached. You will regain access on 2026-05-01 at 00:00 UTC."}}`, "", false), Quota, "")
	want56(t, "a server's own failure stays", classify56(500, `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`, "", false), ServerError, "")
	// The client's own words quoted back in a 5xx make no quota.
	echo56(t, 500, "You have reached your specified API usage limits", `{"error":{"message":"failed while processing: You have reached your specified API usage limits"}}`, ServerError)
}

// (c) hunt 57d M2. Huawei MaaS's 401 ModelArts.81015 "Invalid model %s,
// rejected by api key model allowlist setting." (support.huaweicloud.com
// model-call-035: the key parsed, the model is not on its allowlist): the
// key serves its other models, so forbidden (the endpoint), not auth (the
// whole account cooled). The IP allowlist twin refuses the key from this
// gateway for every model: auth, as before.
func TestRoundFiftySevenModelAllowlist401(t *testing.T) {
	hw := func(m string) string { return `{"error_code": "ModelArts.81015", "error_msg": "` + m + `"}` }
	want56(t, "Huawei's model allowlist", classify56(401, hw("Invalid model %s, rejected by api key model allowlist setting."), "", false), Forbidden, "")
	want56(t, "a model whitelist", classify56(401, `{"error":{"message":"model deepseek-v3 is not in the model whitelist of this key","type":"invalid_request_error"}}`, "", false), Forbidden, "")
	want56(t, "the IP allowlist stays auth", classify56(401, hw("Invalid client ip %s, rejected by api key ip allowlist setting."), "", false), Auth, "")
	want56(t, "a bad key stays auth", classify56(401, `{"error":{"message":"Incorrect API key provided: sk-abc. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`, "", false), Auth, "")
	want56(t, "Huawei's 81004 stays auth (a known miss)", classify56(401, hw("Invalid request because you do not have access to it."), "", false), Auth, "")
	// The client's own words quoted back make no forbidden.
	echo56(t, 401, "rejected by api key model allowlist", hw("Invalid key; you wrote: rejected by api key model allowlist"), Auth)
}

// (d) hunt 57d M3. Qianfan v2's own example 400
// {"error":{"code":"malformed_json","message":"Invalid Argument",…}}
// (ai.baidu.com/ai-doc/WENXINWORKSHOP/Cm2y4d5ha: 入参格式有误,不是标准json格式)
// read unknown (phrase:invalid argument): the exact codes malformed_json,
// invalid_json and json_invalid say the request body is not JSON, bad input,
// ahead of the vague phrase. Groq's json_validate_failed (the model's own
// output failed validation) is not among them.
func TestRoundFiftySevenMalformedJSONCode(t *testing.T) {
	qf := func(code string) string {
		return `{"error":{"code":"` + code + `","message":"Invalid Argument","type":"invalid_request_error"},"id":"as-t2z8xi6mm8"}`
	}
	want56(t, "malformed_json", classify56(400, qf("malformed_json"), "", false), BadRequest, "code:malformed_json")
	want56(t, "invalid_json", classify56(400, qf("invalid_json"), "", false), BadRequest, "code:invalid_json")
	want56(t, "json_invalid", classify56(400, qf("json_invalid"), "", false), BadRequest, "code:json_invalid")
	want56(t, "another code stays vague", classify56(400, qf("invalid_argument_x"), "", false), Unknown, "")
	want56(t, "Groq's json_validate_failed stays", classify56(400, `{"error": {"message": "Failed to generate JSON. Please adjust your prompt. See 'failed_generation' for more details.", "type": "invalid_request_error", "code": "json_validate_failed"}}`, "", false), Unknown, "")
	// The code in the client's words, quoted back in the message, is no code.
	echo56(t, 400, "malformed_json", `{"error":{"code":null,"message":"Invalid Argument: malformed_json","type":"invalid_request_error"}}`, Unknown)
}

// (e) hunt 57d W1. A bare X-RateLimit-Reset beside X-RateLimit-Remaining: 0,
// with no Retry-After: OpenRouter's 429 (tmc/langchaingo
// llms/openai/testdata/TestOpenRouterStreaming.httprr: reset 1754667660000,
// Date Fri, 08 Aug 2025 15:40:34 GMT) waited 0 and cooled for cooldown,
// though the window reopened 26 s later. Read by magnitude: above 1e12
// epoch milliseconds, above 1e9 epoch seconds, else seconds from now; a time
// measured against Date when within dateSkew of this clock. Past, not a
// number, or an epoch beyond any credible clock is none; a long one is
// bounded as every wait is.
func TestRoundFiftySevenBareRateLimitReset(t *testing.T) {
	body := `{"error":{"message":"Rate limit exceeded: limit_rpm/meta-llama/llama-3.2-3b-instruct/e8440b11-29fb-4887-a222-eff9ba33dfbf. High demand for meta-llama/llama-3.2-3b-instruct:free on OpenRouter - limited to 1 requests per minute. Please retry shortly.","code":429,"metadata":{"headers":{"X-RateLimit-Limit":"1","X-RateLimit-Remaining":"0","X-RateLimit-Reset":"1754667660000"},"provider_name":null}},"user_id":"user_2g27FbGqkGs5rDR6kxYqEb3sJSR"}`
	base := time.Now().UTC().Truncate(time.Second)
	date := base.Format(http.TimeFormat)
	ms := func(sec int64) string { return itoa57(base.Add(time.Duration(sec) * time.Second).UnixMilli()) }
	s := func(sec int64) string { return itoa57(base.Add(time.Duration(sec) * time.Second).Unix()) }
	wantWait56(t, "epoch ms (OpenRouter)", classify56h(429, body, "", "x-ratelimit-limit", "1", "x-ratelimit-remaining", "0", "x-ratelimit-reset", ms(26), "date", date), RateLimited, 26*time.Second)
	wantWait56(t, "epoch s", classify56h(429, body, "", "x-ratelimit-remaining", "0", "x-ratelimit-reset", s(40), "date", date), RateLimited, 40*time.Second)
	wantWait56(t, "seconds from now", classify56h(429, body, "", "x-ratelimit-remaining", "0", "x-ratelimit-reset", "12"), RateLimited, 12*time.Second)
	wantWait56(t, "Retry-After first", classify56h(429, body, "", "retry-after", "7", "x-ratelimit-remaining", "0", "x-ratelimit-reset", ms(26), "date", date), RateLimited, 7*time.Second)
	wantWait56(t, "a window not spent", classify56h(429, body, "", "x-ratelimit-remaining", "3", "x-ratelimit-reset", ms(26), "date", date), RateLimited, 0)
	wantWait56(t, "no remaining header", classify56h(429, body, "", "x-ratelimit-reset", ms(26), "date", date), RateLimited, 0)
	wantWait56(t, "a reset already past", classify56h(429, body, "", "x-ratelimit-remaining", "0", "x-ratelimit-reset", ms(-30), "date", date), RateLimited, 0)
	wantWait56(t, "not a number", classify56h(429, body, "", "x-ratelimit-remaining", "0", "x-ratelimit-reset", "soon"), RateLimited, 0)
	wantWait56(t, "negative", classify56h(429, body, "", "x-ratelimit-remaining", "0", "x-ratelimit-reset", "-5"), RateLimited, 0)
	wantWait56(t, "absurd: beyond any epoch", classify56h(429, body, "", "x-ratelimit-remaining", "0", "x-ratelimit-reset", "1e300", "date", date), RateLimited, 0)
	wantWait56(t, "absurd: not finite", classify56h(429, body, "", "x-ratelimit-remaining", "0", "x-ratelimit-reset", "Inf"), RateLimited, 0)
	// A stale Date (a cache's, a day off) is not the clock: measured
	// against now, the epoch is 26 s ahead.
	if v := classify56h(429, body, "", "x-ratelimit-remaining", "0", "x-ratelimit-reset", ms(26), "date", base.Add(-24*time.Hour).Format(http.TimeFormat)); v.Class != RateLimited || v.RetryAfter < 20*time.Second || v.RetryAfter > 26*time.Second {
		t.Errorf("a stale Date: %s wait %v, want rate_limited about 26s", v.Class, v.RetryAfter)
	}
	// A day's window spent: an hour or more is an allowance (spent), as
	// every other wait hint of an hour or more is.
	if v := classify56h(429, body, "", "x-ratelimit-remaining", "0", "x-ratelimit-reset", s(5*3600), "date", date); v.Class != Quota {
		t.Errorf("a reset 5 h ahead: %s wait %v, want quota", v.Class, v.RetryAfter)
	}
	// Only a rate_limited verdict waits: a 500 with the headers stays as it was.
	if v := classify56h(500, `{"error":{"message":"Internal server error"}}`, "", "x-ratelimit-remaining", "0", "x-ratelimit-reset", ms(26), "date", date); v.RetryAfter != 0 {
		t.Errorf("a 500: wait %v, want 0", v.RetryAfter)
	}
}

func itoa57(n int64) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [24]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
