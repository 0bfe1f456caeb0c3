package classify

import "testing"

// Round 51's rules, each beside the answer a client could make it read:
// text the client sent is no evidence.
func TestRoundFiftyOneRules(t *testing.T) {
	run(t, []tc{
		// A relay key's own allowance spent is the account's money, even at
		// a 401 (one-api and new-api) or a 403 with its code.
		{"spent key at 401", 401, nil, `{"error":{"code":"","message":"该令牌额度已用尽 TokenStatusExhausted[sk-abc***xyz]","type":"new_api_error"}}`, false, "quota", "phrase:tokenstatusexhausted"},
		{"spent key at 401, Traditional", 401, nil, `{"error":{"message":"該令牌額度已用盡","type":"new_api_error"}}`, false, "quota", "phrase:額度已用盡"},
		{"free quota used up at 401", 401, nil, `{"error_code":"ModelArts.81005","error_msg":"The free quota has been used up."}`, false, "quota", "phrase:quota has been used up"},
		{"quota code at 401", 401, nil, `{"error":{"code":"insufficient_token_quota","message":"x"}}`, false, "quota", "code:insufficient*(credit|balance|funds|quota)"},
		{"bad key at 401 stays auth", 401, nil, `{"error":{"message":"无效的令牌 (request id: 2)","type":"new_api_error"}}`, false, "auth", "status:401"},
		{"token quota code at 403", 403, nil, `{"error":{"code":"insufficient_token_quota","message":"This token quota is exhausted (request id: x)","type":"new_api_error"}}`, false, "quota", ""},
		{"quota is exhausted at 403", 403, nil, `{"error":{"message":"This token quota is exhausted","type":"new_api_error"}}`, false, "quota", "phrase:quota is exhausted"},
		// Laravel's validation envelope reads its descriptions.
		{"selected model is invalid", 422, nil, `{"result":"error","error":{"code":"validation_failed","description":"Validation failed","errors":[{"code":"validation_rule_in","description":"The selected model is invalid.","context":{"attribute":"model"}}]}}`, false, "unavailable", "phrase:selected model is invalid"},
		{"a deleted service at 400", 400, nil, `{"error_code":"ModelArts.4203","error_msg":"Invalid request because requested service 5a6a**** is unavailable. "}`, false, "unavailable", ""},
		{"a service unavailable at 429 is load", 429, nil, `{"error":{"message":"The requested service is unavailable, retry later"}}`, false, "rate_limited", ""},
		{"auth header not checked", 400, nil, `{"error_code":"ModelArts.4905","error_msg":"Failed to check the authorization request header. "}`, false, "auth", ""},
		{"no channel, Traditional", 503, nil, `{"error":{"code":"model_not_found","message":"分組 default 下模型 gpt-5 無可用管道（distributor）","type":"new_api_error"}}`, false, "unavailable", "phrase:無可用管道"},
		{"vLLM's negative output budget", 400, nil, `{"object":"error","message":"max_tokens must be at least 1, got -7584.","type":"BadRequestError","param":null,"code":400}`, false, "context_length", "phrase:must be at least 1, got -N"},
		{"a not-found code decides a 5xx whose words say nothing", 503, nil, `{"error":{"code":"model_not_found","message":"Нет доступных каналов для модели gpt-5 (distributor)","type":"new_api_error"}}`, false, "unavailable", "code:model_not_found"},
		{"a not-found code beside timeout words stays a timeout", 503, nil, `{"error":{"code":"model_not_found","message":"upstream request timed out","type":"new_api_error"}}`, false, "timeout", ""},
		{"insufficient budget", 400, nil, `{"detail":"Insufficient budget."}`, false, "quota", "phrase:insufficient budget"},
		{"an Anthropic message with no content past the window", 200, nil, `{"content":[],"stop_reason":"model_context_window_exceeded","usage":{"input_tokens":0,"output_tokens":0}}`, false, "context_length", "anthropic:stop_reason=model_context_window_exceeded"},
		{"the same with content is an answer cut short", 200, nil, `{"type":"message","content":[{"type":"text","text":"Hello"}],"stop_reason":"model_context_window_exceeded"}`, false, "ok", ""},
		{"a stream's message_delta says nothing of the content before it", 200, nil, `{"type":"message_delta","delta":{"stop_reason":"model_context_window_exceeded"},"usage":{"output_tokens":5}}`, true, "ok", ""},
		{"saturated, Traditional", 429, nil, `{"error":{"message":"當前分組上游負載已飽和，請稍後再試","type":"new_api_error"}}`, false, "server_error", "phrase:負載已飽和"},
	})
}

// The client's own words steer none of them.
func TestRoundFiftyOneRulesIgnoreEchoes(t *testing.T) {
	for _, c := range []struct {
		name, req, body string
		status          int
		want            Class
	}{
		{"spent wording echoed at 401", `{"messages":[{"role":"user","content":"该令牌额度已用尽"}]}`,
			`{"error":{"message":"invalid key for prompt 该令牌额度已用尽"}}`, 401, Auth},
		{"a negative max_tokens the client sent", `{"model":"m","max_tokens":-5,"messages":[]}`,
			`{"object":"error","message":"max_tokens must be at least 1, got -5.","type":"BadRequestError","param":null,"code":400}`, 400, BadRequest},
		{"spent wording echoed at 403", `{"messages":[{"role":"user","content":"This token quota is exhausted"}]}`,
			`{"error":{"message":"Forbidden: This token quota is exhausted"}}`, 403, Forbidden},
	} {
		v := Classify(Response{Status: c.status, Body: []byte(c.body), Request: []byte(c.req)})
		if v.Class != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, v.Class, v.Evidence, c.want)
		}
	}
}
