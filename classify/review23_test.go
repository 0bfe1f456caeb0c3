package classify

import (
	"net/http"
	"testing"
)

// A hostile review of the round-23 vocabulary (classify/vocab23_test.go):
// each test fails at the commit it reviews.

// TestReview23VendorFinishSeesAllContent: the vendor finish reasons
// (blocks.go, vendorFinishes) fire when f.oaiContent is false, and
// oaiContent only sees a message's content as a non-empty string (or a tool
// call). Mistral's reasoning models (Magistral, and mistral-small with
// reasoning_effort) answer with content as an array of typed chunks
// ({"type":"thinking",…}, {"type":"text",…}); Mistral documents
// "model_length" for generation stopped at the model's window (a recorded
// voxtral-small answer: prompt 32424 + completion 344 = 32768, a normal
// answer cut at the ceiling). So a whole Magistral answer, thinking and text,
// that ended on model_length is read as context_length: the client gets an
// error instead of the answer, is billed for it (countedFailure: the usage
// says 40000 tokens) and, where a larger window is declared, billed again
// for the re-run. The same for Zhipu's reasoning models: reasoning_content
// that ran the window out (model_context_window_exceeded, content ""). In a
// stream the same answer is delivered whole (internal/provider/openai/
// chunk.go counts reasoning_content as content, so the commit comes before
// the finish, which eventFailed then never classifies): the verdict should
// not depend on the stream flag. Fix: let oaiContent count what the stream
// adapter counts (a content array with any text or thinking, reasoning_content,
// reasoning, audio, images) — or, for the window finishes, require that
// completion_tokens be zero.
func TestReview23VendorFinishSeesAllContent(t *testing.T) {
	for _, c := range []struct{ name, body string }{
		{"magistral answer cut at the window", `{"id":"x","object":"chat.completion","created":1,"model":"magistral-medium-latest","choices":[{"index":0,"message":{"role":"assistant","tool_calls":null,"content":[{"type":"thinking","thinking":[{"type":"text","text":"Let me work through this step by step."}]},{"type":"text","text":"The answer is 4."}]},"finish_reason":"model_length"}],"usage":{"prompt_tokens":88,"completion_tokens":40000,"total_tokens":40088}}`},
		{"magistral text chunk only", `{"id":"x","object":"chat.completion","created":1,"model":"magistral-small-latest","choices":[{"index":0,"message":{"role":"assistant","content":[{"type":"text","text":"The answer is 4."}]},"finish_reason":"model_length"}],"usage":{"prompt_tokens":88,"completion_tokens":9,"total_tokens":97}}`},
		{"glm reasoning ran the window out", `{"id":"x","object":"chat.completion","created":1,"model":"glm-4.6","choices":[{"index":0,"message":{"role":"assistant","content":"","reasoning_content":"First, consider the constraints of the problem…"},"finish_reason":"model_context_window_exceeded"}],"usage":{"prompt_tokens":120,"completion_tokens":131000,"total_tokens":131120}}`},
	} {
		v := Classify(Response{Status: 200, Body: []byte(c.body), Request: []byte(`{"model":"m","messages":[{"role":"user","content":"2+2?"}]}`), Model: "m"})
		if v.Failed {
			t.Errorf("%s: failed as %s (%s), but content was generated: an answer cut short, not a failure", c.name, v.Class, v.Evidence)
		}
	}
}

// TestReview23SparkPerUserFlowCoolsNothing: 流量受限 (phrases.go, rate_limited)
// was taught from iFlytek Spark's 10007, "用户流量受限：服务正在处理用户当前的问题，
// 需等待处理完成后再发送新的请求（必须要等大模型完全回复之后，才能发送下一个问题）" — the
// limit is one request in flight per *user*, and the user is the one the
// request names (Spark's `user`, "用户的唯一id", which Detour passes through
// from the client: internal/provider/chat/request.go). A client that sends a
// second request under its own user before the first has finished gets
// 10007, and rate_limited cools the whole endpoint at once for `cooldown`
// (no Retry-After is sent), for every other client. Before this rule the
// answer was unknown (it failed over and cooled nothing). Fix: read a per-user
// in-flight limit as unknown (fail over, cool nothing), at least where the
// request names its user; keep the endpoint-wide limits (11202 秒级流控,
// 11203 并发流控: 流控) rate_limited.
func TestReview23SparkPerUserFlowCoolsNothing(t *testing.T) {
	cooling := []Class{RateLimited, ServerError, Timeout, Quota, Auth, Unavailable, Forbidden}
	req := `{"model":"generalv3.5","user":"client-42","messages":[{"role":"user","content":"hi"}]}`
	msg := "用户流量受限：服务正在处理用户当前的问题，需等待处理完成后再发送新的请求。（必须要等大模型完全回复之后，才能发送下一个问题）"
	runHostile(t, []hostileCase{
		{name: "spark http 10007", status: 200, body: `{"code":10007,"message":"` + msg + `","sid":"cha000b0c1f@dx18f1b4c8b6fb8f2532"}`, req: req, model: "generalv3.5", notAny: cooling},
		{name: "spark header 10007", status: 200, body: `{"header":{"code":10007,"message":"` + msg + `","sid":"cht000b0c24@dx1916602ea10b808550","status":2}}`, req: req, model: "generalv3.5", notAny: cooling},
	})
}

// TestReview23UsedAllYourWithAShortWait: "used all your" (weak quota) was
// taught from one CLOVA Studio row (403 40380 "You have used all your {max
// token count} tokens."), but the words say only that something is used up,
// and a throttle says them too ("You've used all your requests…", retry in
// 300 s; "you've used all your searches for now"). At a 429 whose own
// Retry-After and text name a one-minute wait, the phrase overrides the
// status: quota, which pages the operator and cools the whole account for
// account_cooldown, where the status (rate_limited, the verdict before this
// rule) cooled one endpoint for a minute. The period guard ("a period named
// first decides") knows "per minute" but not "this minute" nor a stated wait.
// Fix: a weak quota phrase at a 429 yields to a stated wait under an hour
// (Retry-After, "try again in …"), as "Please wait N seconds" already does;
// or teach only "used all your" followed by a number and "tokens".
func TestReview23UsedAllYourWithAShortWait(t *testing.T) {
	runHostile(t, []hostileCase{
		{name: "used all your requests this minute", status: 429, header: http.Header{"Retry-After": {"60"}},
			body: `{"error":{"message":"You have used all your requests for this minute. Please try again in 60 seconds.","code":"42900"}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, model: "m", want: RateLimited},
	})
}

// TestReview23CapacityShortIsTheServices: 容量不足 (server_error) was taught
// from Spark's 10008 "服务容量不足" (the service's capacity), but the bare
// words are any capacity: the widely followed Alibaba Java development
// manual's error table has A0604 "用户OSS容量不足" (the user's OSS storage
// full, under "user resource anomaly", beside 账户余额不足 and 用户配额已用光).
// Read as server_error, a client whose own storage is full makes every one of
// its requests a provider failure: retried, counted, and the endpoint cooled
// after failure_threshold in a row, for everyone — out of a 4xx. Fix: teach
// the service's words, 服务容量不足.
func TestReview23CapacityShortIsTheServices(t *testing.T) {
	runHostile(t, []hostileCase{
		{name: "the user's oss storage full", status: 400,
			body: `{"code":"A0604","message":"用户OSS容量不足"}`,
			req:  `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, model: "m", notAny: []Class{ServerError}},
		{name: "the user's oss storage full, openai envelope", status: 400,
			body: `{"error":{"message":"用户OSS容量不足","type":"invalid_request_error","code":"A0604"}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, model: "m", notAny: []Class{ServerError}},
	})
}
