package classify

import "testing"

// Round 52's second rules (hunts 52d and 52e), each beside the near
// answers it must leave alone.
func TestRoundFiftyTwoBRules(t *testing.T) {
	run(t, []tc{
		// A code that says the provider's servers are overloaded is the
		// provider's capacity, even at a 429 (Volcengine Ark's short
		// ServerOverloaded; corpus volcengine-429-serveroverloaded-…), as
		// Google's MODEL_CAPACITY_EXHAUSTED already is.
		{"Ark's ServerOverloaded at 429", 429, nil, `{"error":{"code":"ServerOverloaded","message":"The service is currently unable to handle additional requests.","param":"","type":"TooManyRequests"}}`, false, "server_error", ""},
		{"server_overloaded in snake case at 429", 429, nil, `{"error":{"code":"server_overloaded","message":"Please try again later."}}`, false, "server_error", ""},
		{"Ark's own throttle stays a throttle", 429, nil, `{"error":{"code":"RateLimitExceeded.EndpointRPMExceeded","message":"The request rate has exceeded the RPM limit.","param":"","type":"TooManyRequests"}}`, false, "rate_limited", ""},
		{"overload wording beside a rate-limit code stays a throttle", 429, nil, `{"error":{"code":"rate_limit_exceeded","message":"The server is overloaded, slow down."}}`, false, "rate_limited", ""},

		// A Chinese usage cap (用量上限) with an upgrade or purchase remedy
		// is the plan's allowance, as "usage limit … upgrade" is (MiniMax's
		// 2067 on its Anthropic endpoint).
		{"MiniMax 2067 in Chinese", 429, nil, `{"type":"error","error":{"type":"rate_limit_error","message":"当前已达到 Token Plan 用量上限。为避免调用中断，请升级 Token Plan 套餐，或购买积分补充用量并开启积分自动消耗。 (2067)"},"request_id":"r"}`, false, "quota", ""},
		{"a usage cap and a purchase", 429, nil, `{"error":{"message":"已达到用量上限，请购买资源包后重试"}}`, false, "quota", ""},
		{"a usage cap alone stays the status's", 429, nil, `{"error":{"message":"已达到用量上限，请稍后重试"}}`, false, "rate_limited", ""},

		// An account disabled or not found (Kimi Code's Connect-style
		// "unauthenticated: …" lines, sent as 500s), in Chinese, at any
		// status: the account, never the server.
		{"Kimi's banned account at 500", 500, nil, `{"error":{"message":"unauthenticated: failed_precondition: 因违反用户协议，该账号已被禁用。"}}`, false, "auth", ""},
		{"Kimi's unknown account at 500", 500, nil, `{"error":{"message":"unauthenticated: not_found: 未找到该账号，请确认是否注册"}}`, false, "auth", ""},
		{"an account temporarily disabled at 403", 403, nil, `{"error":{"message":"您的账户已被暂时禁用，请联系客服"}}`, false, "auth", ""},
		{"a banned account at 400", 400, nil, `{"error":{"message":"该账号已被禁用"}}`, false, "auth", ""},
		{"a model disabled is no account", 500, nil, `{"error":{"message":"该模型已被禁用"}}`, false, "server_error", "status:500"},
		{"a feature disabled is no account", 500, nil, `{"error":{"message":"该功能已被禁用"}}`, false, "server_error", "status:500"},

		// Two tools of one name: the client's tools, whoever reads them.
		{"Kimi's duplicated function name", 400, nil, `{"error":{"message":"function name unnamed_function is duplicated","type":"invalid_request_error"}}`, false, "bad_request", ""},
		{"a duplicate function name", 400, nil, `{"error":{"message":"Duplicate function name: get_weather"}}`, false, "bad_request", ""},
		{"a function name otherwise stays unknown", 400, nil, `{"error":{"message":"function name unnamed_function is reserved"}}`, false, "unknown", "status:400"},

		// A plan's window named in hours ("5 hour session limits") is the
		// plan's allowance, whatever wait the answer names (GitHub
		// Copilot's user_global_rate_limited:pro).
		{"Copilot's 5 hour session limits", 429, nil, `{"error":{"message":"Sorry, you've exceeded your 5 hour session limits. Please retry after 2733 seconds.","code":"user_global_rate_limited:pro"}}`, false, "quota", ""},
		{"a 5-hour usage limit", 429, nil, `{"error":{"message":"You have reached your 5-hour usage limit. Please wait 12 minutes."}}`, false, "quota", ""},
		{"concurrent sessions stay a throttle", 429, nil, `{"error":{"message":"Too many concurrent sessions. Please retry after 30 seconds."}}`, false, "rate_limited", ""},
		{"requests per hour stay a throttle", 429, nil, `{"error":{"message":"Requests per hour limit exceeded. Please retry after 60 seconds."}}`, false, "rate_limited", ""},
		{"an hourly reset stays a throttle", 429, nil, `{"error":{"message":"Rate limit exceeded; the limit resets hourly."}}`, false, "rate_limited", ""},

		// Kiro's payload cap, named by its reason code: the request too big
		// for this endpoint, not the model's window.
		{"Kiro's content length over the threshold", 400, nil, `{"message":"Input is too long.","reason":"CONTENT_LENGTH_EXCEEDS_THRESHOLD"}`, false, "overflow", "code:content_length_exceeds_threshold"},
		{"the words alone stay the window", 400, nil, `{"message":"Input is too long."}`, false, "context_length", ""},
		{"the code written in the message is no code", 400, nil, `{"message":"Input is too long: CONTENT_LENGTH_EXCEEDS_THRESHOLD"}`, false, "context_length", ""},
	})
}

// The Codex backend's model gate for ChatGPT accounts is unavailable: an
// API-key endpoint of the same target serves the model (as Copilot's
// integrator gate, round 47); a tool so gated is not the model's.
func TestRoundFiftyTwoBCodexAccountGate(t *testing.T) {
	for _, c := range []struct {
		name, body, req, model string
		want                   Class
	}{
		{"the model Detour sent", `{"detail":"The 'gpt-5.1-codex' model is not supported when using Codex with a ChatGPT account."}`,
			`{"model":"gpt-5.1-codex","input":"hi"}`, "gpt-5.1-codex", Unavailable},
		{"a tool so gated", `{"detail":"The 'web_search' tool is not supported when using Codex with a ChatGPT account."}`,
			`{"model":"gpt-5","input":"hi","tools":[{"type":"web_search"}]}`, "gpt-5", Unknown},
	} {
		v := Classify(Response{Status: 400, Body: []byte(c.body), Request: []byte(c.req), Model: c.model})
		if v.Class != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, v.Class, v.Evidence, c.want)
		}
	}
}

// The client's own words steer none of them.
func TestRoundFiftyTwoBRulesIgnoreEchoes(t *testing.T) {
	for _, c := range []struct {
		name, req, body string
		status          int
		want            Class
	}{
		{"ServerOverloaded the client wrote", `{"messages":[{"role":"user","content":"what does ServerOverloaded mean"}]}`,
			`{"error":{"code":"RateLimitExceeded","message":"Too many requests for: what does ServerOverloaded mean"}}`, 429, RateLimited},
		{"a Chinese usage cap the client wrote", `{"messages":[{"role":"user","content":"当前已达到 Token Plan 用量上限。请升级 Token Plan 套餐"}]}`,
			`{"error":{"message":"Rate limit exceeded for: 当前已达到 Token Plan 用量上限。请升级 Token Plan 套餐"}}`, 429, RateLimited},
		{"an account ban the client wrote", `{"messages":[{"role":"user","content":"翻译：该账号已被禁用"}]}`,
			`{"error":{"message":"inference failed for prompt 翻译：该账号已被禁用"}}`, 500, ServerError},
		{"an unknown account the client wrote", `{"messages":[{"role":"user","content":"未找到该账号"}]}`,
			`{"error":{"message":"inference failed for prompt 未找到该账号"}}`, 500, ServerError},
		{"a duplicated function the client wrote", `{"messages":[{"role":"user","content":"explain: function name foo is duplicated"}]}`,
			`{"error":{"message":"Content check failed: explain: function name foo is duplicated"}}`, 400, Unknown},
		{"a 5 hour session limit the client wrote", `{"messages":[{"role":"user","content":"you've exceeded your 5 hour session limits"}]}`,
			`{"error":{"message":"Request refused: you've exceeded your 5 hour session limits"}}`, 429, RateLimited},
		{"the same 5 hour session limit the client did not write", `{"messages":[{"role":"user","content":"hi"}]}`,
			`{"error":{"message":"Request refused: you've exceeded your 5 hour session limits"}}`, 429, Quota},
	} {
		v := Classify(Response{Status: c.status, Body: []byte(c.body), Request: []byte(c.req), Model: "m1"})
		if v.Class != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, v.Class, v.Evidence, c.want)
		}
	}
}
