package classify

// The members the rules read, by where vendors put them: scalar is called by
// the walk (scan.go) for every string or literal it meets.

// scalar records a string (str) or literal value at key depth d.
func (s *scanner) scalar(d int, v []byte, str bool) {
	f := &s.f
	if d == 0 {
		return
	}
	if !str && eq(v, "null") {
		return
	}
	k0, last := s.path[0], s.key(d-1)
	if f.detailOpen && d >= 2 && eq(s.key(d-2), "detail") {
		f.item.add(last, v, str)
	}
	if d >= 2 && eq(k0, "content") {
		f.antContent = true // a member of a block of an Anthropic message's content
	}
	if !str && f.retryMember == nil && (d <= 2 && retryMember(k0, last, d) || d == 3 && routerRetryMember(k0, s.key(1), last)) {
		f.retryMember, f.retryKey = v, last
	}
	if !str && d == 2 && f.resetMember == nil && resetMember(k0, last) {
		f.resetMember, f.resetKey = v, last
	}
	if str && f.windowKey == nil && foldKey(last, windowKeys[:]) {
		f.windowKey, f.windowVal = last, v
	}
	switch d {
	case 1:
		switch string(k0) {
		case "error":
			// A blank error string beside a success is none: a server
			// whose untagged Go struct writes {"Error":"",…} on every
			// answer (read as "error" since round 68, canonKey) failed
			// each one (review 68f).
			f.hasError = f.hasError || !str || len(v) > 0
			f.addText(v)
			if str {
				f.oauthError = v
			}
		case "error_description": // OAuth 2.0's (RFC 6749 §5.2), beside its error code
			f.oauthDesc = str
		case "message", "Message", "detail", "error_message", "error_msg", "errorMessage": // AWS writes {"Message":"…"} in places, a Lambda function {"errorMessage":"…","errorType":"…"}; a proxy built on one adds "errorCode"
			if str {
				f.addText(v)
				f.topText = f.topText || len(v) > 0
			}
		case "errors": // a list of bare sentences (Crusoe: {"errors":["Request blocked: parameter 'reasoning' is not allowed"]})
			if str { // read, but not taken for an error by itself: a 2xx is not failed by it
				f.addText(v)
			}
		case "msg", "errmsg": // a vendor status envelope's message: read only with its status (statusEnvelope)
			if str {
				f.topMsg = v
			}
		case "status": // an integer status of a vendor envelope; "completed" (Responses API) is none
			f.topStatus = atoi(v)
		case "text":
			if str {
				f.workerText = v
				f.payload = f.payload || len(v) > 0
			}
		case "error_code": // Baidu: {"error_code":17,"error_msg":"…"}
			if nonZero(v) {
				f.hasError = true
				f.codeInBody = "body:error_code"
				if str {
					f.topCode, f.topCodeIn = v, "error_code"
				}
			}
		case "type":
			f.topType = v
			if eq(v, "error") {
				f.hasError = true
			}
		case "object":
			if eq(v, "error") {
				f.hasError = true
			}
		case "code", "errorCode":
			s.code(&f.topCode, v, str)
			if str {
				f.topCodeIn = "code"
				if k0[0] == 'e' {
					f.topCodeIn = "errorCode"
				}
			}
		case "__type":
			f.amzType = v
		case "param":
			f.param = paramValue(v)
			proseParam(f, v, str)
		case "stop_reason":
			f.stopReason, f.wholeStop = v, true
		case "reason": // a flat envelope's code (Novita: {"code":403,"reason":"INVALID_API_KEY","message":"…"}), in capitals only
			// Not a bad-input one: Novita sends INVALID_REQUEST_BODY for a
			// capability the model lacks too (corpus).
			if str && len(f.topCode) == 0 && len(v) > 2 && !hasLower(v) {
				if r, _, ok := lookupCode(srcCode, v); ok && !r.badInput {
					f.topCode, f.topCodeIn = v, "reason"
				}
			}
		case "error_type": // TGI's stream error: {"error":"Input validation error: …","error_type":"validation"}
			f.validation = f.validation || str && eq(v, "validation")
			if str {
				f.routerType = v // OpenRouter's Responses skin (openrouter.go)
			}
		default:
			if str && len(v) > 0 && payloadKey(k0) {
				f.payload = true
			}
		}
		return
	case 2:
		if str && eq(k0, "response") && eq(last, "error_type") {
			f.routerType = v // OpenRouter's Responses skin: {"type":"response.failed","response":{…,"error_type":"server"}} (openrouter.go)
		}
		switch string(k0) {
		case "base_resp": // MiniMax: {"base_resp":{"status_code":1008,"status_msg":"…"}}
			switch string(last) {
			case "status_code":
				if nonZero(v) {
					f.hasError = true
					f.codeInBody = "body:base_resp"
					f.baseCode = v
				}
			case "status_msg":
				if str {
					f.addText(v)
				}
			}
			return
		case "errors": // Cloudflare: {"success":false,"errors":[{"code":7003,"message":"…"}]}; JSON:API's error objects: {"errors":[{"status":"429","title":"…","detail":"…"}]}, the explanation in detail
			if str && (eq(last, "message") || eq(last, "detail")) {
				f.addText(v)
			}
			// watsonx: {"errors":[{"code":"token_quota_reached","message":"…"}],"status_code":403};
			// a string code, the first one, read as a top-level code (Cloudflare's are numbers).
			if str && eq(last, "code") && len(f.topCode) == 0 {
				f.topCode, f.topCodeIn = v, "errors"
			}
			return
		case "fault": // Apigee's (Google Cloud's API gateway in front of an enterprise's endpoints): {"fault":{"faultstring":"…","detail":{"errorcode":"policies.ratelimit.QuotaViolation"}}}
			if str && eq(last, "faultstring") {
				f.hasError = true
				f.addText(v)
			}
			return
		case "extensions": // IBM's: {"status_code":400,"error":"Bad Request","message":"Invalid argument or out of range","extensions":{"code":"INVALID_INPUT","reason":"…"}}, the detail in its reason
			if str && eq(last, "reason") {
				f.addText(v)
			}
			return
		case "external_model_message", "external_model_error": // Databricks: {"error":"Received error from …","external_model_message":{"error_code":"…","message":"…"}}, or {"external_model_provider":"…","external_model_error":{…}}
			if str && eq(last, "message") {
				f.addText(v)
			}
			return
		case "detail": // FastAPI: {"detail":{"error":"Not authenticated"}}, KoboldCpp's {"detail":{"msg":"…","type":"…"}}
			if str && (eq(last, "error") || eq(last, "message") || eq(last, "msg")) {
				f.addText(v)
			}
			// A code beside the detail object's message (Jina: {"detail":
			// {"message":"Input text exceeds …","code":"INPUT_TOKEN_LIMIT_EXCEEDED"}}),
			// read as the answer's code where it has none at the top, and
			// only one the tables settle that is no bad-input one (words
			// and structure prove bad input, as for a flat envelope's reason).
			if str && eq(last, "code") && len(f.topCode) == 0 {
				if r, _, ok := lookupCode(srcCode, v); ok && !r.badInput {
					f.topCode, f.topCodeIn = v, "detail"
				}
			}
			return
		case "incomplete_details": // Responses API: {"status":"incomplete","incomplete_details":{"reason":"content_filter"}}
			if eq(last, "reason") && eq(v, "content_filter") {
				f.respFilter = true
			}
			return
		case "output": // Responses API: output[].type "function_call" is an answer
			if eq(last, "type") && eq(v, "function_call") {
				f.respContent = true
			}
			return
		case "status": // NAVER CLOVA Studio: {"status":{"code":"40080","message":"model not found"}}; read with its code (statusObject)
			switch string(last) {
			case "code":
				f.statusCode = v
			case "message":
				if str {
					f.statusMsg = v
				}
			}
			return
		case "header": // iFlytek Spark: {"header":{"code":11200,"message":"…","sid":"…"}}
			switch string(last) {
			case "code":
				if nonZero(v) && !eq(v, "200") { // 0 (Spark) or an HTTP-like 200 is a success
					f.hasError = true
					f.codeInBody = "body:header.code"
				}
			case "message":
				if str {
					f.addText(v)
				}
			}
			return
		}
		if eq(k0, "error") {
			switch string(last) {
			case "message":
				f.addText(v)
			case "detail", "description": // Llama Stack: {"error":{"detail":"…"}}; Infomaniak: {"result":"error","error":{"code":"validation_failed","description":"Validation failed","errors":[…]}}
				if str {
					f.addText(v)
				}
			case "type":
				f.errType = v
			case "code":
				s.code(&f.errCode, v, str)
			case "status":
				if str {
					f.errStatus = v
				} else if f.numCode == 0 {
					f.numCode = atoi(v)
				}
			case "param":
				f.param = paramValue(v)
				proseParam(f, v, str)
			case "error_type": // OpenRouter's Messages skin and availability errors (openrouter.go)
				if str {
					f.routerType = v
				}
			}
			return
		}
		switch string(last) {
		case "blockReason":
			if eq(k0, "promptFeedback") {
				f.blockReason = v
			}
		case "finishReason":
			if eq(k0, "candidates") && f.finishReason == nil {
				f.finishReason = v
			}
		case "finish_reason":
			if eq(k0, "choices") && f.oaiFinish == nil {
				f.oaiFinish = v
			}
		case "stop_reason":
			if eq(k0, "delta") {
				f.stopReason = v
			}
		}
		return
	}
	if str && eq(last, "msg") { // pydantic detail[].msg, at any depth
		f.addText(v)
	}
	if str && eq(last, "_errors") { // Zod's formatted error: {"field":{"_errors":["Field is required"]}}
		f.addText(v)
		switch string(s.key(d - 2)) {
		case "details", "error", "errors": // the form's own _errors, under its wrapper
		default:
			f.fieldErrors = true
		}
	}
	// d >= 3
	k1 := s.path[1]
	switch string(k0) {
	case "error":
		switch {
		case eq(k1, "details"):
			// Only where Google puts them (ErrorInfo.reason, RetryInfo.
			// retryDelay, QuotaFailure.violations[].quotaId): deeper, a
			// value may be the client's JSON quoted back.
			switch {
			case d == 3 && eq(last, "reason"):
				if f.nReasons < maxReasons {
					f.reasons[f.nReasons] = v
					f.nReasons++
				}
			case d == 4 && eq(last, "quotaId") && eq(s.key(2), "violations"):
				quotaPeriod(f, v)
			case d == 4 && eq(last, "quotaValue") && eq(s.key(2), "violations") && f.inputQuota && f.tokenCap == 0:
				f.tokenCap, _ = number(v)
			case d == 3 && eq(last, "retryDelay"):
				f.retryDelay = v
			case d == 3 && eq(last, "error_code") && str:
				f.detailCode = v // Anthropic's {"error":{"details":{"error_code":…}}} (details.go)
			}
			if d >= 4 && eq(s.key(2), "fieldViolations") {
				f.fieldViolations = true
			}
		case eq(k1, "innererror") && d == 3 && eq(last, "code"):
			f.innerCode = v
		case eq(k1, "errors") && d == 3 && eq(last, "description") && str:
			// The items of a validation error (Infomaniak's, as Laravel
			// words them: {"error":{"description":"Validation failed",
			// "errors":[{"code":"validation_rule_in","description":"The
			// selected model is invalid.","context":{"attribute":"model"}}]}}).
			f.addText(v)
		case eq(k1, "message") && d == 3 && eq(last, "error") && str:
			// An error.message that is an object with its own error string
			// (LiteLLM's guardrail block: {"error":{"message":{"error":
			// "Violated guardrail policy", "bedrock_guardrail_response":…}}}).
			f.addText(v)
		case eq(k1, "metadata") && d == 3 && eq(last, "raw") && str:
			f.addText(v)
			f.relayRaw = true
		case eq(k1, "metadata") && d == 3 && eq(last, "is_byok") && !str && eq(v, "false"):
			f.relayOwnKey = true
		case eq(k1, "metadata") && d == 3 && eq(last, "error_type") && str:
			f.routerType = v // OpenRouter: {"error":{"code":429,"metadata":{"error_type":"rate_limit_exceeded"}}} (openrouter.go)
		case eq(k1, "availability") && d == 3 && eq(last, "code") && str:
			f.routerAvail = v // OpenRouter: {"error":{…,"availability":{"code":"model_deprecated",…}}} (openrouter.go)
		case eq(k1, "error") && d == 3 && eq(last, "message") && str:
			// An upstream's envelope wrapped whole in a relay's "error"
			// ({"error":{"error":{"message":"More credits are required…",
			// "code":402},"code":402}}).
			f.addText(v)
		}
	case "fault": // Apigee: {"fault":{"faultstring":"…","detail":{"errorcode":"policies.ratelimit.QuotaViolation"}}}
		if d == 3 && eq(k1, "detail") && eq(last, "errorcode") && str && len(f.errCode) == 0 {
			f.errCode = v
		}
	case "response": // Responses API: {"type":"response.failed","response":{"error":{…}}}
		switch {
		case d == 3 && eq(k1, "incomplete_details") && eq(last, "reason") && eq(v, "content_filter"):
			f.respFilter = true // {"type":"response.incomplete","response":{"incomplete_details":{…}}}
		case eq(k1, "output") && (d == 3 && eq(last, "type") && eq(v, "function_call") ||
			d == 4 && eq(s.key(2), "content") && eq(last, "text") && str && len(v) > 0):
			f.respContent = true
		}
		if d == 3 && eq(k1, "error") {
			switch string(last) {
			case "message":
				f.addText(v)
			case "code":
				s.code(&f.errCode, v, str)
			case "type":
				f.errType = v
			}
		}
	case "output": // Responses API: output[].content[].text
		if d == 3 && eq(k1, "content") && eq(last, "text") && str && len(v) > 0 {
			f.respContent = true
		}
	case "candidates":
		if d >= 4 && eq(k1, "content") && eq(s.key(2), "parts") {
			p := &f.part
			switch k := s.key(3); {
			case d == 4 && eq(k, "text"):
				p.text = p.text || str && len(v) > 0
			case d == 4 && eq(k, "thought"):
				p.thought = p.thought || !str && eq(v, "true")
			case eq(k, "thoughtSignature"):
			default: // a function call, an image, code, …: what the client gets
				p.other = true
			}
		}
	case "choices":
		if d == 3 && eq(k1, "error") {
			switch string(last) {
			case "message":
				f.addText(v)
			case "code":
				s.code(&f.errCode, v, str)
			}
		}
		if d == 4 && str && eq(k1, "error") && eq(s.key(2), "metadata") && eq(last, "error_type") {
			f.routerType = v // OpenRouter: choices[].error.metadata.error_type (openrouter.go)
		}
		if eq(k1, "message") || eq(k1, "delta") {
			switch {
			case d == 3 && (eq(last, "content")) && str && len(v) > 0:
				f.oaiContent = true
			case eq(s.key(2), "tool_calls") || eq(s.key(2), "function_call"):
				f.oaiContent = true
			case d == 3 && (eq(last, "reasoning_content") || eq(last, "reasoning")) && str && len(v) > 0:
				f.oaiReasoning = true
			case d >= 4 && eq(s.key(2), "content") && (eq(last, "text") || eq(last, "thinking")) && str && len(v) > 0:
				// Mistral's content chunks: [{"type":"thinking","thinking":[{"type":"text","text":…}]},{"type":"text","text":…}]
				if d >= 5 && eq(s.key(3), "thinking") || eq(last, "thinking") {
					f.oaiReasoning = true
				} else {
					f.oaiContent = true
				}
			}
		}
	}
}

// code stores a code member: a string, or a number kept as numCode.
func (s *scanner) code(dst *[]byte, v []byte, str bool) {
	if str {
		*dst = v
		return
	}
	if n := atoi(v); n != 0 && s.f.numCode == 0 {
		s.f.numCode = n
	}
}

// payloadKey names the top-level members that carry an answer in some
// dialect: a body with one of them set is an answer, whatever status member
// sits beside it (statusEnvelope).
func payloadKey(k []byte) bool {
	switch string(k) {
	case "choices", "candidates", "content", "output", "outputs", "data", "result", "results", "body",
		"response", "message", "delta", "completion", "generated_text", "embedding", "embeddings",
		"predictions", "images", "audio", "text":
		return true
	}
	return false
}

// retryMember reports a member that names a wait in seconds as a number of
// the upstream's own: retry_after, retryAfter or retry_after_seconds at the
// top (Replicate, claude-relay-service), or one level into "error" or
// "details" (Mixedbread). Deeper, or as a string, a value may be the
// client's JSON quoted back (a validation error's "input"), never a wait;
// and where the client's request holds the name, so may the answer
// (bodyRetryAfter passes it over).
func retryMember(k0, last []byte, d int) bool {
	if d == 2 && !eq(k0, "error") && !eq(k0, "details") {
		return false
	}
	return eq(last, "retry_after") || eq(last, "retryAfter") || eq(last, "retry_after_seconds")
}

// routerRetryMember reports OpenRouter's error.metadata.retry_after_seconds
// (Venice's free pool relayed: "temporarily rate-limited upstream", 17;
// round 57, hunt 57f): the router's own wait, beside the upstream's words
// in metadata.raw. Read as retryMember's are, for a rate_limited verdict
// only (withRetry): OpenRouter sends it on a 400 too.
func routerRetryMember(k0, k1, last []byte) bool {
	return eq(k0, "error") && eq(k1, "metadata") && eq(last, "retry_after_seconds")
}

// resetMember reports a member of the error object that names, as a number
// of seconds, when a spent window is whole again: CLIProxyAPI's
// error.reset_seconds (model_cooldown), Codex's error.resets_in_seconds
// (usage_limit_reached); hunt 56e. Only one level into "error": at the top,
// deeper or as a string a value may be the client's JSON quoted back, and a
// message's words are never read for it (bodyRetryAfter).
func resetMember(k0, last []byte) bool {
	return eq(k0, "error") && (eq(last, "reset_seconds") || eq(last, "resets_in_seconds"))
}
