package classify

import (
	"testing"
	"time"
)

// TestServedModelFamilies: the fourth corpus round's self-hosted servers and
// gateways. A model that does not serve an API at all is gone from this
// endpoint (unavailable), while a request feature it lacks stays a capability
// gap (unknown); a gateway that does not route the model says so.
func TestServedModelFamilies(t *testing.T) {
	run(t, []tc{
		{"does not support chat completions api", 400, nil, `{"object":"error","message":"The model does not support Embeddings API","type":"BadRequestError","param":null,"code":400}`, false, "unknown", "phrase:model does not support…api"},
		{"does not support chat", 400, nil, `{"error":"\"nomic-embed-text\" does not support chat"}`, false, "unknown", "phrase:does not support chat"},
		{"does not support generate", 400, nil, `{"error":"\"bert\" does not support generate"}`, false, "unknown", "phrase:does not support generate"},
		{"a request feature stays unknown", 400, nil, `{"error":"\"llama3\" does not support tools"}`, false, "unknown", "phrase:does not support"},
		{"a parameter stays bad input", 400, nil, `{"error":{"message":"This model does not support the seed parameter in the Chat API."}}`, false, "bad_request", "phrase:not support…parameter"},
		{"models not currently supported", 400, nil, `{"error":"embedding models are not currently supported"}`, false, "unavailable", "phrase:model…not currently supported"},
		{"unsupported model", 400, nil, `{"detail":"Unsupported model meta.llama3-1-8b-instruct-v1:0, please use models API to get a list of supported models"}`, false, "unavailable", "phrase:unsupported model"},
		{"action doesn't support the model", 400, nil, `{"detail":"This action doesn't support the model that you provided."}`, false, "unavailable", "phrase:doesn't support the model"},
		{"no available channel, English", 400, nil, `{"error":{"message":"No available channels for model gpt-5 in group default","type":"new_api_error"}}`, false, "unavailable", "phrase:no available channel"},
	})
}

// TestServerStateIn5xx: a 5xx that says nothing is served here (no model
// loaded, no channel for the model) is unavailable; a model still loading,
// an engine asleep or a busy server stays the server's failure; a limit
// of the server's own configuration (its payload size) is overflow.
func TestServerStateIn5xx(t *testing.T) {
	run(t, []tc{
		{"no models loaded", 503, nil, `{"detail":"No models are currently loaded."}`, false, "unavailable", "phrase:no models…loaded"},
		{"no model loaded", 503, nil, `{"error":{"message":"No model loaded.","type":"server_error"}}`, false, "unavailable", "phrase:no model…loaded"},
		{"a model still loading stays server_error", 503, nil, `{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}`, false, "server_error", ""},
		{"no channel, Chinese", 503, nil, `{"error":{"message":"当前分组 vip 下对于模型 qwen-max 无可用渠道 (request id: x)","type":"one_api_error"}}`, false, "unavailable", "phrase:无可用渠道"},
		{"an engine asleep stays server_error", 503, nil, `{"message":"Engine is sleeping; call POST /wakeup before inference.","type":"server_error","code":503,"param":null,"object":"error"}`, false, "server_error", ""},
		{"busy stays server_error", 503, nil, `{"detail": {"msg": "Server is busy; please try again later.", "type": "service_unavailable"}}`, false, "server_error", ""},
		{"max payload size", 500, nil, `{"detail": {"msg": "Payload is too big. Max payload size is 32MB.", "type": "bad_input"}}`, false, "overflow", "phrase:max payload size"},
	})
}

// TestGatewayBudgetsAndGuardrails: a gateway's budget or period quota spent
// is quota; its guardrails blocking the content are a refusal; LiteLLM's
// param "None" names no field, so account wording beside it still decides.
func TestGatewayBudgetsAndGuardrails(t *testing.T) {
	run(t, []tc{
		{"crossed budget, param None", 429, nil, `{"error":{"message":"No deployments available - crossed budget: Exceeded budget for tag='x', tag_spend=2, tag_budget_limit=1","type":"None","param":"None","code":"429"}}`, false, "quota", "phrase:exceeded budget"},
		{"a real param still names a field", 400, nil, `{"error":{"message":"Budget has been exceeded for max_tokens","type":"invalid_request_error","param":"max_tokens","code":"400"}}`, false, "bad_request", ""},
		{"out of call volume quota", 403, nil, `{ "statusCode": 403, "message": "Out of call volume quota. Quota will be replenished in 00:59:52." }`, false, "quota", "phrase:out of…quota"},
		{"guardrail failed", 400, nil, `{"error":{"message":"Guardrail failed words - secret detected","type":"None","param":"None","code":"400"}}`, false, "refusal", "phrase:guardrail failed"},
		{"blocked by guardrail", 400, nil, `{"error":{"message":"Request blocked by input guardrail 'pii'"}}`, false, "refusal", "phrase:blocked by…guardrail"},
		{"portkey guardrail checks failed", 446, nil, `{"error":{"message":"The guardrail checks defined in the config failed. You can find more information in the hook_results object.","type":"hooks_failed","param":null,"code":null}}`, false, "refusal", "phrase:guardrail checks…failed"},
		{"prompt_injection as a label", 400, nil, `{"error":{"message":"Blocked by scanner: prompt_injection (confidence=0.9)","type":"None","param":"None","code":"400"}}`, false, "refusal", "phrase:prompt_injection"},
		{"prompt injection as 403", 403, nil, `{"error":{"message":"Prompt injection detected","type":"None","param":"None","code":"403"}}`, false, "refusal", "phrase:prompt injection"},
		{"JSON Schema too short", 400, nil, `{"error":{"message":"[] is too short - 'tools'","type":"invalid_request_error","param":null,"code":null}}`, false, "bad_request", "phrase:is too short"},
		{"more than one image", 400, nil, `{"error":"this model only supports one image while more than one image requested"}`, false, "overflow", "phrase:more than one image"},
	})
}

// TestGuardrailWordsTheClientSent: a client that writes about prompt
// injection cannot make an upstream's echo of it a refusal (echo.go).
func TestGuardrailWordsTheClientSent(t *testing.T) {
	req := []byte(`{"messages":[{"role":"user","content":"explain prompt injection"}]}`)
	v := Classify(Response{Status: 400, Body: []byte(`{"error":{"message":"Invalid request near 'explain prompt injection'"}}`), Request: req})
	if v.Class == Refusal {
		t.Fatalf("echoed words decided refusal (evidence %q)", v.Evidence)
	}
}

// TestTryAgainInWords: a wait written in words ("Try again in 2 seconds.":
// Azure API Management's rate-limit policy, LiteLLM's router cooldown) is
// the answer's Retry-After, as "try again in 17.3s" is.
func TestTryAgainInWords(t *testing.T) {
	for _, c := range []struct {
		body string
		want time.Duration
	}{
		{`{ "statusCode": 429, "message": "Rate limit is exceeded. Try again in 2 seconds." }`, 2 * time.Second},
		{`{"error":{"message":"No deployments available for selected model, Try again in 60 seconds. Passed model=x.","code":"429"}}`, 60 * time.Second},
		{`{"error":{"message":"Too many requests, try again in 1 minute."}}`, time.Minute},
		{`{"error":{"message":"Rate limit reached. Please try again in 17.3s."}}`, 17300 * time.Millisecond},
		{`{"error":{"message":"Rate limit reached. Please try again in a moment."}}`, 0},
	} {
		v := Classify(Response{Status: 429, Body: []byte(c.body)})
		if v.Class != RateLimited || v.RetryAfter != c.want {
			t.Errorf("%s: %s %v, want rate_limited %v", c.body, v.Class, v.RetryAfter, c.want)
		}
	}
}
