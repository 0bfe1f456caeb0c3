package classify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

type tc struct {
	name   string
	status int
	hdr    map[string]string
	body   string
	stream bool
	class  string // "ok" for success
	ev     string // expected evidence ("" = any non-empty)
}

func run(t *testing.T, cases []tc) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range c.hdr {
				h.Set(k, v)
			}
			v := Classify(Response{Status: c.status, Header: h, Body: []byte(c.body), Stream: c.stream})
			got := "ok"
			if v.Failed {
				got = v.Class.String()
				if v.Evidence == "" {
					t.Errorf("empty evidence")
				}
			}
			if got != c.class {
				t.Errorf("class %s (evidence %q), want %s", got, v.Evidence, c.class)
			}
			if c.ev != "" && v.Evidence != c.ev {
				t.Errorf("evidence %q, want %q", v.Evidence, c.ev)
			}
		})
	}
}

func TestOpenAIStyle(t *testing.T) {
	run(t, []tc{
		{"insufficient_quota 429", 429, nil, `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`, false, "quota", "code:insufficient_quota"},
		{"rate limit 429", 429, nil, `{"error":{"message":"Rate limit reached for gpt-4o in organization org-x on requests per min (RPM): Limit 3, Used 3, Requested 1.","type":"requests","code":"rate_limit_exceeded"}}`, false, "rate_limited", ""},
		{"TPM too large", 429, nil, `{"error":{"message":"Request too large for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Requested 50000.","type":"tokens","code":"rate_limit_exceeded"}}`, false, "overflow", "phrase:request too large"},
		{"daily", 429, nil, `{"error":{"message":"Rate limit reached for model on requests per day (RPD): Limit 200, Used 200, Requested 1.","code":"rate_limit_exceeded"}}`, false, "quota", ""},
		{"model_not_found 404", 404, nil, `{"error":{"message":"The model x does not exist","code":"model_not_found"}}`, false, "unavailable", "code:model_not_found"},
		{"model_not_found 403", 403, nil, `{"error":{"message":"The model gpt-9 does not exist","code":"model_not_found"}}`, false, "unavailable", "code:model_not_found"},
		{"model_not_found 403 no access", 403, nil, `{"error":{"message":"Project proj_x does not have access to model gpt-4o","code":"model_not_found"}}`, false, "forbidden", "phrase:does not have access to model"},
		{"throttle too many tokens", 429, map[string]string{"X-Amzn-Errortype": "ThrottlingException"}, `{"message":"Too many tokens, please wait."}`, false, "rate_limited", "bedrock:throttlingexception"},
		// A client's own identifiers never read as money or gone models: no
		// client can cool an account by naming a tool check_billing.
		{"client tool named billing", 400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"tool_choice.name: Tool 'check_billing' not found in provided tools"}}`, false, "bad_request", "phrase:not found in…tool"},
		{"client schema named per_day", 400, nil, `{"error":{"message":"Invalid schema for response_format 'per_day_report': bad","type":"invalid_request_error","param":"response_format","code":null}}`, false, "bad_request", "phrase:invalid schema"},
		{"gemini long schema path", 400, nil, `{"error":{"code":400,"message":"* GenerateContentRequest.tools[0].function_declarations[0].parameters.properties[billing_address].items: missing field.","status":"INVALID_ARGUMENT"}}`, false, "bad_request", "phrase:missing…field"},
		{"gemini long schema path, no phrase", 400, nil, `{"error":{"code":400,"message":"* GenerateContentRequest.tools[0].function_declarations[0].parameters.properties[billing_address].items: unexpected token.","status":"INVALID_ARGUMENT"}}`, false, "bad_request", "message:field-path"},
		{"no endpoint for a capability", 404, nil, `{"error":{"message":"No endpoints found that support image input","code":404}}`, false, "unknown", "phrase:no endpoints found that support"},
		{"no endpoints for a retired model", 404, nil, `{"error":{"message":"No endpoints found for x-ai/grok-4-fast:free.","code":404}}`, false, "unavailable", "phrase:no endpoints found"},
		// A capability the model lacks is not proven bad input, and a generic
		// provider-failure type in a 4xx does not make the client's request a
		// server error that would count against the endpoint.
		{"capability the model lacks", 400, nil, `{"error":{"message":"Tool calling is not supported for this model."}}`, false, "unknown", "phrase:is not supported"},
		{"api_error type in a 400", 400, nil, `{"error":{"message":"something the provider did not like","type":"api_error","param":null,"code":null}}`, false, "unknown", "status:400"},
		{"api_error type in a 500", 500, nil, `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`, false, "server_error", ""},
		// A word that often names bad input is not evidence by itself.
		{"unplaced 400 saying expected", 400, nil, `{"error":{"message":"Something went wrong, expected behaviour unknown"}}`, false, "unknown", "status:400"},
		{"too many tokens as 400", 400, nil, `{"message":"Too many tokens in the prompt."}`, false, "context_length", "phrase:too many tokens"},
		{"retry after a day", 429, map[string]string{"Retry-After": "86400"}, ``, false, "quota", "retry-after>=1h"},
		{"retry after a day in words", 429, nil, `{"error":{"code":"429","message":"Please retry after 86400 seconds."}}`, false, "quota", "retry-after>=1h"},
		{"invalid key 401", 401, nil, `{"error":{"code":"invalid_api_key"}}`, false, "auth", "status:401"},
		{"incorrect key as 400", 400, nil, `{"error":{"message":"Incorrect API key provided: sk-***"}}`, false, "auth", "phrase:incorrect api key provided"},
		{"param names input", 400, nil, `{"error":{"message":"Invalid type for 'temperature'","type":"invalid_request_error","param":"temperature","code":null}}`, false, "bad_request", ""},
		{"param only", 400, nil, `{"error":{"message":"Nope.","type":"invalid_request_error","param":"temperature","code":null}}`, false, "bad_request", "openai:param"},
		{"unplaced 400", 400, nil, `{"error":{"message":"Something odd happened.","type":"invalid_request_error","param":null,"code":null}}`, false, "unknown", "status:400"},
		{"unplaced 422", 422, nil, `{"detail":"nope"}`, false, "unknown", "status:422"},
		{"context", 400, nil, `{"error":{"message":"This model's maximum context length is 8192 tokens.","code":"context_length_exceeded"}}`, false, "context_length", "code:context_length_exceeded"},
		{"content_filter", 400, nil, `{"error":{"message":"filtered","code":"content_filter","innererror":{"code":"ResponsibleAIPolicyViolation"}}}`, false, "refusal", "code:content_filter"},
		{"azure deployment", 404, nil, `{"error":{"code":"DeploymentNotFound","message":"The API deployment for this resource does not exist."}}`, false, "unavailable", "code:deploymentnotfound"},
		{"vllm object error", 400, nil, `{"object":"error","message":"The model llama does not exist.","type":"NotFoundError","param":null,"code":404}`, false, "unavailable", ""},
		{"ollama string", 404, nil, `{"error":"model 'llama3' not found, try pulling it first"}`, false, "unavailable", ""},
		{"deepseek 402", 402, nil, `{"error":{"message":"Insufficient Balance","type":"unknown_error"}}`, false, "quota", "status:402"},
		{"deepseek balance as 400", 400, nil, `{"error":{"message":"Insufficient Balance","type":"unknown_error"}}`, false, "quota", "phrase:insufficient balance"},
		{"openrouter 402 in 200", 200, nil, `{"error":{"code":402,"message":"Insufficient credits","metadata":{}}}`, false, "quota", "code:402"},
		{"openrouter 502 in 200", 200, nil, `{"error":{"code":502,"message":"Provider returned error"}}`, false, "server_error", "code:502"},
		{"openrouter 429 in 200 with raw", 200, nil, `{"error":{"code":429,"message":"Provider returned error","metadata":{"raw":"google/gemini is temporarily rate-limited upstream"}}}`, false, "rate_limited", ""},
		{"no endpoints 404", 404, nil, `{"error":{"message":"No endpoints found for x:free.","code":404}}`, false, "unavailable", ""},
		{"no endpoints as 400", 400, nil, `{"error":{"message":"No endpoints found for x:free.","code":400}}`, false, "unavailable", "phrase:no endpoints found"},
		{"data policy 404", 404, nil, `{"error":{"message":"No endpoints found matching your data policy","code":404}}`, false, "forbidden", "phrase:data policy"},
		{"wrong URL 404", 404, nil, `{"error":{"message":"Invalid URL (POST /v1/chat/completion)","type":"invalid_request_error"}}`, false, "unavailable", "status:404"},
		{"413 context", 413, nil, `{"error":{"message":"Prompt exceeds the model's context window"}}`, false, "context_length", ""},
		{"413 plain", 413, nil, `<html>Request Entity Too Large</html>`, false, "overflow", ""},
		{"403 region", 403, nil, `{"error":{"code":"unsupported_country_region_territory","message":"Country, region, or territory not supported"}}`, false, "forbidden", ""},
		{"403 spend", 403, nil, `{"code":"x","error":"Your team has reached its monthly spending limit."}`, false, "quota", ""},
		{"403 refusal", 403, nil, `{"error":{"message":"Your request was flagged by our content policy."}}`, false, "refusal", ""},
		{"403 plain", 403, nil, `{"error":{"message":"You are not allowed to sample from this model"}}`, false, "forbidden", "status:403"},
		{"whitespace and case", 400, nil, "{\"error\":{\"message\":\"Your CREDIT   balance\\n is too LOW.\"}}", false, "quota", "phrase:credit balance is too low"},
		{"content_filter finish, no content", 200, nil, `{"choices":[{"index":0,"message":{"role":"assistant","content":null},"finish_reason":"content_filter"}]}`, false, "refusal", "openai:finish_reason=content_filter"},
		{"content_filter finish with content", 200, nil, `{"choices":[{"index":0,"message":{"role":"assistant","content":"partial"},"finish_reason":"content_filter"}]}`, false, "ok", ""},
		{"azure 200 with filter error inside results", 200, nil, `{"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"hi"},"content_filter_results":{"error":{"code":"content_filter_error","message":"The contents are not filtered"}}}],"prompt_filter_results":[{"prompt_index":0,"content_filter_results":{}}]}`, false, "ok", ""},
		{"azure stream chunk filtered", 200, nil, `{"choices":[{"index":0,"delta":{},"finish_reason":"content_filter","content_filter_results":{"hate":{"filtered":true,"severity":"high"}}}]}`, true, "refusal", "openai:finish_reason=content_filter"},
		{"mistral unknown_model", 400, nil, `{"object":"error","message":"Invalid model: foo","type":"invalid_request_error","param":"model","code":"unknown_model"}`, false, "unavailable", "code:unknown_model"},
		{"credit_balance_exhausted", 429, nil, `{"error":{"message":"Your credit balance is exhausted","type":"insufficient_quota","code":"credit_balance_exhausted"}}`, false, "quota", "code:credit_balance_exhausted"},
		{"bedrock FTU form 404", 404, map[string]string{"X-Amzn-Errortype": "ResourceNotFoundException"}, `{"message":"Model use case details have not been submitted for this account."}`, false, "unavailable", ""},
		{"normal success", 200, nil, `{"choices":[{"index":0,"message":{"role":"assistant","content":"an error is fine here","refusal":null},"finish_reason":"stop"}]}`, false, "ok", ""},
		{"unparseable 2xx left to adapters", 200, nil, `not json at all`, false, "ok", ""},
		{"empty choices left to adapters", 200, nil, `{"choices":[]}`, false, "ok", ""},
	})
}

func TestAnthropic(t *testing.T) {
	run(t, []tc{
		{"overloaded 529", 529, nil, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, false, "server_error", "status:529"},
		{"invalid_request_error alone", 400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"Something new."}}`, false, "unknown", "status:400"},
		{"spend cap", 400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"You have reached your specified workspace API usage limits."}}`, false, "quota", "phrase:workspace api usage limits"},
		{"auth", 401, nil, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`, false, "auth", "status:401"},
		{"auth as 400", 400, nil, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`, false, "auth", "type:authentication_error"},
		{"413", 413, nil, `{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes."}}`, false, "overflow", ""},
		{"field path", 400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"messages.1.content: Input should be a valid list"}}`, false, "bad_request", "message:field-path"},
		{"stream error event", 200, nil, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n", true, "server_error", "phrase:overloaded"},
		{"stream data error", 200, nil, `{"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your rate limit"}}`, true, "rate_limited", ""},
		{"plain-text error event", 200, nil, "event: error\ndata: upstream exploded\n\n", true, "server_error", "stream:error"},
		{"done marker", 200, nil, "data: [DONE]\n\n", true, "ok", ""},
		{"ping event", 200, nil, "event: ping\ndata: {\"type\": \"ping\"}\n\n", true, "ok", ""},
		{"refusal stop_reason", 200, nil, `{"type":"message","content":[],"stop_reason":"refusal"}`, false, "refusal", "anthropic:stop_reason=refusal"},
		{"refusal delta", 200, nil, `{"type":"message_delta","delta":{"stop_reason":"refusal"}}`, true, "refusal", "anthropic:stop_reason=refusal"},
		{"end_turn", 200, nil, `{"type":"message","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn"}`, false, "ok", ""},
	})
}

func TestGemini(t *testing.T) {
	perDay := `{"error":{"code":429,"message":"You exceeded your current quota","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerDayPerProjectPerModel-FreeTier"}]}]}}`
	perMin := strings.Replace(perDay, "PerDay", "PerMinute", 1)
	run(t, []tc{
		{"api key invalid 400", 400, nil, `{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID"}]}}`, false, "auth", "gemini:reason=API_KEY_INVALID"},
		{"per day", 429, nil, perDay, false, "quota", "gemini:quotaId=PerDay"},
		{"per minute", 429, nil, perMin, false, "rate_limited", "gemini:quotaId=PerMinute"},
		{"bare exhausted", 429, nil, `{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}`, false, "rate_limited", ""},
		{"location", 400, nil, `{"error":{"code":400,"message":"User location is not supported for the API use.","status":"FAILED_PRECONDITION"}}`, false, "forbidden", ""},
		{"deadline 504", 504, nil, `{"error":{"code":504,"status":"DEADLINE_EXCEEDED"}}`, false, "timeout", "status:504"},
		{"deadline wording 500", 500, nil, `{"error":{"code":500,"message":"Deadline exceeded while waiting"}}`, false, "timeout", "phrase:deadline exceeded"},
		{"5xx stays server_error", 503, nil, `{"error":{"message":"You exceeded your quota"}}`, false, "server_error", "status:503"},
		{"blockReason", 200, nil, `{"promptFeedback":{"blockReason":"SAFETY","safetyRatings":[]}}`, false, "refusal", "gemini:blockReason=SAFETY"},
		{"finish SAFETY no parts", 200, nil, `{"candidates":[{"finishReason":"SAFETY","index":0,"safetyRatings":[]}]}`, false, "refusal", "gemini:finishReason=SAFETY"},
		{"finish RECITATION no parts", 200, nil, `{"candidates":[{"content":{"role":"model"},"finishReason":"RECITATION"}]}`, false, "refusal", "gemini:finishReason=RECITATION"},
		{"finish SAFETY with parts", 200, nil, `{"candidates":[{"content":{"parts":[{"text":"hi"}]},"finishReason":"SAFETY"}]}`, false, "ok", ""},
		{"finish STOP", 200, nil, `{"candidates":[{"content":{"parts":[{"text":"hi"}]},"finishReason":"STOP"}]}`, false, "ok", ""},
		{"stream array error", 200, nil, `[{"error":{"code":429,"message":"Resource exhausted","status":"RESOURCE_EXHAUSTED"}}]`, true, "rate_limited", ""},
		{"sse data error", 200, nil, "data: {\"error\":{\"code\":500,\"message\":\"Internal error\",\"status\":\"INTERNAL\"}}\n\n", true, "server_error", "code:500"},
	})
}

func TestBedrockAndTransportish(t *testing.T) {
	run(t, []tc{
		{"unrecognized client", 403, map[string]string{"X-Amzn-Errortype": "UnrecognizedClientException:http://internal.amazon.com/coral/"}, `{"message":"The security token included in the request is invalid."}`, false, "auth", "bedrock:unrecognizedclientexception"},
		{"throttling", 429, map[string]string{"X-Amzn-Errortype": "ThrottlingException"}, `{"message":"Too many tokens, please wait before trying again."}`, false, "rate_limited", ""},
		{"access denied", 403, map[string]string{"X-Amzn-Errortype": "AccessDeniedException"}, `{"message":"You don't have access to the model with the specified model ID."}`, false, "forbidden", ""},
		{"input too long", 400, map[string]string{"X-Amzn-Errortype": "ValidationException"}, `{"message":"Input is too long for requested model."}`, false, "context_length", ""},
		{"524 html", 524, nil, `<html><title>524: A timeout occurred</title></html>`, false, "timeout", "status:524"},
		{"502 html", 502, nil, `<html>Bad gateway</html>`, false, "server_error", "status:502"},
		{"301", 301, nil, ``, false, "unknown", "status:301"},
	})
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		h    map[string]string
		want time.Duration
	}{
		{map[string]string{"Retry-After": "7"}, 7 * time.Second},
		{map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second},
		{map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0},
		{map[string]string{"retry-after-ms": "250", "Retry-After": "7"}, 250 * time.Millisecond},
		{map[string]string{"x-ratelimit-reset-requests": "6m0s", "x-ratelimit-reset-tokens": "20ms"}, 0}, // no window spent: neither reset is a wait
		{map[string]string{"x-ratelimit-reset-requests": "6m0s", "x-ratelimit-reset-tokens": "20ms", "x-ratelimit-remaining-tokens": "0"}, 20 * time.Millisecond},
		{map[string]string{"Retry-After": "junk"}, 0},
		{map[string]string{"Retry-After": "99999999"}, 24 * time.Hour},
		{nil, 0},
	} {
		h := http.Header{}
		for k, v := range c.h {
			h.Set(k, v)
		}
		if got := ParseRetryAfter(h, now); got != c.want {
			t.Errorf("%v: got %v, want %v", c.h, got, c.want)
		}
	}
	v := Classify(Response{Status: 429, Header: http.Header{"Retry-After": {"3"}}})
	if v.RetryAfter != 3*time.Second {
		t.Errorf("429 Retry-After: %v", v.RetryAfter)
	}
	v = Classify(Response{Status: 429, Body: []byte(`{"error":{"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"13s"}]}}`)})
	if v.RetryAfter != 13*time.Second {
		t.Errorf("Gemini retryDelay: %v", v.RetryAfter)
	}
	v = Classify(Response{Status: 429, Body: []byte(`{"error":{"message":"Rate limit reached. Please try again in 9m38.016s."}}`)})
	if v.RetryAfter != 9*time.Minute+38016*time.Millisecond {
		t.Errorf("try again in: %v", v.RetryAfter)
	}
	v = Classify(Response{Status: 402, Header: http.Header{"Retry-After": {"3"}}})
	if v.RetryAfter != 0 {
		t.Errorf("quota carries no RetryAfter: %v", v.RetryAfter)
	}
}

func TestOperatorRules(t *testing.T) {
	c := &Classifier{Rules: []Rule{
		{Dialect: Anthropic, Status: []int{400}, Match: regexp.MustCompile("usage limits"), Class: Quota},
		{Provider: "openrouter", Status: []int{403, 404}, Match: regexp.MustCompile("(?i)data policy"), Class: Forbidden},
		{Status: []int{400}, Match: regexp.MustCompile("teapot"), Class: ServerError},
		{Status: []int{400}, Match: regexp.MustCompile("teapot"), Class: Timeout}, // shadowed: first match wins
		{Class: Overflow}, // no status, no match: any non-2xx
	}}
	for _, x := range []struct {
		r     Response
		class Class
		ev    string
		ok    bool
	}{
		{Response{Status: 400, Dialect: Anthropic, Body: []byte("usage limits")}, Quota, "rule:1", false},
		{Response{Status: 400, Dialect: OpenAI, Body: []byte("usage limits teapot")}, ServerError, "rule:3", false},
		{Response{Status: 404, Provider: "openrouter", Body: []byte("Data Policy")}, Forbidden, "rule:2", false},
		{Response{Status: 404, Provider: "other", Body: []byte("Data Policy")}, Overflow, "rule:5", false},
		{Response{Status: 404, Body: []byte("Data Policy")}, Overflow, "rule:5", false},
		{Response{Status: 200, Body: []byte(`{"choices":[]}`)}, 0, "", true},
	} {
		v := c.Classify(x.r)
		if x.ok {
			if v.Failed {
				t.Errorf("%+v: %+v, want success", x.r, v)
			}
			continue
		}
		if v.Class != x.class || v.Evidence != x.ev || !v.Failed {
			t.Errorf("%d %q: got %s %q, want %s %q", x.r.Status, x.r.Body, v.Class, v.Evidence, x.class, x.ev)
		}
	}
	var nilC *Classifier
	if v := nilC.Classify(Response{Status: 429}); v.Class != RateLimited || v.Evidence != "status:429" {
		t.Errorf("nil classifier: %+v", v)
	}
	many := &Classifier{Rules: make([]Rule, 70)}
	for i := range many.Rules {
		many.Rules[i] = Rule{Status: []int{600 + i}, Class: Timeout}
	}
	if v := many.Classify(Response{Status: 669}); v.Evidence != "rule:70" {
		t.Errorf("rule 70: %+v", v)
	}
}

func TestOnly4KiBRead(t *testing.T) {
	body := []byte(`{"error":{"message":"` + strings.Repeat("a ", MaxBody) + `credit balance is too low"}}`)
	if v := Classify(Response{Status: 400, Body: body}); v.Class != Unknown {
		t.Errorf("phrase past 4 KiB was read: %+v", v)
	}
}

func TestMessage(t *testing.T) {
	for body, want := range map[string]string{
		`{"error":{"message":"Incorrect API key \"x\"","type":"invalid_request_error"}}`: `Incorrect API key "x"`,
		`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`:    "Overloaded",
		`[{"error":{"code":400,"message":"API key not valid."}}]`:                        "API key not valid.",
		`{"message":"The security token included in the request is invalid."}`:           "The security token included in the request is invalid.",
		`{"error":"model 'llama3' not found"}`:                                           "model 'llama3' not found",
		"event: error\ndata: {\"error\":{\"message\":\"boom\"}}\n\n":                     "boom",
		`{"choices":[]}`: "",
		``:               "",
		`<html>`:         "",
	} {
		if got := Message([]byte(body)); got != want {
			t.Errorf("Message(%q) = %q, want %q", body, got, want)
		}
	}
}

// TestAnswerMessage: an error answer's plain-text body is its server's
// message (the client's error envelope carries it), as JSON messages are;
// a page, an event stream and an empty body carry none, and Message, for
// 2xx bodies, keeps plain text out.
func TestAnswerMessage(t *testing.T) {
	for body, want := range map[string]string{
		"upstream request timeout":                                   "upstream request timeout",
		"  no healthy upstream\n":                                    "no healthy upstream",
		`{"error":{"message":"Overloaded"}}`:                         "Overloaded",
		"<html><head><title>504 Gateway Time-out</title></head>":     "",
		"event: error\ndata: {\"error\":{\"message\":\"boom\"}}\n\n": "boom",
		``: "",
	} {
		if got := AnswerMessage([]byte(body)); got != want {
			t.Errorf("AnswerMessage(%q) = %q, want %q", body, got, want)
		}
	}
	if got := Message([]byte("upstream request timeout")); got != "" {
		t.Errorf("Message of plain text = %q, want none", got)
	}
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestTransport(t *testing.T) {
	for _, x := range []struct {
		err   error
		class Class
		ev    string
	}{
		{context.DeadlineExceeded, Timeout, "transport:timeout"},
		{fmt.Errorf("wrapped: %w", context.DeadlineExceeded), Timeout, "transport:timeout"},
		{&net.OpError{Op: "read", Err: timeoutErr{}}, Timeout, "transport:timeout"},
		{os.ErrDeadlineExceeded, Timeout, "transport:timeout"},
		{&net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, ServerError, "transport:connection refused"},
		{syscall.ECONNRESET, ServerError, "transport:connection reset"},
		{syscall.EPIPE, ServerError, "transport:broken pipe"},
		{io.ErrUnexpectedEOF, ServerError, "transport:eof"},
		{&net.DNSError{Err: "no such host", Name: "x"}, ServerError, "transport:dns"},
		{context.Canceled, Unknown, "transport:canceled"},
		{errors.New("weird"), ServerError, "transport:error"},
	} {
		v := Transport(x.err)
		if !v.Failed || v.Class != x.class || v.Evidence != x.ev {
			t.Errorf("%v: %+v, want %s %s", x.err, v, x.class, x.ev)
		}
	}
	if v := Transport(nil); v.Failed {
		t.Errorf("nil: %+v", v)
	}
}

func TestStatusOnlyZeroAllocs(t *testing.T) {
	for _, st := range []int{429, 500, 401, 404, 400} {
		if n := testing.AllocsPerRun(100, func() { Classify(Response{Status: st}) }); n != 0 {
			t.Errorf("%d: %v allocs", st, n)
		}
	}
}

func TestDurationBytes(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"13s": 13 * time.Second, "9m38.016s": 9*time.Minute + 38016*time.Millisecond, "20ms": 20 * time.Millisecond,
		"1.5s": 1500 * time.Millisecond, "1h": time.Hour, "6m0s": 6 * time.Minute, "": 0, "s": 0, "12": 0, "1.2.3s": 0,
		"5x": 0, "100h": maxRetryAfter,
	} {
		if got := durationBytes([]byte(in)); got != want {
			t.Errorf("%q: %v, want %v", in, got, want)
		}
	}
}
