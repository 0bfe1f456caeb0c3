package classify

import (
	"strings"
	"testing"
)

// Round 54d's rules, from hunts 54f (NAVER CLOVA Studio's documented error
// tables) and 54g (errors relayed by AI gateways), each beside the near
// answers it must leave alone and an echo guard: the client's own words
// quoted back never steer the class.

// (1) An error carried in a top-level status object. CLOVA Studio's common
// response format puts the outcome in {"status":{"code","message"}} (success:
// {"status":{"code":"20000","message":"OK"},"result":{}},
// api.ncloud-docs.com/docs/en/ai-naver-clovastudiojp-summary); its error
// tables give codes 40001…42900 and 5xxxx (clovastudio-troubleshoot-c4xx,
// -s5xx; public HCX clients test HTTP 429 with
// {"status":{"code":"42901","message":"Too many requests"}}). Such a status
// object with a code that is no success code is read as an error object is:
// its message is the error's text. A success code (20000, a 2xx, 0) is no
// error; a string status (Responses' "completed") is not an object.
func TestRoundFiftyFourDStatusObject(t *testing.T) {
	env := func(code, msg string) string {
		return `{"status":{"code":"` + code + `","message":"` + msg + `"}}`
	}
	run(t, []tc{
		{"CLOVA's model not found", 400, nil, env("40080", "model not found"), false, "unavailable", "phrase:model…not found"},
		{"CLOVA's context length", 400, nil, env("40003", "Context length exceeded"), false, "context_length", ""},
		{"the code as a number", 400, nil, `{"status":{"code":40080,"message":"model not found"}}`, false, "unavailable", "phrase:model…not found"},
		{"in a 2xx, the error is read", 200, nil, env("40080", "model not found"), false, "unavailable", "phrase:model…not found"},

		// Near answers: success codes, a bare invalid parameter, CLOVA's
		// 500 "Model unavailable" (a retry is the remedy) keep their class.
		{"a 2xx success with 20000 is no error", 200, nil, `{"status":{"code":"20000","message":"OK"},"result":{"message":{"role":"assistant","content":"hi"}}}`, false, "ok", ""},
		{"a bare 20000 success", 200, nil, env("20000", "OK"), false, "ok", ""},
		{"a 2xx with code 200", 200, nil, env("200", "model not found in cache, loaded"), false, "ok", ""},
		{"CLOVA's 64000 stays server_error", 500, nil, env("64000", "Model unavailable"), false, "server_error", ""},
		{"a bare invalid parameter stays unknown", 400, nil, env("40001", "invalid parameter"), false, "unknown", ""},
		{"a Responses status string is not an object", 200, nil, `{"id":"resp_1","object":"response","status":"completed","output":[{"type":"message","content":[{"type":"output_text","text":"model not found"}]}]}`, false, "ok", ""},
		{"a status object with no code", 400, nil, `{"status":{"message":"model not found"}}`, false, "unknown", "status:400"},
	})
	// Echo guard: the client's own words as the status object's message.
	req := `{"model":"m","messages":[{"role":"user","content":"model not found"}]}`
	if v := Classify(Response{Status: 400, Body: []byte(env("40080", "model not found")), Request: []byte(req), Model: "m"}); v.Class == Unavailable {
		t.Errorf("the client's words as a status object's message: %s (%s)", v.Class, v.Evidence)
	}
}

// (2) "model fade out": NAVER's 40082, cause "Model deprecation", fix
// "change to a supported model" (clovastudio-troubleshoot-c4xx): the model
// is retired at this endpoint, as "decommissioned" is → unavailable. Only
// said of a model: a fade-out of audio in a TTS request is the client's.
func TestRoundFiftyFourDModelFadeOut(t *testing.T) {
	run(t, []tc{
		{"CLOVA's 40082", 400, nil, `{"status":{"code":"40082","message":"model fade out"}}`, false, "unavailable", "phrase:model fade out"},
		{"in an error object", 400, nil, `{"error":{"message":"The model has faded out; change to a supported model."}}`, false, "unavailable", ""},
		// Near answers: a fade-out that is no model's.
		{"an audio fade out is not a model's", 400, nil, `{"error":{"message":"Invalid fade out duration for audio."}}`, false, "unknown", ""},
	})
	echoGuardEv(t, "model fade out", 400, "phrase:model fade")
}

// (3) A gateway key that reached or exceeded its usage limit, sent as 401
// (LLM Gateway: "Unauthorized: LLMGateway API key reached its usage limit.",
// code invalid_api_key, docs.llmgateway.io/resources/error-handling; raised
// with 401 when the key's usage reaches its usageLimit): the key was read
// and is good, its own allowance is spent → quota, as spentPhrases' other
// forms. 401 only: a 429 is read as it was (its own phrase rows), and a 401
// whose key is refused stays auth.
func TestRoundFiftyFourDKeyUsageLimit401(t *testing.T) {
	llmgw := `{"error":{"message":"Unauthorized: LLMGateway API key reached its usage limit.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`
	run(t, []tc{
		{"LLM Gateway's key usage limit", 401, nil, llmgw, false, "quota", "phrase:reached its usage limit"},
		{"exceeded its usage limit", 401, nil, `{"error":{"message":"API key has exceeded its usage limit."}}`, false, "quota", "phrase:exceeded its usage limit"},
		{"usage limit reached", 401, nil, `{"error":{"message":"Key usage limit reached."}}`, false, "quota", "phrase:usage limit reached"},

		// Near answers.
		{"a refused key stays auth", 401, nil, `{"error":{"message":"Unauthorized: invalid API key.","code":"invalid_api_key"}}`, false, "auth", ""},
		{"a 429 keeps its reading", 429, nil, `{"error":{"message":"Key usage limit reached."}}`, false, "quota", "phrase:usage limit…reached"},
	})
	// Echo guard: the client's words quoted back in a 401.
	req := `{"model":"m","messages":[{"role":"user","content":"reached its usage limit"}]}`
	for _, body := range []string{
		`{"error":{"message":"Unauthorized: reached its usage limit"}}`,
		`{"error":{"message":"reached its usage limit"}}`,
	} {
		if v := Classify(Response{Status: 401, Body: []byte(body), Request: []byte(req), Model: "m"}); v.Class == Quota {
			t.Errorf("the client's words quoted back at 401: %s (%s)", v.Class, v.Evidence)
		}
	}
}

// (4) OpenRouter relaying an upstream's 401 under metadata.raw without an
// is_byok member (OpenRouterTeam/ai-sdk-provider#24). behaviour.md reads a
// relay's answer as about its own key only where the relay says so
// (is_byok false); without the member nothing proves whose key the upstream
// refused (the maintainer asked whether a BYOK key was set), so the 401
// stays auth: a known miss in the corpus, pinned here so a rule that moves
// it is noticed.
func TestRoundFiftyFourDRelayedNoByokStaysAuth(t *testing.T) {
	body := `{"error":{"message":"Provider returned error","code":401,"metadata":{"raw":"{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"invalid x-api-key\"}}","provider_name":"Anthropic","isDownstreamPipeClean":true,"isErrorUpstreamFault":true}}}`
	v := Classify(Response{Status: 401, Body: []byte(body)})
	if v.Class != Auth || !strings.HasPrefix(v.Evidence, "status:401") {
		t.Errorf("relayed 401 without is_byok: %s (%s), want auth (status:401)", v.Class, v.Evidence)
	}
}
