package classify

import (
	"bytes"
	"strings"
)

// Machine-readable codes, per source. A strong code decides before any
// phrase; a weak one (a generic family such as rate_limit_error or
// RESOURCE_EXHAUSTED) only after the phrases found nothing, because vendors
// reuse it for answers a phrase tells apart (Groq's "Request too large … per
// minute" carries rate_limit_exceeded; Gemini's daily quota carries
// RESOURCE_EXHAUSTED).
//
// Lookup is case-insensitive; an AWS error type is cut at its first ':'.

type codeRule struct {
	class    Class
	strong   bool
	badInput bool // bad_request evidence: only where the status default is unknown
}

// codeSource is where a code was read; each has its own evidence prefix.
type codeSource uint8

const (
	srcAmzHeader   codeSource = iota // x-amzn-errortype header or __type
	srcReason                        // Gemini details[].reason
	srcCode                          // error.code / code (OpenAI style, Azure)
	srcType                          // error.type / type
	srcInner                         // Azure innererror.code
	srcStatus                        // Gemini error.status
	srcBaseResp                      // MiniMax base_resp.status_code
	srcDetail                        // Anthropic error.details.error_code (details.go)
	srcRouterAvail                   // OpenRouter error.availability.code (openrouter.go)
	srcRouterType                    // OpenRouter error_type (openrouter.go)
	numSources
)

var sourcePrefix = [numSources]string{"bedrock:", "gemini:reason=", "code:", "type:", "azure:innererror=", "gemini:status=", "minimax:base_resp=", "anthropic:error_code=",
	"openrouter:availability=", "openrouter:error_type="}

var codeTables [numSources]map[string]codeRule

// codeEvidence holds the precomputed evidence string per source and code.
var codeEvidence [numSources]map[string]string

func strongCode(c Class) codeRule { return codeRule{class: c, strong: true} }
func weakCode(c Class) codeRule   { return codeRule{class: c} }

var badInput = codeRule{class: BadRequest, badInput: true}

func init() {
	openaiCodes := map[string]codeRule{
		// auth
		"invalid_api_key": strongCode(Auth), "incorrect_api_key": strongCode(Auth), "invalid_authentication": strongCode(Auth),
		"authentication_error": strongCode(Auth), "unauthorized": strongCode(Auth), "account_deactivated": strongCode(Auth),
		"invalid_key": strongCode(Auth), "expired_api_key": strongCode(Auth),
		"authenticationtypedisabled": strongCode(Auth),                                                                       // Azure: key-based authentication is switched off for the resource: the key cannot work there
		"expired_key":                strongCode(Auth), "key_expired": strongCode(Auth), "api_key_expired": strongCode(Auth), // LiteLLM's expired virtual key (type expired_key), even as a 400
		// quota
		"insufficient_quota": strongCode(Quota), "billing_hard_limit_reached": strongCode(Quota), "billing_not_active": strongCode(Quota),
		"billing_error": strongCode(Quota), "insufficient_balance": strongCode(Quota), "insufficient_credits": strongCode(Quota),
		"payment_required": strongCode(Quota), "credit_balance_exhausted": strongCode(Quota), "credits_exhausted": strongCode(Quota),
		"quota_exceeded":  weakCode(Quota), // LocalAI's type for every window of its per-user quotas, a minute's too: the period decides (period.go)
		"budget_exceeded": strongCode(Quota), "account_overdue": strongCode(Quota), "accountoverdueerror": strongCode(Quota),
		"arrearage": strongCode(Quota), "allocationquota.freetieronly": strongCode(Quota),
		"not_enough_balance": strongCode(Quota), "not_enough_credits": strongCode(Quota), // Novita's flat envelope: {"code":403,"reason":"NOT_ENOUGH_BALANCE","message":"not enough balance"}
		"insufficient_user_quota": strongCode(Quota), // one-api and its forks (new-api, relays): the relay account's quota is spent
		// OpenAI's hard spend limits and its assigned usage limit, at a
		// 429 whose type may not say insufficient_quota ("Retrying these
		// errors won't restore access": help.openai.com 6614457; hunt 62d).
		"organization_spend_limit_exceeded": strongCode(Quota), "project_spend_limit_exceeded": strongCode(Quota),
		"organization_usage_limit_exceeded": strongCode(Quota),
		// Groq's flex tier out of capacity ("requests will fail quickly
		// with status 498 and error capacity_exceeded": its flex-processing
		// page): the provider's capacity, as capacity_exhausted is.
		"capacity_exceeded": strongCode(ServerError),
		// new-api relaying Gemini's prompt block ("request blocked by
		// Gemini API: SAFETY", code prompt_blocked, a 400; hunt 62g).
		"prompt_blocked":      strongCode(Refusal),
		"usage_limit_reached": strongCode(Quota), // a plan's usage window spent (the Codex backend), even as 429 or in a stream
		"setlimitexceeded":    strongCode(Quota), // Volcengine Ark: the inference limit the owner set ("Safe Experience Mode") reached, the service paused
		// unavailable
		"model_not_found": strongCode(Unavailable), "unknown_model": strongCode(Unavailable), "model_not_available": strongCode(Unavailable),
		"model_decommissioned": strongCode(Unavailable), "model_deprecated": strongCode(Unavailable),
		"unavailable_model": strongCode(Unavailable), // GitHub Models: "Unavailable model: gpt-5"
		"invalidendpoint":   strongCode(Unavailable), // Volcengine Ark's InvalidEndpoint.ClosedEndpoint: "The request targeted an endpoint that is currently closed or temporarily unavailable" (its owner closed it)
		// Azure AI Model Inference: a parameter this model does not take ("One of the
		// parameters contain invalid values.", for JSON mode on a model without it):
		// a capability, before the generic "invalid values".
		"parameter_not_supported": strongCode(Unknown),
		"deploymentnotfound":      strongCode(Unavailable), "deployment_not_found": strongCode(Unavailable),
		"model_is_deactivated": strongCode(Unavailable), "dedicated_endpoint_not_running": strongCode(Unavailable), "not_found_error": weakCode(Unavailable), "notfounderror": weakCode(Unavailable),
		"not_found": weakCode(Unavailable),
		// Azure OpenAI: "The embeddings operation does not work with the
		// specified model, gpt-4." (and chatCompletion, completion): an API
		// this deployment does not serve, the door the client chose, not a
		// gone model (docs/behaviour.md): nothing cools, the walk moves on.
		"operationnotsupported": strongCode(Unknown),
		// context, refusal, forbidden
		"context_length_exceeded": strongCode(ContextLength), "exceed_context_size_error": strongCode(ContextLength),
		"string_above_max_length":          strongCode(Overflow),
		"model_max_prompt_tokens_exceeded": strongCode(ContextLength), // GitHub Copilot's chat API
		"content_filter":                   strongCode(Refusal), "content_policy_violation": strongCode(Refusal),
		"responsibleaipolicyviolation": strongCode(Refusal), "moderation_blocked": strongCode(Refusal),
		"data_inspection_failed": strongCode(Refusal), "datainspectionfailed": strongCode(Refusal),
		"sensitive_words_detected":             strongCode(Refusal),   // one-api's forks: the relay's keyword filter
		"modelnotopen":                         strongCode(Forbidden), // Volcengine Ark: a model the account has not activated
		"model_terms_required":                 strongCode(Forbidden), // Groq: the org admin has not accepted the model's terms
		"challenge_required":                   strongCode(Forbidden), // an anti-bot challenge not passed (ChatGPT's web backend, 418)
		"err_challenge":                        strongCode(Forbidden), // DuckDuckGo AI Chat's 418 type
		"missingsessionid":                     strongCode(Forbidden), // OpenCode Zen and Go: a caller that is not OpenCode (no x-opencode-session)
		"unsupported_country_region_territory": strongCode(Forbidden), "permission_error": weakCode(Forbidden),
		"permissiondenied": weakCode(Forbidden), "permission_denied": weakCode(Forbidden), "forbidden": weakCode(Forbidden),
		// transient
		"rate_limit_exceeded": weakCode(RateLimited), "rate_limit_error": weakCode(RateLimited), "ratelimiterror": weakCode(RateLimited),
		"too_many_requests": weakCode(RateLimited), "slow_down": weakCode(RateLimited),
		// Apigee's Quota and SpikeArrest policies (fault.detail.errorcode),
		// which Apigee Edge answers with a 500 by default: a count over the
		// policy's interval, the proxy's throttle of its callers, nothing
		// failed. The errorcode names no interval, so a monthly quota is read
		// as a throttle too (docs/behaviour.md, "Where Detour chose").
		"policies.ratelimit.quotaviolation": strongCode(RateLimited), "policies.ratelimit.spikearrestviolation": strongCode(RateLimited),
		"server_is_overloaded": weakCode(ServerError), "service_unavailable_error": weakCode(ServerError), "requests": weakCode(RateLimited), "tokens": weakCode(RateLimited),
		// A code that says the provider's servers are overloaded (Volcengine
		// Ark's ServerOverloaded, also as a 429 with only "The service is
		// currently unable to handle additional requests."): the provider's
		// capacity, not the caller's limits, as MODEL_CAPACITY_EXHAUSTED. A
		// type or code that names a rate limit is another member and keeps
		// its 429 (decide.go step 4).
		"serveroverloaded": strongCode(ServerError), "server_overloaded": strongCode(ServerError),
		"overloaded_error": weakCode(ServerError), "api_error": weakCode(ServerError), "server_error": weakCode(ServerError),
		"internal_error": weakCode(ServerError), "internal_server_error": weakCode(ServerError), "service_unavailable": weakCode(ServerError),
		"internalservererror": weakCode(ServerError), "timeout_error": weakCode(Timeout), "timeout": weakCode(Timeout),
		"request_too_large": weakCode(Overflow), "payload_too_large": weakCode(Overflow), "max_tokens_per_request": weakCode(Overflow),
		// Amazon CodeWhisperer (Kiro logins): {"message":"Input is too long.",
		// "reason":"CONTENT_LENGTH_EXCEEDS_THRESHOLD"}, the request's bytes over
		// the endpoint's payload cap (hit far below a 1M-token model's
		// window), not the model's window its words would name: another
		// endpoint serving the same model takes it.
		"content_length_exceeds_threshold": strongCode(Overflow),
		// The model's own output failed validation (Groq: a tool call that
		// does not match its schema): not the client's input, not the
		// endpoint's failure; another attempt or target may do better.
		"tool_use_failed": strongCode(Unknown),
		// bad input
		"invalid_value": badInput, "invalid_type": badInput, "missing_required_parameter": badInput,
		"missingparameter": badInput, "missing_parameter": badInput, // Volcengine Ark's MissingParameter, and its snake_case spelling
		"invalidargumenterror": badInput, "invalidimageurl": badInput, // Ark: InvalidArgumentError.UnknownRole, InvalidImageURL.EmptyURL
		"outofcontexterror": strongCode(ContextLength), // Ark: "Total tokens of image and text exceed max message tokens."
		// Jina's embeddings API, in its FastAPI detail object: "Input text
		// exceeds the model's maximum of 8194 tokens. Use 'truncate: true' …"
		// (one text over the model's window; a batch's cap is another code).
		"input_token_limit_exceeded": strongCode(ContextLength),
		// OpenAI's ResponseError codes (a Responses response.failed carries
		// them inside a 200, where bad input would otherwise default to the
		// provider's failure): the request's image, the provider's policy,
		// its file search's timer.
		"invalid_base64_image": strongCode(BadRequest), "invalid_image_url": badInput, // a URL it could not fetch in time is no proof (corpus)
		"invalid_image_mode": strongCode(BadRequest), "empty_image_file": strongCode(BadRequest),
		"unsupported_image_media_type": strongCode(BadRequest), "image_file_not_found": strongCode(BadRequest),
		"image_too_small": strongCode(BadRequest),
		// The request's HTTP media type (OpenAI's 400 "Unsupported content
		// type: 'multipart/form-data'. This API method only accepts
		// 'application/json' requests", openai/openai-openapi#502; round 58,
		// hunt 58a): by the code only, since the words also name a message
		// content part's type, which stays unknown (phrasesinput.go).
		"unsupported_content_type": strongCode(BadRequest), "unsupported_media_type": strongCode(BadRequest),
		"image_too_large": strongCode(Overflow), "image_file_too_large": strongCode(Overflow),
		"image_content_policy_violation": strongCode(Refusal), "bio_policy": strongCode(Refusal),
		"misalignment_policy_violation": strongCode(Refusal),
		// OpenAI limiting one end user (the safety_identifier the client
		// sent) for suspected cybersecurity misuse, in a Responses stream's
		// error event: the request's, never replayed elsewhere.
		"cyber_policy_violation": strongCode(Refusal), "cyber_policy": strongCode(Refusal),
		"vector_store_timeout":     strongCode(Timeout),
		"failed_to_download_image": strongCode(Unknown), // the client's host, not the endpoint's
		"unknown_parameter":        badInput, "unsupported_parameter": badInput, "unsupported_value": badInput,
		"invalid_tool_call": badInput, "invalid_request_body": badInput, "json_invalid": badInput, "malformed_json": badInput,
		"invalid_json": badInput, "string_too_long": badInput, "empty_array": badInput, "array_above_max_length": badInput,
		// An image the upstream read and found of no format it reads, or
		// could not parse: strong, so a Responses stream's response.failed
		// (a 200) says it too (hunt 62d: it read server_error there).
		// invalid_image stays bad input: OpenAI sends it for an image past
		// its size too, which the words make overflow (vocab27).
		"invalid_image": badInput, "invalid_image_format": strongCode(BadRequest), "image_parse_error": strongCode(BadRequest),
		"unprocessableentityerror":  badInput,
		"invalid_encrypted_content": badInput, // an encrypted item the client sent back that this endpoint cannot verify
		// The request's parameters declared invalid, in the vendors' own
		// spellings (StepFun's type request_params_invalid): bad input by
		// its code, as invalid_value is, where the status says nothing else.
		// A prompt not accepted, in words that say why or not: OpenAI's for a
		// prompt flagged under its usage policy ("Invalid prompt: your
		// prompt was flagged …"), OpenRouter's Responses API for any request
		// that fails validation. The code alone proves neither, but names
		// the request, never a provider failure: a stream's response.failed
		// with it and a generic message is no server error.
		"invalid_prompt":         weakCode(Unknown),
		"request_params_invalid": badInput, "invalid_request_params": badInput,
		"invalid_params": badInput, "params_invalid": badInput,
	}
	codeTables[srcCode] = openaiCodes
	codeTables[srcType] = openaiCodes
	codeTables[srcInner] = openaiCodes
	codeTables[srcAmzHeader] = map[string]codeRule{
		"unrecognizedclientexception": strongCode(Auth), "invalidsignatureexception": strongCode(Auth),
		"expiredtokenexception": strongCode(Auth), "invalidclienttokenid": strongCode(Auth),
		"ftuformnotfilled": strongCode(Forbidden), "notauthorized": weakCode(Forbidden),
		"mpagreementbeingcreated": weakCode(Forbidden), "incompletesignatureexception": strongCode(Auth),
		"missingauthenticationtokenexception": strongCode(Auth), "accessdeniedexception": weakCode(Forbidden),
		"throttlingexception": weakCode(RateLimited), "toomanyrequestsexception": strongCode(RateLimited),
		// API Gateway's usage-plan quota spent (QUOTA_EXCEEDED; its throttle
		// is TooManyRequestsException): weak, so words that say a throttle
		// still decide.
		"limitexceededexception":        weakCode(Quota),
		"servicequotaexceededexception": weakCode(RateLimited), "resourcenotfoundexception": strongCode(Unavailable),
		// Bedrock's model not ready (a 429 its SDKs retry) and its stream
		// broken (a 424): the provider's, whatever the status says (hunt 62d).
		"modelnotreadyexception": strongCode(ServerError), "modelerrorexception": weakCode(ServerError),
		"internalserverexception": weakCode(ServerError), "serviceunavailableexception": weakCode(ServerError),
		"modeltimeoutexception": weakCode(Timeout), "modelstreamerrorexception": strongCode(ServerError),
		"validationexception": weakCode(Unknown),
	}
	codeTables[srcReason] = map[string]codeRule{
		"api_key_invalid": strongCode(Auth), "api_key_expired": strongCode(Auth), "access_token_expired": strongCode(Auth),
		"access_token_type_unsupported": strongCode(Auth), "access_token_scope_insufficient": strongCode(Auth),
		"consumer_invalid": strongCode(Forbidden), "consumer_suspended": strongCode(Auth), "account_state_invalid": strongCode(Auth),
		"service_disabled": strongCode(Forbidden), "api_key_service_blocked": strongCode(Forbidden),
		"api_key_http_referrer_blocked": strongCode(Forbidden), "api_key_ip_address_blocked": strongCode(Forbidden),
		"api_key_android_app_blocked": strongCode(Forbidden), "api_key_ios_app_blocked": strongCode(Forbidden),
		"iam_permission_denied": strongCode(Forbidden), "user_project_denied": strongCode(Forbidden),
		"location_policy_violated": strongCode(Forbidden), "billing_disabled": strongCode(Quota),
		"rate_limit_exceeded": weakCode(RateLimited), "ratelimitexceeded": weakCode(RateLimited),
		"resource_exhausted":       weakCode(RateLimited),
		"model_capacity_exhausted": strongCode(ServerError), // the provider's capacity for the model, even as a 429
		"capacity_exhausted":       strongCode(ServerError), // OpenRouter's: every provider of the model full, as a 429 (round 59, hunt 59g)
		// The rest of google.api.ErrorReason that settles a class
		// (googleapis google/api/error_reason.proto): a credential refused as
		// such, a suspended account, access an organisation's or a location's
		// policy denies.
		"gcp_suspended": strongCode(Auth), "credential_type_unsupported": strongCode(Auth), "jwt_token_invalid": strongCode(Auth),
		"security_policy_violated": strongCode(Forbidden), "user_blocked_by_admin": strongCode(Forbidden),
		"resource_usage_restriction_violated": strongCode(Forbidden), "org_restriction_violation": strongCode(Forbidden),
		"org_restriction_header_invalid": strongCode(Forbidden), "service_not_visible": strongCode(Forbidden),
		"location_tax_policy_violated": strongCode(Forbidden), "location_org_policy_violated": strongCode(Forbidden),
		"tls_org_policy_violated": strongCode(Forbidden), "tls_cipher_restriction_violated": strongCode(Forbidden),
		"endpoint_usage_restriction_violated": strongCode(Forbidden), "missing_origin": strongCode(Forbidden),
	}
	codeTables[srcStatus] = map[string]codeRule{
		"unauthenticated": strongCode(Auth), "permission_denied": weakCode(Forbidden), "failed_precondition": weakCode(Forbidden),
		"not_found": weakCode(Unavailable), "resource_exhausted": weakCode(RateLimited), "deadline_exceeded": weakCode(Timeout),
		"unavailable": weakCode(ServerError), "internal": weakCode(ServerError),
		"data_loss": weakCode(ServerError),
	}
	// MiniMax's documented base_resp codes (its API reference, "Error
	// Codes"), for the ones whose class the table settles. Weak: its
	// status_msg, read as a phrase, decides first. 1039 "token limit" is
	// listed with "retry your requests later": a token-rate throttle, not
	// the context window. The voice-cloning and file codes say nothing a
	// gateway acts on and are left to the status.
	// Its timeout and internal-error codes (1001, 1024, 1033) are left
	// out: a weak provider-side code decides no 2xx or 4xx (refine).
	codeTables[srcBaseResp] = map[string]codeRule{
		"1002": weakCode(RateLimited), "1004": weakCode(Auth), "1008": weakCode(Quota),
		"1026": weakCode(Refusal), "1027": weakCode(Refusal), "1039": weakCode(RateLimited),
		"1041": weakCode(RateLimited), "2013": badInput, "2045": weakCode(RateLimited),
		"2049": weakCode(Auth),
	}
	for src, tab := range codeTables {
		ev := make(map[string]string, len(tab))
		for k := range tab {
			ev[k] = sourcePrefix[src] + k
		}
		codeEvidence[src] = ev
	}
	// Gemini enums read better in their own spelling.
	for k := range codeTables[srcReason] {
		codeEvidence[srcReason][k] = sourcePrefix[srcReason] + strings.ToUpper(k)
	}
	for k := range codeTables[srcStatus] {
		codeEvidence[srcStatus][k] = sourcePrefix[srcStatus] + strings.ToUpper(k)
	}
}

// lookupCode finds v (case-insensitive) in the source's table.
func lookupCode(src codeSource, v []byte) (codeRule, string, bool) {
	if src == srcAmzHeader {
		for i, c := range v {
			if c == ':' {
				v = v[:i]
				break
			}
		}
	}
	var buf [64]byte
	if len(v) == 0 || len(v) > len(buf) {
		return codeRule{}, "", false
	}
	for i, c := range v {
		buf[i] = lowerTab[c]
	}
	k := buf[:len(v)]
	r, ok := codeTables[src][string(k)]
	if !ok {
		// A dotted code (Volcengine Ark's MissingParameter.messages,
		// InvalidArgumentError.UnknownRole): its head, where the table
		// lists it.
		if i := bytes.IndexByte(k, '.'); i > 0 {
			if r, ok := codeTables[src][string(k[:i])]; ok {
				return r, codeEvidence[src][string(k[:i])], true
			}
		}
		// A listed code with "_error" added (Sarvam's
		// insufficient_quota_error, invalid_api_key_error): its stem, as a
		// weak code only, so the words decide first (SenseNova's 429 "rpm
		// exhausted" comes as quota_exceeded_error), and never a refusal
		// (Azure's content_filter_error is the filter down).
		if stem, ok := bytes.CutSuffix(k, []byte("_error")); ok && len(stem) > 0 {
			if r, ok := codeTables[src][string(stem)]; ok && r.class != Refusal {
				r.strong = false
				return r, codeEvidence[src][string(stem)], true
			}
		}
		// Families by the code's shape, in no AWS exception name.
		switch {
		case src == srcAmzHeader:
		case insufficientFunds(k):
			return strongCode(Quota), insufficientEv[src], true
		case quotaSpent(k):
			return weakCode(Quota), quotaSpentEv[src], true
		case contentFlagged(k):
			return strongCode(Refusal), contentFlaggedEv[src], true
		case outOfRange(k):
			return badInput, outOfRangeEv[src], true
		case contextExceeded(k):
			return strongCode(ContextLength), contextExceededEv[src], true
		}
		return codeRule{}, "", false
	}
	return r, codeEvidence[src][string(k)], true
}

// The evidence of the code families below, per source.
var (
	insufficientEv    = familyEv("insufficient*(credit|balance|funds|quota)")
	quotaSpentEv      = familyEv("*quota_(reached|exhausted)")
	contentFlaggedEv  = familyEv("*(sensitivecontentdetected|riskdetection)*")
	outOfRangeEv      = familyEv("*_(above|below)_(max|min)_(value|length|items|…)")
	contextExceededEv = familyEv("*context*exceed*")
)

// familyEv is a code family's evidence in each source's spelling.
func familyEv(shape string) (ev [numSources]string) {
	for src := range ev {
		ev[src] = sourcePrefix[src] + shape
	}
	return ev
}

// insufficientFunds reports a code k (lower case) that says the account's
// credits, balance, funds or quota (the code's last word) are
// insufficient, in a spelling no table lists (Google's ErrorInfo reason
// INSUFFICIENT_G1_CREDITS_BALANCE behind a generic RESOURCE_EXHAUSTED 429;
// new-api's insufficient_token_quota, a relay key's own quota spent, at a
// 403): the account cannot pay, quota.
func insufficientFunds(k []byte) bool {
	if !bytes.Contains(k, []byte("insufficient")) {
		return false
	}
	for _, w := range [...]string{"credit", "credits", "balance", "funds", "fund", "quota"} {
		if bytes.HasSuffix(k, []byte(w)) {
			return true // what is insufficient ends the code: not a load balancer's capacity
		}
	}
	return false
}

// quotaSpent reports a code k (lower case) that says a quota is reached or
// exhausted, in a spelling no table lists (watsonx's token_quota_reached at
// a 403: the plan's token allowance is spent). The code names no period,
// so it is weak: the wording of a short one ("Requests per minute limit
// exceeded") outranks it, as for Cerebras' request_quota_exceeded.
//
// A code that names a token quota at all (Tencent CloudBase's
// EXCEED_TOKEN_QUOTA_LIMIT "Token usage exceeded quota limit.": the
// environment's token package is spent, buy a resource pack; round 58,
// hunt 58b) is read the same way: a token allowance, weak likewise.
func quotaSpent(k []byte) bool {
	return bytes.HasSuffix(k, []byte("quota_reached")) || bytes.HasSuffix(k, []byte("quota_exhausted")) ||
		bytes.Contains(k, []byte("token_quota"))
}

// contentFlagged reports a code k (lower case) that says the content was
// found sensitive or risky: Volcengine Ark's SensitiveContentDetected.Violence,
// InputImageSensitiveContentDetected.PrivacyInformation, OutputTextRiskDetection
// (a block, as DataInspectionFailed is). Not ContentSecurityDetectionError,
// the moderation service failing.
func contentFlagged(k []byte) bool {
	if bytes.Contains(k, []byte("sensitivecontentdetected")) {
		return true
	}
	if i := bytes.IndexByte(k, '.'); i >= 0 {
		k = k[:i]
	}
	return bytes.HasSuffix(k, []byte("riskdetection"))
}

// outOfRange reports a validation code k (lower case) that says a value is
// above its maximum or below its minimum (SambaNova's
// integer_above_max_value, decimal_below_min_value, string_below_min_length,
// as Pydantic names them): bad input by its code, as invalid_value is.
func outOfRange(k []byte) bool {
	for _, w := range [...]string{"_above_max_", "_below_min_"} {
		i := bytes.Index(k, []byte(w))
		if i <= 0 {
			continue
		}
		switch string(k[i+len(w):]) {
		case "value", "length", "items", "digits", "decimal_places":
			return true // Pydantic's suffixes: a value's own bound, not a usage cap (usage_above_max_quota)
		}
	}
	return false
}

// contextExceeded reports a code k (lower case) that says the context is
// exceeded, in a spelling no table lists (ParagonAPI's context_exceed,
// beside context_length_exceeded and exceed_context_size_error, which the
// table lists; hunt 68a): the model's window, context_length. Not a cache's
// allowance (a context cache is storage the account pays for).
func contextExceeded(k []byte) bool {
	return bytes.Contains(k, []byte("context")) && bytes.Contains(k, []byte("exceed")) && !bytes.Contains(k, []byte("cach"))
}

// oauthVerdict reads an OAuth 2.0 token endpoint's answer (RFC 6749 §5.2),
// which a provider that signs in with OAuth (a Claude or Google login, an
// Entra ID service principal) passes on when its token cannot be renewed:
// {"error":"invalid_grant","error_description":"Refresh token expired"}.
// invalid_grant (a refresh token expired, revoked or needing
// reauthentication), invalid_client and unauthorized_client are the
// account's credential, which no retry or other request mends: auth, at a
// 400 only (the status §5.2 gives; defEv names it, as sent, relayed or in
// the body; a 401 is auth by its status already). The other codes of §5.2
// (invalid_request, invalid_scope, unsupported_grant_type) name the token
// request Detour's upstream built, not its credential, and keep the status.
// A request carrying a credential of its own (a remote MCP server's token,
// whose OAuth flow answers in the same envelope) makes it no evidence: the
// expired token may be the client's (carriesCredential).
func oauthVerdict(defEv string, f *facts, req []byte) (Verdict, bool) {
	if !f.oauthDesc || !strings.HasSuffix(defEv, ":400") || carriesCredential(req) {
		return Verdict{}, false
	}
	for _, c := range [...]string{"oauth:invalid_grant", "oauth:invalid_client", "oauth:unauthorized_client"} {
		if bytes.EqualFold(f.oauthError, []byte(c[len("oauth:"):])) {
			return Verdict{Failed: true, Class: Auth, Evidence: c}, true
		}
	}
	return Verdict{}, false
}
