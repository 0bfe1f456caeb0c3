package classify

import (
	"net/http"
	"testing"
)

// A second hostile review of vocabulary round 22 (commit 4e4dac9): each
// test fails at that commit.

// TestReview22bBareQuotaExceededHidesLowerEvidence: "quota exceeded" became
// notRate, and decide drops a notRate best phrase on a 429 by setting
// best = n: not only that phrase but every phrase ranked below it is
// thrown away. Below it rank the long-period quota wordings ("N calls /
// month", "usage limit … reached / upgrade", and this round's own "usage
// quota … reset"). So adding the words "quota exceeded" to an answer that
// alone reads quota turns it into a throttle: "You have exceeded the weekly
// usage quota. It will reset at …" (Ark, pinned as quota) is quota, but
// "Usage quota exceeded. It will reset at …" is rate_limited. The account
// is not cooled and the operator not paged for an allowance spent until
// next week or month; the endpoint is retried after a short cooling, every
// request in the meantime failing over. The same wording is what gateway
// code expects from providers for a spent plan window (gateway tests
// raising RateLimitError("quota exceeded. It will reset at 2099-01-01
// 00:00:00 +0000.") to park an endpoint until the reset; a Doubao client
// mapping 'usage quota' to "Usage quota exceeded. It will reset at the
// specified time."). Suggested fix: a notRate phrase on a rate-limited
// default skips only itself (continue the pick at the next rank, as for an
// echoed phrase), not all the text's evidence.
func TestReview22bBareQuotaExceededHidesLowerEvidence(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		{name: "usage quota exceeded, resets at a date", status: 429,
			body: `{"error":{"message":"Usage quota exceeded. It will reset at 2026-01-12 00:00:00 +0800 CST.","type":"TooManyRequests"}}`,
			req:  chat, model: "m", want: Quota},
		{name: "quota exceeded, calls per month", status: 429,
			body: `{"message":"Quota exceeded: this key is limited to 1000 API calls / month."}`,
			req:  chat, model: "m", want: Quota},
		{name: "quota exceeded, usage limit reached", status: 429,
			body: `{"error":{"message":"Quota exceeded. The usage limit has been reached for your plan."}}`,
			req:  chat, model: "m", want: Quota},
	})
}

// TestReview22bFreeQuotaNamesItsPeriod: "free … quota exceeded" was added as
// a strong account phrase (phrasesaccount.go), which outranks every period
// phrase (requestPhrases), while the bare "quota exceeded" is weak and
// yields to "per minute". A free tier's per-minute cap worded with both
// ("free tier quota exceeded … requests per minute", "… 3 RPM, try again in
// 20s") is read as quota: the whole account cools for account_cooldown and
// the operator is paged for a limit that refills in seconds. Free tiers are
// mostly per-minute caps (Gemini's free tier RPM), and "free tier quota
// exceeded" is how integrators word exactly that (a FastAPI wrapper's 429:
// "Gemini API free tier quota exceeded. Please wait a few minutes …"; another
// app: "Free Tier quota exceeded; please retry in a few seconds"). DashScope's
// "Free allocated quota exceeded." names no period and stays quota.
// Suggested fix: rank the free-allowance phrases with the weak quota wording
// after the period phrases (as "exceeded your current quota" is), or let a
// short period or a Retry-After under an hour in the same answer decide.
func TestReview22bFreeQuotaNamesItsPeriod(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		{name: "free tier quota per minute", status: 429, header: http.Header{"Retry-After": {"20"}},
			body: `{"error":{"message":"Free tier quota exceeded for requests per minute. Retry in 20s."}}`,
			req:  chat, model: "m", want: RateLimited},
		{name: "free quota, RPM, try again in 20s", status: 429,
			body: `{"error":{"message":"free quota exceeded, rate limit is 3 RPM, try again in 20s","type":"rate_limit_error"}}`,
			req:  chat, model: "m", want: RateLimited},
		// Near miss, passes: no period named, a free allowance spent.
		{name: "dashscope free allocated quota stays quota", status: 429,
			body: `{"error":{"message":"Free allocated quota exceeded.","code":"Throttling.AllocationQuota"}}`,
			req:  chat, model: "m", want: Quota},
	})
}
