package classify

import (
	"testing"
	"time"
)

// Round 59's rules, from hunts 59a (self-hosted servers) and 59b (cloud
// platforms), each beside the near answers it must leave alone and an echo
// guard: the client's own words quoted back never steer the class.
// Helpers: rules56_test.go.

// (a) hunt 59b. Bedrock's 400 ValidationException "The requested operation
// is not recognized by the service." (an invoke sent to the control plane's
// host, not bedrock-runtime's) read unknown by its weak code: a base URL that
// does not serve the operation, as "No route for that URI" and "Unexpected
// endpoint" are: unavailable.
func TestRoundFiftyNineOperationNotRecognized(t *testing.T) {
	bedrock := `{"message":"The requested operation is not recognized by the service."}`
	v := Classify(Response{Status: 400, Body: []byte(bedrock), Model: "m", Header: map[string][]string{"X-Amzn-Errortype": {"ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/"}}})
	want56(t, "Bedrock's control plane", v, Unavailable, "phrase:operation is not recognized")
	want56(t, "the same without its header", classify56(400, bedrock, "", false), Unavailable, "phrase:operation is not recognized")
	want56(t, "a parameter not recognized stays bad input", classify56(400, `{"error":{"message":"Unrecognized request argument supplied: foo"}}`, "", false), BadRequest, "")
	echo56(t, 400, "the requested operation is not recognized", `{"error":{"message":"Invalid value: the requested operation is not recognized"}}`, BadRequest)
}

// (b) hunt 59a. LM Studio answers a model process that died mid-request
// (exit code 11) as a 400 "The model has crashed without additional
// information. (Exit code: 11)": read unknown by the status; a crash is
// the server's, at any status, as GPU failures are.
func TestRoundFiftyNineModelCrashed(t *testing.T) {
	lms := `{"error": "The model has crashed without additional information. (Exit code: 11)"}`
	want56(t, "LM Studio's 400", classify56(400, lms, "", false), ServerError, "phrase:model has crashed")
	want56(t, "the same as a 500", classify56(500, lms, "", false), ServerError, "")
	echo56(t, 400, "the model has crashed", `{"error":{"message":"Invalid prompt: the model has crashed"}}`, Unknown)
}

// (c) hunt 59a. llama-server's capability refusals thrown as 500s: "Only
// one completion choice is allowed" (n > 1; Docker Model Runner's
// compatibility report) read server_error, and would cool an endpoint for
// the request's n. A capability this server lacks, as the corpus's
// "Unsupported param: tools": unknown. Its sibling "Only no echo is
// supported" (echo in /completion) too. Not any "only one … allowed": a
// server that takes one request at a time says so in other words that stay
// the server's.
func TestRoundFiftyNineOneChoiceOnly(t *testing.T) {
	one := `{"error":{"code":500,"message":"Only one completion choice is allowed","type":"server_error"}}`
	want56(t, "llama-server's n > 1", classify56(500, one, "", false), Unknown, "phrase:only one completion choice")
	want56(t, "llama-server's echo", classify56(500, `{"error":{"code":500,"message":"Only no echo is supported","type":"server_error"}}`, "", false), Unknown, "phrase:only no echo is supported")
	want56(t, "one request at a time stays the server's", classify56(500, `{"error":{"code":500,"message":"Only one request is allowed at a time","type":"server_error"}}`, "", false), ServerError, "")
	echo56(t, 500, "only one completion choice is allowed", `{"error":{"code":500,"message":"Internal error: only one completion choice is allowed","type":"server_error"}}`, ServerError)
}

// (d) hunt 59a. llama-server's chat parser failing on the model's own
// output ("Failed to parse input at pos 0: <|channel|>", gpt-oss with
// max_tokens 1) read server_error: the model's unparseable generation
// proves neither side, as Ollama's "error parsing tool call" and Groq's
// tool_use_failed: unknown (the walk moves on, nothing cools).
func TestRoundFiftyNineParseInputAtPos(t *testing.T) {
	p := `{"error":{"code":500,"message":"Failed to parse input at pos 0: <|channel|>","type":"server_error"}}`
	want56(t, "llama-server's parser", classify56(500, p, "", false), Unknown, "phrase:failed to parse input at pos")
	echo56(t, 500, "failed to parse input at pos 3", `{"error":{"code":500,"message":"Internal error: failed to parse input at pos 3","type":"server_error"}}`, ServerError)
}

// (e) hunt 59e. A relay's 502 "Your input exceeds the context window of
// this model. Please adjust your input and try again. (request id: …)"
// (micuapi through cc-switch) read server_error: the context wording a 5xx
// may carry lacked this one, which a 400 and a stream already read as
// context_length.
func TestRoundFiftyNineExceedsContextWindow5xx(t *testing.T) {
	body := `Your input exceeds the context window of this model. Please adjust your input and try again. (request id: 202606080244168118429328268d9d6zzb514LO)`
	want56(t, "a relay's 502", classify56(502, body, "", false), ContextLength, "")
	want56(t, "a 500 too", classify56(500, body, "", false), ContextLength, "")
	echo56(t, 502, "exceeds the context window", `{"error":{"message":"Upstream failed on: exceeds the context window"}}`, ServerError)
}

// (f) hunt 59f. A relay that answers 429 when all its attempts failed and
// quotes the last upstream answer with its status and reason phrase
// (Antigravity-Manager: "All 2 attempts failed. Last error: HTTP 400 Bad
// Request: {…}", Vertex Claude's INVALID_ARGUMENT "messages.5.content.0.
// thinking.signature: Field required") read rate_limited by the 429, and
// every endpoint the request was sent to cooled for a request no upstream
// would take. The quoted 4xx is read as a 5xx relay's is: the upstream's
// own answer decides.
func TestRoundFiftyNineRelayed4xxIn429(t *testing.T) {
	body := "{\"error\":{\"message\":\"All 2 attempts failed. Last error: HTTP 400 Bad Request: {\\n  \\\"error\\\": {\\n    \\\"code\\\": 400,\\n    \\\"message\\\": \\\"{\\\\\\\"type\\\\\\\":\\\\\\\"error\\\\\\\",\\\\\\\"error\\\\\\\":{\\\\\\\"type\\\\\\\":\\\\\\\"invalid_request_error\\\\\\\",\\\\\\\"message\\\\\\\":\\\\\\\"messages.5.content.0.thinking.signature: Field required\\\\\\\"},\\\\\\\"request_id\\\\\\\":\\\\\\\"req_vrtx_0*******\\\\\\\"}\\\",\\n    \\\"status\\\": \\\"INVALID_ARGUMENT\\\"\\n  }\\n}\\n\",\"type\":\"overloaded_error\"},\"type\":\"error\"}"
	want56(t, "Antigravity's 429 quoting a 400", classify56(429, body, "", false), BadRequest, "")
	// Its 429 quoting the upstream's own 429 stays a rate.
	rl := `{"error":{"message":"All 2 attempts failed. Last error: HTTP 429 Too Many Requests: {\n  \"error\": {\n    \"code\": 429,\n    \"message\": \"Resource has been exhausted (e.g. check quota).\",\n    \"status\": \"RESOURCE_EXHAUSTED\"\n  }\n}\n","type":"overloaded_error"},"type":"error"}`
	want56(t, "a quoted 429 stays a rate", classify56(429, rl, "", false), RateLimited, "")
	// A 429 whose quoted 4xx the client wrote stays the 429's.
	echo := `{"error":{"message":"All 2 attempts failed. Last error: HTTP 400 Bad Request: {\"error\":{\"message\":\"Field required\"}}"}}`
	req := `{"model":"m","messages":[{"role":"user","content":"HTTP 400 Bad Request: {\"error\":{\"message\":\"Field required\"}}"}]}`
	if v := classify56(429, echo, req, false); v.Class != RateLimited {
		t.Errorf("the client's quoted 400 under a 429: %s (%s), want rate_limited", v.Class, v.Evidence)
	}
}

// (g) hunt 59g. OpenRouter's workspace cap, a 403 "Workspace monthly budget
// of $500.00 exceeded. Contact your workspace admin.", read forbidden by its
// status: the "budget exceeded" wording had no amount between. A spend cap
// that resets with its month: quota.
func TestRoundFiftyNineBudgetOfAmountExceeded(t *testing.T) {
	body := `{"error":{"code":403,"message":"Workspace monthly budget of $500.00 exceeded. Contact your workspace admin."}}`
	want56(t, "OpenRouter's workspace budget", classify56(403, body, "", false), Quota, "phrase:budget of $…exceeded")
	want56(t, "a thinking budget stays bad input", classify56(400, `{"error":{"message":"thinking budget of 100000 exceeds max_tokens"}}`, "", false), BadRequest, "")
	echo56(t, 403, "budget of $5 exceeded", `{"error":{"message":"Request blocked: budget of $5 exceeded"}}`, Forbidden)
}

// (h) hunt 59g. OpenRouter's 429 when every provider of a model is full
// ("All providers for anthropic/claude-sonnet-4.5 are at capacity. Retry
// after 40 seconds.", availability.code capacity_exhausted, error_type
// rate_limit_exceeded) read rate_limited: the providers' load, which
// passes, as model_capacity_exhausted is: server_error, its wait kept.
func TestRoundFiftyNineCapacityExhausted(t *testing.T) {
	body := `{
  "error": {
    "message": "All providers for anthropic/claude-sonnet-4.5 are at capacity. Retry after 40 seconds.",
    "error_type": "rate_limit_exceeded",
    "http_status": 429,
    "availability": {
      "code": "capacity_exhausted",
      "retryable": true,
      "retry_after": 40,
      "requested_models": ["anthropic/claude-sonnet-4.5"],
      "affected_providers": ["anthropic", "amazon-bedrock", "google-vertex"],
      "fallback_models": ["anthropic/claude-haiku-4.5"],
      "docs_url": "https://openrouter.ai/docs/errors#capacity_exhausted"
    },
    "metadata": {
      "previous_errors": [
        { "provider": "anthropic", "code": "capacity_exhausted", "status": 429 },
        { "provider": "amazon-bedrock", "code": "capacity_exhausted", "status": 429 }
      ]
    }
  }
}`
	v := classify56h(429, body, "", "Retry-After", "40")
	want56(t, "OpenRouter's providers at capacity", v, ServerError, "")
	if v.RetryAfter != 40*time.Second {
		t.Errorf("its wait: %v, want 40s", v.RetryAfter)
	}
	echo56(t, 429, "all providers are at capacity", `{"error":{"message":"Invalid request: all providers are at capacity"}}`, RateLimited)
}
