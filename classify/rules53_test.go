package classify

import "testing"

// Round 53's rules (hunts 53a, 53b, 53c), each beside the near answers it
// must leave alone and an echo guard: the client's own words quoted back
// never steer the class.

// A request member named in words as the subject of an invalidity (hunt
// 53a: Bedrock Converse's "service tier provided is invalid" for a
// serviceTier outside its enum; corpus
// bedrock-400-validationexception-service-tier-provided-is-invalid) is the
// client's input, bad_request with that member as Param. The member is one
// of requestMembers written as its snake_case token or with spaces for its
// underscores, never the model (gone wording) nor the user, and never a
// one-word member a sentence may use as a plain word.
func TestRoundFiftyThreeMemberInvalid(t *testing.T) {
	aws := map[string]string{"x-amzn-errortype": "ValidationException"}
	run(t, []tc{
		{"Bedrock's service tier provided is invalid", 400, aws, `{"message":"service tier provided is invalid"}`, false, "bad_request", ""},
		{"the snake_case member is invalid", 400, nil, `{"error":{"message":"The service_tier provided is invalid","type":"invalid_request_error"}}`, false, "bad_request", ""},
		{"tool choice specified is invalid", 400, nil, `{"error":{"message":"The tool choice specified is invalid.","type":"invalid_request_error"}}`, false, "bad_request", ""},
		{"reasoning effort is invalid", 400, nil, `{"error":{"message":"reasoning effort is invalid","type":"invalid_request_error"}}`, false, "bad_request", ""},
		{"Invalid service tier value", 400, nil, `{"error":{"message":"Invalid service_tier value, expected one of auto, default, flex"}}`, false, "bad_request", ""},

		// Near answers: LM Studio's tool_choice type this server lacks (a
		// capability gap), a valid tier this account lacks, the words in a
		// 5xx, the model and the user, and a one-word member used as a word.
		{"LM Studio's Invalid tool_choice type stays a gap", 400, nil, `{"error":"Invalid tool_choice type: 'object'. Supported string values: none, auto, required"}`, false, "unknown", ""},
		{"a reservation not found stays unknown", 400, aws, `{"message":"Reservation not found."}`, false, "unknown", ""},
		{"the words in a 500 stay the server's", 500, nil, `{"error":{"message":"service tier provided is invalid"}}`, false, "server_error", ""},
		{"a user provided is invalid stays silent", 400, nil, `{"error":{"message":"user provided is invalid"}}`, false, "unknown", "status:400"},
		{"an input is invalid stays silent", 400, nil, `{"error":{"message":"The input is invalid"}}`, false, "unknown", "status:400"},
	})
	for _, c := range []struct {
		name, req, body string
		want            Class
		param           string
	}{
		{"the member as Param", `{"model":"m","messages":[],"service_tier":"cheapest"}`,
			`{"message":"service tier provided is invalid"}`, BadRequest, "service_tier"},
		{"Invalid max tokens value", `{"model":"m","messages":[],"max_tokens":0}`,
			`{"error":{"message":"Invalid max tokens value"}}`, BadRequest, "max_tokens"},
		{"the client's words quoted back", `{"model":"m","messages":[{"role":"user","content":"why does it say: service tier provided is invalid"}]}`,
			`{"error":{"message":"Content check failed: why does it say: service tier provided is invalid"}}`, Unknown, ""},
	} {
		v := Classify(Response{Status: 400, Body: []byte(c.body), Request: []byte(c.req), Model: "m"})
		if v.Class != c.want || v.Param != c.param {
			t.Errorf("%s: %s param %q (%s), want %s param %q", c.name, v.Class, v.Param, v.Evidence, c.want, c.param)
		}
	}
}

// A GPU or engine fault named in the answer (hunt 53b: TEI's 424 "Backend
// error: Inference error: CublasError(CUBLAS_STATUS_NOT_SUPPORTED)"; corpus
// tei-424-backend-error-inference-cublas-status-not-supported) is the
// endpoint's hardware failing, server_error at any status, as it already
// was in a 5xx.
func TestRoundFiftyThreeGPUFault(t *testing.T) {
	run(t, []tc{
		{"TEI's CublasError at 424", 424, nil, `{"error":"Backend error: Inference error: CublasError(CUBLAS_STATUS_NOT_SUPPORTED)","error_type":"Backend"}`, false, "server_error", ""},
		{"a bare CUBLAS status at 424", 424, nil, `{"error":"Inference failed: CUBLAS_STATUS_EXECUTION_FAILED","error_type":"Backend"}`, false, "server_error", ""},
		{"CUDA error at 400", 400, nil, `{"object":"error","message":"CUDA error: an illegal memory access was encountered","type":"BadRequestError","code":400}`, false, "server_error", ""},
		{"CUDA out of memory at 422", 422, nil, `{"error":"Request failed: CUDA out of memory. Tried to allocate 2.00 GiB","error_type":"generation"}`, false, "server_error", ""},
		{"a CUDA_ERROR_ code at 400", 400, nil, `{"error":"DriverError(CUDA_ERROR_OUT_OF_MEMORY, \"out of memory\")"}`, false, "server_error", ""},

		// Near answers: a word that only starts like one, and a 424 that
		// names no fault (TEI's re-ranker gap stays the door's).
		{"cudart wording stays silent", 400, nil, `{"error":"cudart 12.1 found"}`, false, "unknown", "status:400"},
		{"a 424 without a fault stays unknown", 424, nil, `{"error":"model is not a re-ranker model","error_type":"Backend"}`, false, "unknown", ""},
	})
	req := `{"model":"m","messages":[{"role":"user","content":"I get CUDA out of memory on my laptop, why"}]}`
	body := `{"error":{"message":"Content check failed: I get CUDA out of memory on my laptop, why"}}`
	if v := Classify(Response{Status: 400, Body: []byte(body), Request: []byte(req), Model: "m"}); v.Class != Unknown {
		t.Errorf("the client's CUDA words quoted back: %s (%s), want unknown", v.Class, v.Evidence)
	}
}

// Hunt 53c's two answers of bad input in words the vocabulary lacked: a
// prompt-cache marker where the client may not put one (Bedrock's "Cache
// point cannot be inserted after reasoning block."; corpus
// bedrock-400-cache-point-cannot-be-inserted-after-reasoning-block) and a
// tool message with no assistant tool call before it, in a chat template's
// words (SiliconFlow's 20015 around MiniMax-M2's "Message has tool role,
// but there was no previous assistant message with a tool call!"; corpus
// siliconflow-20015-messages-illegal-tool-role-no-previous-assistant-tool-call-400).
func TestRoundFiftyThreeHistoryWords(t *testing.T) {
	aws := map[string]string{"x-amzn-errortype": "ValidationException"}
	run(t, []tc{
		{"Bedrock's cache point after a reasoning block", 400, aws, `{"message":"Cache point cannot be inserted after reasoning block. Please remove the invalid cache point and try again."}`, false, "bad_request", ""},
		{"SiliconFlow's tool role with no assistant tool call", 400, nil, `{"code":20015,"message":"\"messages\" in request are illegal: Message has tool role, but there was no previous assistant message with a tool call!..","data":null}`, false, "bad_request", ""},
		{"the template sentence in vLLM's envelope", 400, nil, `{"object":"error","message":"Message has tool role, but there was no previous assistant message with a tool call!","type":"BadRequestError","param":null,"code":400}`, false, "bad_request", ""},

		// Near answers: Anthropic's TTL order (a relay may have added its
		// own breakpoint) stays unknown; the template's sentence in a 5xx was
		// bad input already (phrases5xx.go), and stays so.
		{"the TTL order stays unknown", 400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block."}}`, false, "unknown", ""},
		{"the sentence in a 500 stays bad input (vocab25)", 500, nil, `{"object":"error","message":"Message has tool role, but there was no previous assistant message with a tool call!","type":"InternalServerError","code":500}`, false, "bad_request", ""},
	})
	req := `{"model":"m","messages":[{"role":"user","content":"explain: Cache point cannot be inserted after reasoning block"}]}`
	body := `{"error":{"message":"Content check failed: explain: Cache point cannot be inserted after reasoning block"}}`
	if v := Classify(Response{Status: 400, Body: []byte(body), Request: []byte(req), Model: "m"}); v.Class != Unknown {
		t.Errorf("the client's cache-point words quoted back: %s (%s), want unknown", v.Class, v.Evidence)
	}
	req = `{"model":"m","messages":[{"role":"user","content":"what is: no previous assistant message with a tool call"}]}`
	body = `{"error":{"message":"Content check failed: what is: no previous assistant message with a tool call"}}`
	if v := Classify(Response{Status: 400, Body: []byte(body), Request: []byte(req), Model: "m"}); v.Class != Unknown {
		t.Errorf("the client's template words quoted back: %s (%s), want unknown", v.Class, v.Evidence)
	}
}

// A dated hosted-tool type this backend's tools schema lacks (hunt 53c:
// Claude 3.7 on Bedrock behind a one-api relay, "tools.0: Input tag
// 'computer_20250124' found using 'type' does not match any of the
// expected tags: …", which Anthropic's own API serves; corpus
// newapi-400-bedrock-claude-tools-0-input-tag-computer-20250124-not-expected,
// and the two earlier misses of the same shape at Vertex and Bedrock) is a
// capability of this endpoint, unknown, as a tool type's unknown variant
// already is (toolTypeVariant). A content block's tag, an undated tool
// type and a tag said deeper in a tool stay bad input.
func TestRoundFiftyThreeHostedToolTag(t *testing.T) {
	run(t, []tc{
		{"a dated hosted tool at tools.0", 400, nil, `{"error":{"type":"invalid_request_error","message":"tools.0: Input tag 'computer_20250124' found using 'type' does not match any of the expected tags: 'bash_20250124', 'custom', 'text_editor_20250124' (request id: 2025032208192215967120272019510)"},"type":"error"}`, false, "unknown", ""},
		{"Bedrock's web search tag", 400, map[string]string{"x-amzn-errortype": "ValidationException"}, `{"message":"tools.0: Input tag 'web_search_20250305' found using 'type' does not match any of the expected tags: 'bash_20250124', 'custom', 'text_editor_20250124'"}`, false, "unknown", ""},

		{"a content block's tag stays bad input", 400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"messages.1.content.0: Input tag 'fallback' found using 'type' does not match any of the expected tags: 'document', 'image', 'text'"}}`, false, "bad_request", ""},
		{"a misspelt custom type stays bad input", 400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"tools.0: Input tag 'cutsom' found using 'type' does not match any of the expected tags: 'bash_20250124', 'custom'"}}`, false, "bad_request", ""},
		{"a tag deeper in a tool stays bad input", 400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"tools.0.input_schema: Input tag 'objekt_20250124' found using 'type' does not match any of the expected tags: 'object'"}}`, false, "bad_request", ""},
	})
	tag := "tools.0: Input tag 'computer_20250124' found using 'type' does not match any of the expected tags: 'custom'"
	req := `{"model":"m","messages":[{"role":"user","content":"` + tag + `"}]}`
	body := `{"type":"error","error":{"type":"invalid_request_error","message":"` + tag + `"}}`
	if v := Classify(Response{Status: 400, Body: []byte(body), Request: []byte(req), Model: "m"}); v.Class == Unknown && v.Evidence == "tools[].type:dated-tag" {
		t.Errorf("the client's tag sentence quoted back decided: %s (%s)", v.Class, v.Evidence)
	}
}

// Infinity's older answer to /rerank for a model it loaded as an embedder
// (hunt 53b; corpus infinity-500-loaded-model-cannot-fullyfill-rerank-options-embed):
// a 500 whose words name the operation the loaded model lacks is the
// door's gap, unknown, as TabbyAPI's "No embedding models are currently
// loaded." is; an overloaded server that "cannot fulfill the request"
// stays the server's.
func TestRoundFiftyThreeInfinityOperation(t *testing.T) {
	run(t, []tc{
		{"Infinity's loaded model cannot fulfil rerank", 500, nil, "{\"error\":{\"message\":\"InternalServerError: the loaded moded cannot fullyfill `rerank`.options are {'embed'} inherited from model_class=<class 'infinity_emb.transformer.embedder.sentence_transformer.SentenceTransformerPatched'>\",\"type\":null,\"param\":null,\"code\":500}}", false, "unknown", ""},
		{"the plain spelling", 500, nil, "{\"error\":{\"message\":\"the loaded model cannot fulfill `rerank`. Options are {'embed'}\",\"code\":500}}", false, "unknown", ""},
		{"a server that cannot fulfill the request stays the server's", 503, nil, `{"error":{"message":"The server cannot fulfill the request at this time. Please retry."}}`, false, "server_error", ""},
	})
	req := `{"model":"m","query":"the loaded model cannot fulfill my needs","documents":["a"]}`
	body := `{"error":{"message":"internal error while scoring: the loaded model cannot fulfill my needs","code":500}}`
	if v := Classify(Response{Status: 500, Body: []byte(body), Request: []byte(req), Model: "m"}); v.Class != ServerError {
		t.Errorf("the client's words quoted back in a 500: %s (%s), want server_error", v.Class, v.Evidence)
	}
}
