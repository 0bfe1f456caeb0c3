package classify

import "testing"

// Round 53's rules of hunt 53f (money and account-state wording), each
// beside the near answers it must leave alone and an echo guard: the
// client's own words quoted back never steer the class.

// A free allowance spent, worded "free usage" (hunt 53f: OpenCode Zen's 429
// {"type":"error","error":{"type":"FreeUsageLimitError","message":"Free
// usage exceeded"}} with no Retry-After; corpus
// opencode-zen-429-freeusagelimiterror-free-usage-exceeded) is quota, as
// "Free allocated quota exceeded" and "free trial quota" are. Weak: a
// minute's or a second's wording, or a Retry-After under an hour, beside it
// still makes it a throttle; and after the hourly reset, so Hugging Face's
// "You reached free usage limit (reset hourly)" stays rate_limited.
func TestRoundFiftyThreeCFreeUsage(t *testing.T) {
	zen := `{"type":"error","error":{"type":"FreeUsageLimitError","message":"Free usage exceeded"}}`
	run(t, []tc{
		{"OpenCode Zen's free usage at 429", 429, nil, zen, false, "quota", "phrase:free usage…exceeded"},
		{"the same at 403", 403, nil, zen, false, "quota", "phrase:free usage…exceeded"},
		{"free usage exhausted", 429, nil, `{"error":{"message":"Your free usage has been exhausted. Subscribe to continue."}}`, false, "quota", "phrase:free usage…exhausted"},
		{"free usage used up", 429, nil, `{"error":{"message":"You have used up your free usage for this model"}}`, false, "quota", ""},
		{"free usage quota used up", 429, nil, `{"error":{"message":"Free usage quota used up"}}`, false, "quota", "phrase:free usage…used up"},
		{"an hour's wait keeps it quota", 429, map[string]string{"Retry-After": "7200"}, zen, false, "quota", ""},

		// Near answers: an hourly reset (Hugging Face), a minute's or a
		// second's wording, a short Retry-After, and the words in two
		// sentences stay a throttle.
		{"Hugging Face's hourly free limit stays rate_limited", 429, nil, `{"error":"You reached free usage limit (reset hourly). Please subscribe to a plan at https://huggingface.co/pricing to use the API at this rate"}`, false, "rate_limited", "phrase:reset hourly"},
		{"a minute's free usage stays rate_limited", 429, nil, `{"error":{"message":"Free usage exceeded for this minute"}}`, false, "rate_limited", ""},
		{"a free usage with seconds to wait stays rate_limited", 429, nil, `{"error":{"message":"Free usage exceeded, retry after 30 seconds"}}`, false, "rate_limited", ""},
		{"a short Retry-After keeps the throttle", 429, map[string]string{"Retry-After": "30"}, zen, false, "rate_limited", ""},
		{"the words in two sentences stay silent", 429, nil, `{"error":{"message":"This key has free usage. Request rate exceeded."}}`, false, "rate_limited", ""},
	})
	echoGuard(t, "why is free usage exceeded", 429)
}

// A limit's window named as an identifier member (hunt 53f: a GLM
// coding-plan relay's 429 {"error":"usage limit exceeded","window_type":
// "five_hour"}; corpus zhima-429-usage-limit-exceeded-window-type-five-hour)
// is read as its prose is: "5 hour usage limit", "daily limit", "weekly
// limit", "monthly limit" and a total allowance are quota; a minute's or a
// second's window is rate_limited. Only beside limit, usage or quota words,
// and only a string value of the few window names.
func TestRoundFiftyThreeCWindowMember(t *testing.T) {
	run(t, []tc{
		{"zhima's five_hour window", 429, nil, `{"error":"usage limit exceeded","window_type":"five_hour"}`, false, "quota", "window-member:long"},
		{"its sibling total", 429, nil, `{"error":"usage limit exceeded","window_type":"total"}`, false, "quota", "window-member:long"},
		{"a daily window", 429, nil, `{"error":"usage limit exceeded","window_type":"daily"}`, false, "quota", "window-member:long"},
		{"a weekly window", 429, nil, `{"error":"usage limit exceeded","window_type":"weekly"}`, false, "quota", "window-member:long"},
		{"a monthly window under error", 429, nil, `{"error":{"message":"Usage limit exceeded","limit_window":"monthly"}}`, false, "quota", "window-member:long"},
		{"OpenCode Go's limitName in metadata", 429, nil, `{"type":"error","error":{"type":"GoUsageLimitError","message":"Subscription quota exceeded. You can continue using free models."},"metadata":{"limitName":"5 hour"}}`, false, "quota", "window-member:long"},
		{"a seven_day rateLimitType", 429, nil, `{"error":{"message":"rate limit reached","rateLimitType":"seven_day"}}`, false, "quota", "window-member:long"},
		{"a plan window whatever shorter wait, as its prose", 429, map[string]string{"Retry-After": "900"}, `{"error":"usage limit exceeded","window_type":"five_hour"}`, false, "quota", "window-member:long"},
		{"a minute window is a throttle", 429, nil, `{"error":"usage limit exceeded","window_type":"minute"}`, false, "rate_limited", "window-member:minutes-or-seconds"},

		// Near answers: no limit words beside it, a window member that is a
		// context window's number, an unknown value, a window the words
		// already place.
		{"no limit words stay silent", 429, nil, `{"error":"too many requests","window_type":"daily"}`, false, "rate_limited", "phrase:too many requests"},
		{"a context window's number stays silent", 429, nil, `{"error":{"message":"usage limit exceeded","window":128000}}`, false, "rate_limited", "status:429"},
		{"an unknown window value stays silent", 429, nil, `{"error":"usage limit exceeded","window_type":"sliding"}`, false, "rate_limited", "status:429"},
		{"a per-minute wording beside a daily member: the words", 429, nil, `{"error":"usage limit exceeded: 60 requests per minute","window_type":"daily"}`, false, "rate_limited", ""},
	})
	// Echo guard: a window value the client sent is not the limit's.
	req := `{"model":"m","messages":[{"role":"user","content":"usage limit exceeded five_hour"}]}`
	echoBody := `{"error":"Content check failed: usage limit exceeded five_hour"}`
	if v := Classify(Response{Status: 429, Body: []byte(echoBody), Request: []byte(req), Model: "m"}); v.Class == Quota {
		t.Errorf("the client's window words quoted back: %s (%s)", v.Class, v.Evidence)
	}
}

// A balance short in Korean (잔액 부족, 잔액이 부족합니다) is quota at any
// status, as the Japanese 残高不足 is: a balance is never per-minute. The
// quota-short words (할당량 부족) stay weak and passed over at a 429, since
// new-api's ko locale words per-minute quotas that way too.
func TestRoundFiftyThreeCKoreanBalance(t *testing.T) {
	run(t, []tc{
		{"잔액이 부족합니다 at 429", 429, nil, `{"error":{"message":"잔액이 부족합니다"}}`, false, "quota", "phrase:잔액이 부족"},
		{"잔액 부족 at 429", 429, nil, `{"error":{"message":"계정 잔액 부족"}}`, false, "quota", "phrase:잔액 부족"},
		{"잔액이 부족합니다 at 403", 403, nil, `{"error":{"message":"잔액이 부족합니다"}}`, false, "quota", "phrase:잔액이 부족"},
		{"the Japanese balance, as before", 429, nil, `{"error":{"message":"残高が不足しています"}}`, false, "quota", "phrase:残高が不足"},

		// Near answers: the quota-short words stay passed over at a 429.
		{"할당량이 부족합니다 at 429 stays a throttle", 429, nil, `{"error":{"message":"할당량이 부족합니다"}}`, false, "rate_limited", "status:429"},
		{"할당량이 부족합니다 at 403 stays quota", 403, nil, `{"error":{"message":"할당량이 부족합니다"}}`, false, "quota", ""},
	})
	echoGuard(t, "잔액이 부족합니다 뜻", 429)
}

// echoGuard checks that the client's words quoted back in a Content-check
// body decide nothing: the answer at status is not quota.
func echoGuard(t *testing.T, quote string, status int) {
	t.Helper()
	req := `{"model":"m","messages":[{"role":"user","content":"` + quote + `"}]}`
	body := `{"error":{"message":"Content check failed: ` + quote + `"}}`
	if v := Classify(Response{Status: status, Body: []byte(body), Request: []byte(req), Model: "m"}); v.Class == Quota {
		t.Errorf("the client's words %q quoted back at %d: %s (%s)", quote, status, v.Class, v.Evidence)
	}
}
