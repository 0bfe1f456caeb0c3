package classify

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Hostile review 29 of be2bc4c..628a0cc: the window reader (period.go) and
// vocabulary round 29. Each case failed when written.

// TestReview29WindowOutranksEverything: the window reader runs, at any 429,
// ahead of every phrase and ahead of refine's "Limit N … Requested M"
// overflow check: a minute's window anywhere in the body turns a single
// request too large for the per-minute cap (overflow: no wait helps), a
// spent balance (quota) or a bad key (auth) into rate_limited. Bodies are
// INVENTED combinations; the window sentence is the real Go limiter format
// ("rate limit exceeded: %d tokens in %s window (max %d)").
func TestReview29WindowOutranksEverything(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		{name: "one request over a per-minute token cap", status: 429,
			body: `{"error":{"message":"Request too large: Limit 30000, Requested 50000 tokens in 1m window"}}`, req: chat, model: "m", want: Overflow},
		{name: "a spent balance beside a minute's window", status: 429,
			body: `{"error":{"message":"Your credit balance is too low to access the API. Please go to Plans & Billing to upgrade or purchase credits. (rate limit: 50 requests in 1m0s window)"}}`,
			req:  chat, model: "m", want: Quota},
		{name: "a bad key beside a minute's window", status: 429,
			body: `{"error":{"message":"Invalid API key. 5 requests in 1m window"}}`, req: chat, model: "m", want: Auth},
	})
}

// TestReview29WindowEchoChecksUnbounded: windowPeriod called echoed() (a
// pass over the whole request) for every "<duration> window" in the texts,
// with no maxEchoChecks bound (pick.go bounds phrases at 8). A client whose
// 8 MiB request ends in many distinct "Nm window" tokens, quoted back by an
// upstream in a 429, cost seconds of CPU per classification (measured 4.1 s
// against 63 ms for the same body of echoed "rate limit" phrases). The
// checks are counted here, not timed. INVENTED.
func TestReview29WindowEchoChecksUnbounded(t *testing.T) {
	var tail strings.Builder
	for i := 1; tail.Len() < 3900; i++ {
		fmt.Fprintf(&tail, "%dm window ", i)
	}
	req := []byte(`{"model":"m","messages":[{"role":"user","content":"` + tail.String() + `"}]}`)
	body := []byte(`{"error":{"message":"` + tail.String() + `"}}`)
	var s scanner
	s.scanJSON(body)
	ts := textScan{f: &s.f, body: body, raw: body, req: req, model: "m", rate: true}
	if long, short := ts.windowPeriod(); long || short {
		t.Errorf("an echoed window decided: long=%v short=%v", long, short)
	}
	if ts.checks != maxEchoChecks {
		// Hundreds of echoed windows: every check counted, up to the bound.
		t.Errorf("%d echo checks counted, want the bound, %d", ts.checks, maxEchoChecks)
	}
	if v := Classify(Response{Status: 429, Body: body, Request: req, Model: "m"}); v.Class != RateLimited {
		t.Errorf("got %s (%s), want the status's rate_limited", v.Class, v.Evidence)
	}
}

// TestReview29DurationOverflow: compactDuration multiplies up to nine digits
// by a week or a day with no overflow check: "213504d" wraps to 25m26s, a
// minute's throttle; "999999999d" wraps negative and is dropped. INVENTED.
func TestReview29DurationOverflow(t *testing.T) {
	for _, tok := range []string{"213504d", "1769033w", "999999999d"} {
		_, d := durationBefore([]byte(tok+" "), len(tok))
		if d != 0 && d < 24*time.Hour {
			t.Errorf("%s read as %v", tok, d)
		}
	}
	runHostile(t, []hostileCase{
		{name: "a wrapped day count is no minute", status: 429,
			body: `{"error":{"code":429,"message":"Token quota exceeded for all models: 9/9 tokens in 213504d window","type":"quota_exceeded"}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, model: "m", want: Quota},
	})
}

// TestReview29ModelMustBeOneOfQualified: "model must be one of" (bareModel)
// skips only a field path's '.' or ']' before "model": a qualified noun
// ("Embedding model", "Agent model", "guardrail model") is another member's
// model, yet it reads as the endpoint's model gone and cools the endpoint
// for everyone. REAL wordings: "Embedding model must be one of …" (a
// vector-store API's VectorStoreRequestError, code corpus id 62162363718;
// many Pydantic validators, e.g. ids 66456308213, 11970201032); "Agent
// model must be one of: gpt-4o-mini, gpt-4o, gpt-4-turbo" (id 58710239768).
func TestReview29ModelMustBeOneOfQualified(t *testing.T) {
	rag := `{"model":"gpt-4o","embedding_model":"text-embedding-3-large","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		{name: "an embedding model's list", status: 400,
			body: `{"error":{"message":"Embedding model must be one of text-embedding-3-small, text-embedding-ada-002."}}`,
			req:  rag, model: "gpt-4o", notAny: []Class{Unavailable}},
		{name: "an agent model's list", status: 400,
			body: `{"error":{"message":"Agent model must be one of: gpt-4o-mini, gpt-4o, gpt-4-turbo"}}`,
			req:  `{"model":"gpt-4o","agent":{"model":"o3"},"messages":[{"role":"user","content":"hi"}]}`, model: "gpt-4o", notAny: []Class{Unavailable}},
	})
}

// TestReview29ModelNameCanOnlyContain: "name can only contain" is bad input
// whatever name it is said of; said of the model name, it is the model
// Detour wrote (the endpoint's configured id), as "model is required" is
// (bareModel, vague): bad_request stops the walk while other providers, that
// take the id, sit idle. REAL wording: "Model name can only contain letters,
// numbers, hyphens, and underscores" (code corpus id 44399913380; Replicate's
// rule, id 4592928186).
func TestReview29ModelNameCanOnlyContain(t *testing.T) {
	runHostile(t, []hostileCase{
		{name: "the model name's characters", status: 400,
			body: `{"error":{"message":"Model name can only contain letters, numbers, hyphens, and underscores"}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, model: "accounts/fireworks/models/llama-v3p1-8b-instruct", notAny: []Class{BadRequest}},
	})
}

// TestReview29PerRequestSpendCap: "消费上限" is read as quota for any period,
// but a per-request (单次/单笔) spending cap is one request too costly: the
// account is not spent, and paging and cooling the account is wrong. The
// relay concept is REAL (an AI relay's perPayLimit "单次消费上限", answered
// with 429, code corpus id 55735627852); the body is INVENTED.
func TestReview29PerRequestSpendCap(t *testing.T) {
	runHostile(t, []hostileCase{
		{name: "a per-request spend cap", status: 400,
			body: `{"error":{"code":"1","message":"本次请求超过单次消费上限"}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, model: "m", notAny: []Class{Quota}},
	})
}

// TestReview29WindowEchoTooNarrow: the echo check covers only
// "<duration> window" (9 bytes for "1m window"), so a client whose prompt
// holds "1m window" anywhere (a moving average's) flips LocalAI's
// one-minute throttle, whose counter the client never wrote, back to the
// weak quota_exceeded code: quota, paging the operator and cooling the
// account. INVENTED request; LocalAI's message is REAL (mudler/LocalAI
// core/http/auth/quota.go, code corpus id 52182959537).
func TestReview29WindowEchoTooNarrow(t *testing.T) {
	runHostile(t, []hostileCase{
		{name: "a prompt that says 1m window", status: 429,
			body: `{"error":{"code":429,"message":"Request quota exceeded for all models: 60/60 requests in 1m window","type":"quota_exceeded"}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":"plot the price with a 1m window moving average"}]}`, model: "m", want: RateLimited},
	})
}

// TestReview29RangeCodeIsAnyCap: outOfRange takes any "*_above_max_*" code
// as the client's bad value, at a 400; a provider's own cap in that shape
// (a usage or quota code) stops the walk. INVENTED code.
func TestReview29RangeCodeIsAnyCap(t *testing.T) {
	runHostile(t, []hostileCase{
		{name: "a usage cap code", status: 400, body: `{"error":{"message":"","code":"usage_above_max_quota"}}`,
			req: `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, model: "m", notAny: []Class{BadRequest}},
	})
}
