package classify

import (
	"net/http"
	"testing"
)

// TestVocabularyRoundFortyThreeOpenCodeModelError: hunt 43a #0, #1 and #2,
// labelled before the classifier ran (corpus README, "Vocabulary round
// forty-three"). A user relies on one model OpenCode no longer serves (an
// id it dropped, a free variant whose promotion ended) cooling only that
// endpoint, and on a model OpenCode serves on another of its APIs moving on
// to the next target, instead of the whole OpenCode account cooling and
// the operator being paged because OpenCode sends its model errors as 401.
// A 401 without OpenCode's ModelError type, or with it but other words, is
// a refused key and stays auth; a relay's own key at its upstream stays
// the relay's failure.
func TestVocabularyRoundFortyThreeOpenCodeModelError(t *testing.T) {
	chat := func(m string) string {
		return `{"model":"` + m + `","messages":[{"role":"user","content":"hi"}]}`
	}
	runHostile(t, []hostileCase{
		// 43a #0 (routatic/proxy#87), #1 (anomalyco/opencode#29568) and #2
		// (OnesoftQwQ/opencode-go-copilot#29), as in the corpus.
		{name: "OpenCode Go: model not supported", status: 401,
			body: `{"type":"error","error":{"type":"ModelError","message":"Model kimi-k2.7 is not supported"}}`,
			req:  chat("kimi-k2.7"), model: "kimi-k2.7", want: Unavailable},
		{name: "OpenCode Zen: not supported for format oa-compat", status: 401,
			body: `{"type": "error", "error": {"type": "ModelError", "message": "Model qwen3.7-max is not supported for format oa-compat"}}`,
			req:  chat("qwen3.7-max"), model: "qwen3.7-max", want: Unknown},
		{name: "OpenCode Zen: free promotion has ended", status: 401,
			body: `{"type":"error","error":{"type":"ModelError","message":"Free promotion has ended for Qwen3.6 Plus Free. You can continue using the model by subscribing to OpenCode Go - https://opencode.ai/go"}}`,
			req:  chat("qwen3.6-plus-free"), model: "qwen3.6-plus-free", want: Unavailable},
		// Variants (constructed): without "is", with no name (a relay's
		// note reports "Model  is not supported" for a request without
		// OpenCode's session header), no request or model known.
		{name: "model not supported, without 'is'", status: 401,
			body: `{"type":"error","error":{"type":"ModelError","message":"Model kimi-k2.7 not supported"}}`,
			want: Unavailable},
		{name: "model with an empty name", status: 401,
			body: `{"type":"error","error":{"type":"ModelError","message":"Model  is not supported"}}`,
			req:  chat("glm-5"), model: "glm-5", want: Unavailable},
		{name: "format wording without a request", status: 401,
			body: `{"type":"error","error":{"type":"ModelError","message":"Model gpt-5.5 is not supported for format anthropic"}}`,
			want: Unknown},

		// OpenCode's body quoted whole by a relay in front, keeping the
		// 401 (constructed: LiteLLM's lead, OpenRouter's metadata.raw with
		// the operator's own key).
		{name: "quoted by LiteLLM", status: 401,
			body: `{"error":{"message":"litellm.AuthenticationError: OpenAIException - {\"type\":\"error\",\"error\":{\"type\":\"ModelError\",\"message\":\"Model kimi-k2.7 is not supported\"}}","type":null,"param":null,"code":"401"}}`,
			req:  chat("kimi-k2.7"), model: "kimi-k2.7", want: Unavailable},
		{name: "quoted by OpenRouter with is_byok true", status: 401,
			body: `{"error":{"message":"Provider returned error","code":401,"metadata":{"raw":"{\"type\":\"error\",\"error\":{\"type\":\"ModelError\",\"message\":\"Model qwen3.7-max is not supported for format oa-compat\"}}","provider_name":"OpenCode","is_byok":true}}}`,
			req:  chat("qwen3.7-max"), model: "qwen3.7-max", want: Unknown},

		// Near-misses (constructed): the same words without OpenCode's
		// type, a bad key with its AuthError type, the ModelError type
		// with other words, a type that only starts with ModelError, and
		// the client's own words quoted back.
		{name: "OpenCode-like 401 with invalid_request_error type stays auth", status: 401,
			body: `{"type":"error","error":{"type":"invalid_request_error","message":"Model kimi-k2.7 is not supported"}}`,
			req:  chat("kimi-k2.7"), model: "kimi-k2.7", want: Auth},
		{name: "401 with no type stays auth", status: 401,
			body: `{"error":{"message":"Model kimi-k2.7 is not supported for format oa-compat"}}`,
			req:  chat("kimi-k2.7"), model: "kimi-k2.7", want: Auth},
		{name: "AuthError type stays auth", status: 401,
			body: `{"type":"error","error":{"type":"AuthError","message":"Invalid API key."}}`,
			req:  chat("kimi-k2.7"), model: "kimi-k2.7", want: Auth},
		{name: "ModelError type with other words stays auth", status: 401,
			body: `{"type":"error","error":{"type":"ModelError","message":"Invalid API key."}}`,
			req:  chat("kimi-k2.7"), model: "kimi-k2.7", want: Auth},
		{name: "ModelErrorException is not ModelError", status: 401,
			body: `{"type":"error","error":{"type":"ModelErrorException","message":"Model kimi-k2.7 is not supported"}}`,
			req:  chat("kimi-k2.7"), model: "kimi-k2.7", want: Auth},
		{name: "a feature of the model stays auth", status: 401,
			body: `{"type":"error","error":{"type":"ModelError","message":"Image input for this model is not supported"}}`,
			req:  chat("kimi-k2.7"), model: "kimi-k2.7", want: Auth},
		{name: "the client's own words quoted back", status: 401,
			body: `{"type":"error","error":{"type":"ModelError","message":"Free promotion has ended for everyone, tell me a story"}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":"Free promotion has ended for everyone, tell me a story"}]}`, model: "m", notAny: []Class{Unavailable}},
		{name: "a relay quoting a bad key's AuthError stays auth", status: 401,
			body: `{"error":{"message":"litellm.AuthenticationError: OpenAIException - {\"type\":\"error\",\"error\":{\"type\":\"AuthError\",\"message\":\"Model kimi-k2.7 is not supported\"}}","type":null,"param":null,"code":"401"}}`,
			req:  chat("kimi-k2.7"), model: "kimi-k2.7", want: Auth},
		{name: "the client's own ModelError object quoted back stays auth", status: 401,
			body: `{"error":{"message":"litellm.AuthenticationError: OpenAIException - {\"type\":\"error\",\"error\":{\"type\":\"ModelError\",\"message\":\"Model kimi-k2.7 is not supported\"}}","type":null,"param":null,"code":"401"}}`,
			req:  `{"model":"kimi-k2.7","messages":[{"role":"user","content":"{\"type\":\"error\",\"error\":{\"type\":\"ModelError\",\"message\":\"Model kimi-k2.7 is not supported\"}}"}]}`, model: "kimi-k2.7", want: Auth},
		// A relay's own key at its upstream (OpenRouter's is_byok false
		// beside OpenCode's raw body): the relay's failure, read first.
		{name: "relay's own key with OpenCode's body raw stays server_error", status: 401,
			body: `{"error":{"message":"Provider returned error","code":401,"metadata":{"raw":"{\"type\":\"error\",\"error\":{\"type\":\"ModelError\",\"message\":\"Model kimi-k2.7 is not supported\"}}","provider_name":"OpenCode","is_byok":false}}}`,
			req:  chat("kimi-k2.7"), model: "kimi-k2.7", want: ServerError},
		// SageMaker's ModelError is another envelope at 424 (corpus
		// sagemaker-modelerror-client-400-internal-server-exception-no-engine-424).
		{name: "SageMaker ModelError at 424 unchanged", status: 424,
			header: http.Header{"X-Amzn-Errortype": {"ModelError"}},
			body:   "{\"message\": \"Received client error (400) from primary with message \\\"{\\n  \\\"code\\\": 400,\\n  \\\"type\\\": \\\"InternalServerException\\\",\\n  \\\"message\\\": \\\"GET was unable to find an engine to execute this computation\\\"\\n}\"}",
			want:   ServerError},
	})
}

// TestVocabularyRoundFortyThreeBase64In5xx: hunt 43c #6. A user relies on
// a client whose image does not decode (llama-server answers a 500
// "Invalid base64 value") ending that request as the client's, instead of
// the local server being retried and cooled for every client as if it had
// failed. Base64 the server decodes for itself (its own key or config), a
// proxy's page and the client's own words stay server_error.
func TestVocabularyRoundFortyThreeBase64In5xx(t *testing.T) {
	img := `{"model":"qwen2.5-vl","messages":[{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"image_url","image_url":"/9j/4AAQSkZJRg"}]}]}`
	runHostile(t, []hostileCase{
		// 43c #6 (pop4959/Chunky#484), as in the corpus.
		{name: "llama-server 500 Invalid base64 value", status: 500,
			body: `{"error":{"code":500,"message":"Invalid base64 value","type":"server_error"}}`,
			req:  img, model: "qwen2.5-vl", want: BadRequest},
		// Variants (constructed): a full stop, a relay's request id,
		// Ollama's image-decode wording and TabbyAPI's, each as a 500.
		{name: "with a full stop", status: 500,
			body: `{"error":{"code":500,"message":"Invalid base64 value.","type":"server_error"}}`,
			req:  img, model: "qwen2.5-vl", want: BadRequest},
		{name: "behind a relay's request id", status: 500,
			body: `{"error":{"message":"Invalid base64 value (request id: 2026072312000012345)","type":"new_api_error"}}`,
			req:  img, model: "qwen2.5-vl", want: BadRequest},
		{name: "invalid base64 image data", status: 500,
			body: `{"error":"invalid base64 image data: illegal base64 data at input byte 4"}`,
			req:  img, model: "qwen2.5-vl", want: BadRequest},
		{name: "failed to read base64 image input", status: 500,
			body: `{"detail":"Failed to read base64 image input."}`,
			req:  img, model: "qwen2.5-vl", want: BadRequest},

		// Near-misses (constructed): the server's own base64 (a named key,
		// Go's bare decode error, a credential), proxy pages, a 504, and
		// the client's own words.
		{name: "a config key's base64 stays server_error", status: 500,
			body: `{"error":{"message":"Invalid base64 value for ` + "`GOOGLE_CREDENTIALS_B64`" + `.","type":"server_error"}}`,
			req:  img, model: "qwen2.5-vl", want: ServerError},
		{name: "Go's bare decode error stays server_error", status: 500,
			body: `{"error":{"message":"illegal base64 data at input byte 0","type":"server_error"}}`,
			req:  img, model: "qwen2.5-vl", want: ServerError},
		{name: "a credential that does not decode stays server_error", status: 500,
			body: `{"error":"failed to decode base64 credentials: illegal base64 data at input byte 12"}`,
			req:  img, model: "qwen2.5-vl", want: ServerError},
		{name: "a 502 proxy page stays server_error", status: 502,
			header: http.Header{"Content-Type": {"text/html"}},
			body:   `<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><p>Invalid base64 value</p><hr><center>nginx</center></body></html>`,
			req:    img, model: "qwen2.5-vl", want: ServerError},
		{name: "a 503 proxy JSON stays server_error", status: 503,
			body: `{"error":{"code":503,"message":"Service Unavailable.","param":null,"type":"cf_service_unavailable"}}`,
			req:  img, model: "qwen2.5-vl", want: ServerError},
		{name: "a 504 is timeout whatever it says", status: 504,
			body: `{"error":{"message":"Invalid base64 value"}}`,
			req:  img, model: "qwen2.5-vl", want: Timeout},
		{name: "the client's own words are no evidence", status: 500,
			body: `{"error":{"message":"Invalid base64 value"}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":"Explain: Invalid base64 value"}]}`, model: "m", want: ServerError},
	})
}

// TestVocabularyRoundFortyThreeMiniMaxToolResult: hunt 43c #12. A user
// relies on a history whose tool result answers no call in it (MiniMax's
// "tool result's tool id(…) not found (2013)") ending the request as the
// client's, instead of walking every target with the same broken turns
// because the weak code invalid_prompt stood beside it. MiniMax's other
// 2013 answers that prove nothing keep their classes.
func TestVocabularyRoundFortyThreeMiniMaxToolResult(t *testing.T) {
	chat := `{"model":"MiniMax-M2","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"call_function_z1pbgy47368b_1","content":"42"}]}`
	runHostile(t, []hostileCase{
		// 43c #12 (agent0ai/agent-zero#1754), as in the corpus (no
		// request: the words alone decide), and with a request that holds
		// the id (placed before this round by the not-found scope).
		{name: "MiniMax Responses tool result's tool id not found, code invalid_prompt", status: 400,
			body: `{"error":{"message":"invalid params, tool result's tool id(call_function_z1pbgy47368b_1) not found (2013)","code":"invalid_prompt"}}`,
			want: BadRequest},
		{name: "the same with the request that holds the id", status: 400,
			body: `{"error":{"message":"invalid params, tool result's tool id(call_function_z1pbgy47368b_1) not found (2013)","code":"invalid_prompt"}}`,
			req:  chat, model: "MiniMax-M2", want: BadRequest},
		// Variants (constructed): MiniMax's Anthropic envelope, no request.
		{name: "in MiniMax's Anthropic envelope", status: 400,
			body: `{"type":"error","error":{"type":"bad_request_error","message":"invalid params, tool result's tool id(toolu_01AbCdEf) not found (2013)","http_code":"400"}}`,
			want: BadRequest},

		// Near-misses: the corpus's MiniMax 2013 that proves nothing
		// (minimax-invalid-chat-setting-2013-400), with and without the
		// weak code, and the client's own words quoted back.
		{name: "invalid chat setting (2013) stays unknown", status: 400,
			body: `{"type":"error","error":{"type":"bad_request_error","message":"invalid params, invalid chat setting (2013)","http_code":"400"},"request_id":"0660ea9839a56b8a49fc9767f4f209f6"}`,
			req:  chat, model: "MiniMax-M2", want: Unknown},
		{name: "invalid chat setting beside invalid_prompt stays unknown", status: 400,
			body: `{"error":{"message":"invalid params, invalid chat setting (2013)","code":"invalid_prompt"}}`,
			req:  chat, model: "MiniMax-M2", want: Unknown},
		{name: "the client's own words quoted back", status: 400,
			body: `{"error":{"message":"Invalid prompt: why does it say tool result's tool id(x) not found","code":"invalid_prompt"}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":"why does it say tool result's tool id(x) not found"}]}`, model: "m", notAny: []Class{BadRequest}},
	})
}
