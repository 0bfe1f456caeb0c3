package classify

import "testing"

// The eighth held-out round (testdata/corpus/README.md): a body that is one
// message and nothing else, a relay's fallback errors behind its primary
// one, media-count caps, a gateway that got no answer from its upstream,
// successive same-role messages and "update the … and try again", a feature
// not enabled for an API version, allowlisted access, expired-key codes, an
// endpoint a server does not have, a missing chat template, and a relay's
// unpriced model. Each table names what a rule covers and, after it, what it
// must not catch.

// TestLoneMessageEnvelope: a 2xx body whose one member is a message (AWS's
// {"message":…}, FastAPI's {"detail":…}) is an error by its structure; its
// words decide the class, unknown where they say nothing.
func TestLoneMessageEnvelope(t *testing.T) {
	run(t, []tc{
		{"bedrock errors in a 200", 200, nil, `{"message":"The model returned the following errors: messages.1.content.0.type: Expected ` + "`thinking`" + `, but found ` + "`text`" + `. A final assistant message must start with a thinking block."}`, false, "bad_request", "phrase:must start with"},
		{"lone message that says nothing", 200, nil, `{"message":"Something happened"}`, false, "unknown", "body:message"},
		{"lone detail", 200, nil, `{"detail":"Not authenticated"}`, false, "auth", "phrase:not authenticated"},
		{"inside a stream", 200, nil, "data: {\"message\":\"The model returned the following errors: a final assistant message must start with a thinking block\"}\n\n", true, "bad_request", "phrase:must start with"},
		{"lone message in a 400 keeps its reading", 400, nil, `{"message":"Rate limit exceeded"}`, false, "rate_limited", ""},
		// Must not catch: a message beside other members, an answer, a
		// message object (Ollama), an empty message, a non-string message.
		{"message beside an id", 200, nil, `{"id":"x","message":"hello there"}`, false, "ok", ""},
		{"ollama message object", 200, nil, `{"message":{"role":"assistant","content":"hi"}}`, false, "ok", ""},
		{"empty message", 200, nil, `{"message":""}`, false, "ok", ""},
		{"numeric message", 200, nil, `{"message":42}`, false, "ok", ""},
		{"message and choices", 200, nil, `{"message":"ok","choices":[{"index":0,"message":{"role":"assistant","content":"hi"}}]}`, false, "ok", ""},
		{"two NDJSON lines", 200, nil, "{\"message\":\"a\"}\n{\"message\":\"b\"}", false, "ok", ""},
	})
}

// TestRelayFallbackCut: a relay's message that goes on, after "Error doing
// the fallback", with the errors of the targets it fell back to is read up
// to that lead: the answer's own error is its primary target's.
func TestRelayFallbackCut(t *testing.T) {
	run(t, []tc{
		{"primary bad input, fallbacks too long", 400, nil, `{"error":{"message":"litellm.BadRequestError: upstream said messages.3.content: roles must alternate\nReceived Model Group=a\nError doing the fallback: litellm.ContextWindowExceededError: prompt is too long: 209303 tokens > 200000 maximum","type":null,"param":null,"code":"400"}}`, false, "bad_request", "phrase:must alternate"},
		{"primary rate limit, fallback auth", 429, nil, `{"error":{"message":"litellm.RateLimitError: rate limit reached\nError doing the fallback: litellm.AuthenticationError: invalid api key"}}`, false, "rate_limited", "phrase:rate limit"},
		// Must not catch: a message that opens with the lead (nothing
		// precedes it), and one without it.
		{"lead first is read whole", 400, nil, `{"error":{"message":"Error doing the fallback: prompt is too long: 300000 tokens > 200000 maximum"}}`, false, "context_length", "phrase:prompt is too long"},
		{"fallback word alone", 400, nil, `{"error":{"message":"No fallback model group found; prompt is too long"}}`, false, "context_length", "phrase:prompt is too long"},
	})
}

// TestMediaCountCap: a count of images, videos or audio clips over the
// endpoint's per-request cap is overflow.
func TestMediaCountCap(t *testing.T) {
	run(t, []tc{
		{"vllm images per request", 400, nil, `{"object":"error","message":"At most 1 image(s) may be provided in one request.","type":"BadRequestError","param":null,"code":400}`, false, "overflow", "phrase:at most…image"},
		{"videos", 400, nil, `{"error":{"message":"At most 2 videos may be provided"}}`, false, "overflow", ""},
		{"audio", 400, nil, `{"error":{"message":"at most 1 audio clip per prompt"}}`, false, "overflow", ""},
		// Must not catch: a size, or a count of something else.
		{"image size", 400, nil, `{"error":{"message":"Each image must be at most 20MB"}}`, false, "bad_request", "phrase:must be"},
		{"stop sequences", 400, nil, `{"error":{"message":"At most 4 stop sequences may be provided"}}`, false, "bad_request", "phrase:at most"},
	})
}

// TestUpstreamNoResponse: a gateway that says it got no answer from its
// upstream is the upstream failing, whatever status it chose.
func TestUpstreamNoResponse(t *testing.T) {
	run(t, []tc{
		{"cloudflare gateway 2005 as a 400", 400, nil, `{"success":false,"result":[],"messages":[],"error":[{"code":2005,"message":"Failed to get response from provider"}]}`, false, "server_error", "phrase:failed to get response from"},
		{"no response from upstream", 400, nil, `{"error":{"message":"no response from upstream"}}`, false, "server_error", ""},
		{"envoy", 400, nil, `upstream connect error or disconnect/reset before headers`, false, "server_error", ""},
		// Must not catch: a response the client is asked to change, or
		// a client that got no answer echoing the words.
		{"response_format bad", 400, nil, `{"error":{"message":"response_format must be an object"}}`, false, "bad_request", "phrase:must be"},
	})
	req := []byte(`{"messages":[{"role":"user","content":"why: Failed to get response from provider?"}]}`)
	v := Classify(Response{Status: 400, Body: []byte(`{"error":{"message":"Failed to get response from provider"}}`), Request: req})
	if v.Class == ServerError {
		t.Fatalf("got %+v: echoed wording decided server_error", v)
	}
}

// TestRoleOrderAndFixInstruction: successive messages of one role are the
// client's order, and an instruction to update a named part of the request
// and try again is bad input, both before the capability gaps ("does not
// support", "is not supported").
func TestRoleOrderAndFixInstruction(t *testing.T) {
	run(t, []tc{
		{"deepseek successive", 400, nil, `{"error":{"message":"deepseek-reasoner does not support successive user or assistant messages (messages[1] and messages[2] in your input). You should interleave the user/assistant messages in the message sequence.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`, false, "bad_request", "phrase:successive…messages"},
		{"consecutive user messages", 400, nil, `{"error":{"message":"Consecutive user messages are not supported"}}`, false, "bad_request", "phrase:consecutive…messages"},
		{"vertex update the mimeType", 400, nil, `{"error":{"code":400,"message":"Unable to submit request because it has a mimeType parameter with value application/json, which is not supported. Update the mimeType and try again.","status":"INVALID_ARGUMENT"}}`, false, "bad_request", "phrase:update the…and try again"},
		{"change the value", 400, nil, `{"error":{"message":"The value is not supported. Please change the value of top_k and try again."}}`, false, "bad_request", ""},
		// Must not catch: a capability gap with no fix named, a gap that
		// says "interleaved", an overload that asks for a retry.
		{"thinking level not supported", 400, nil, `{"error":{"code":400,"message":"Unable to submit request because thinking_level MEDIUM is not supported by this model.","status":"INVALID_ARGUMENT"}}`, false, "unknown", "phrase:is not supported"},
		{"interleaved thinking gap", 400, nil, `{"error":{"message":"This model does not support interleaved thinking"}}`, false, "unknown", "phrase:does not support"},
		{"overloaded try again", 503, nil, `{"error":{"message":"The model is overloaded. Please wait and try again."}}`, false, "server_error", ""},
		// Nor a fix that is the account's, not the request's: a key, a
		// token, a payment method, a plan (never the client's bad input:
		// the status decides, or the account's own words).
		{"a field whose name holds an account word", 400, nil, `{"error":{"message":"Please update the tokenizer option and try again"}}`, false, "bad_request", "phrase:update the…and try again"},
		{"another", 400, nil, `{"error":{"message":"Change the keywords field and try again"}}`, false, "bad_request", "phrase:change the…and try again"},
		{"update the api key", 400, nil, `{"error":{"message":"Please update the API key and try again"}}`, false, "unknown", ""},
		{"change the access token", 400, nil, `{"error":{"message":"Change the access token and try again."}}`, false, "unknown", ""},
		{"update the payment method", 400, nil, `{"error":{"message":"Please update the payment method on file and try again"}}`, false, "unknown", ""},
		{"correct the billing plan", 400, nil, `{"error":{"message":"Correct the billing plan and try again"}}`, false, "quota", "phrase:billing"},
	})
}

// TestNotEnabledForVersion: a feature not enabled for an API version is a
// capability gap (unknown), not the bad-input "api version".
func TestNotEnabledForVersion(t *testing.T) {
	run(t, []tc{
		{"mode ANY for v1beta", 400, nil, `{"error":{"code":400,"message":"Function calling mode ` + "`ANY`" + ` is not enabled for api version v1beta","status":"INVALID_ARGUMENT"}}`, false, "unknown", "phrase:not enabled for…version"},
		{"for this version", 400, nil, `{"error":{"message":"Grounding is not enabled for this version"}}`, false, "unknown", ""},
		// Must not catch: an api version the client got wrong, a feature
		// not enabled for a project (access).
		{"invalid api version", 400, nil, `{"error":{"code":"BadRequest","message":"Unsupported api version 2099-01-01"}}`, false, "bad_request", "phrase:api version"},
		{"not enabled for project", 403, nil, `{"error":{"code":403,"message":"Vertex AI API is not enabled for project 123","status":"PERMISSION_DENIED"}}`, false, "forbidden", ""},
	})
}

// TestAllowlist: access a provider grants through an allowlist is the
// account's (forbidden), before the weak "billing" a way out may name.
func TestAllowlist(t *testing.T) {
	run(t, []tc{
		{"vertex restricted setting", 400, nil, `{"error":{"code":400,"message":"User has requested a restricted HarmBlockThreshold setting BLOCK_NONE. You can get access either (a) through an allowlist via your Google account team, or (b) by switching your account type to monthly invoiced billing.","status":"INVALID_ARGUMENT"}}`, false, "forbidden", "phrase:allowlist"},
		{"not on the whitelist", 403, nil, `{"error":{"message":"Your IP is not in the whitelist"}}`, false, "forbidden", "phrase:whitelist"},
		{"cn whitelist", 400, nil, `{"error":{"message":"该模型仅对白名单用户开放"}}`, false, "forbidden", "phrase:白名单"},
		// Must not catch: billing wording without a list, and the word the
		// client sent.
		{"billing alone", 400, nil, `{"error":{"message":"Billing is not set up for this project"}}`, false, "quota", "phrase:billing"},
	})
	req := []byte(`{"messages":[{"role":"user","content":"explain an allowlist"}]}`)
	v := Classify(Response{Status: 400, Body: []byte(`{"error":{"message":"cannot answer: explain an allowlist"}}`), Request: req})
	if v.Class == Forbidden {
		t.Fatalf("got %+v: echoed wording decided forbidden", v)
	}
}

// TestExpiredKeyCode: an expired key's code (LiteLLM's type expired_key) is
// auth, even as a 400 with the key in param.
func TestExpiredKeyCode(t *testing.T) {
	run(t, []tc{
		{"litellm expired key", 400, nil, `{"error":{"message":"Authentication Error - Expired Key. Key Expiry time 2025-01-01","type":"expired_key","param":"sk-1234...","code":"400"}}`, false, "auth", "type:expired_key"},
		{"key_expired code in a 400", 400, nil, `{"error":{"message":"expired","code":"key_expired","param":"key"}}`, false, "auth", "code:key_expired"},
		// Must not catch: an expired thing that is not a key.
		{"expired file", 400, nil, `{"error":{"message":"The file has expired","type":"invalid_request_error","code":"file_expired"}}`, false, "unknown", ""},
	})
}

// TestGoneEndpointAndTemplate: an endpoint or method a server does not
// have, a model served without a chat template, and a relay that set no
// price for the model: this target does not serve the request's endpoint or
// model (unavailable), even in a 200, a 422 or a 500.
func TestGoneEndpointAndTemplate(t *testing.T) {
	run(t, []tc{
		{"lm studio unexpected endpoint in a 200", 200, nil, `{"error":"Unexpected endpoint or method. (POST /chat/completions)"}`, false, "unavailable", "phrase:unexpected endpoint"},
		{"unknown endpoint 400", 400, nil, `{"error":{"message":"Unknown endpoint /v1/chat"}}`, false, "unavailable", "phrase:unknown endpoint"},
		{"tgi template", 422, nil, `{"error":"Template error: template not found","error_type":"template_error"}`, false, "unavailable", "phrase:template error…not found"},
		{"chat template not found", 400, nil, `{"error":{"message":"chat template not found for model"}}`, false, "unavailable", ""},
		{"new-api price not set 500", 500, nil, `{"error":{"message":"模型 m 倍率或价格未配置，请联系管理员设置；Model m ratio or price not set, please set or start self-use mode","type":"new_api_error","code":"model_price_error"}}`, false, "unavailable", ""},
		{"price not set 400", 400, nil, `{"error":{"message":"model x price not set"}}`, false, "unavailable", "phrase:price not set"},
		// Must not catch: a template the client named (a prompt
		// template), an endpoint the server cannot reach, a plain 500.
		{"prompt template not found", 404, nil, `{"error":{"message":"Prompt template not found"}}`, false, "unavailable", "status:404"},
		{"prompt template 400", 400, nil, `{"error":{"message":"Prompt template not found"}}`, false, "unknown", ""},
		{"plain 500", 500, nil, `{"error":{"message":"price lookup failed"}}`, false, "server_error", ""},
	})
}
