package classify

import "testing"

// Round 53's rules of hunt 53g (safety and policy answers across vendors),
// each beside the near answers it must leave alone and an echo guard: the
// client's own words quoted back never steer the class.

// A filter, guard or moderation step that "blocked content" (hunt 53g: SAP
// AI Core's orchestration, its Llama Guard input filter: "400 - Filtering
// Module - Input Filter: Filtering module blocked content: content violated
// a configured category."; corpus
// sapaicore-400-error-envelope-llama-guard-filtering-module-blocked-content-violated-category)
// is a refusal, and so is Llama Guard's "violated a configured category" on
// its own. A bare "blocked content" names no policy: a firewall's stays
// where its status puts it.
func TestRoundFiftyThreeDFilterBlockedContent(t *testing.T) {
	sap := `{"error":{"request_id":"57d85ca7-150d-9880-b4e5-755fafd8119c","code":400,"message":"400 - Filtering Module - Input Filter: Filtering module blocked content: content violated a configured category.","location":"Filtering Module - Input Filter"}}`
	run(t, []tc{
		{"SAP's Llama Guard input filter", 400, nil, sap, false, "refusal", ""},
		{"the same at 403", 403, nil, sap, false, "refusal", ""},
		{"a filtering module that blocked content", 400, nil, `{"error":{"message":"Output Filter: Filtering module blocked content."}}`, false, "refusal", "phrase:filter…blocked content"},
		{"a guard that blocked content", 400, nil, `{"error":{"message":"Llama Guard blocked content in the prompt"}}`, false, "refusal", "phrase:guard…blocked content"},
		{"a moderation step that blocked content", 400, nil, `{"error":{"message":"The moderation service blocked content in your input"}}`, false, "refusal", "phrase:moderation…blocked content"},
		{"Llama Guard's category words alone", 400, nil, `{"error":{"message":"content violated a configured category."}}`, false, "refusal", "phrase:violated a configured category"},

		// Near answers: a bare "blocked content", a firewall's, the parts in
		// two sentences.
		{"a firewall's blocked content stays forbidden", 403, nil, `{"error":{"message":"The firewall blocked content from this address"}}`, false, "forbidden", "status:403"},
		{"a bare blocked content at 400 stays unknown", 400, nil, `{"error":{"message":"Blocked content."}}`, false, "unknown", "status:400"},
		{"a filter and blocked content in two sentences stay silent", 400, nil, `{"error":{"message":"The filter parameter is set. Blocked content types: image."}}`, false, "unknown", ""},
	})
	echoGuardNot(t, "why does the filtering module say it blocked content", 400, Refusal)
	echoGuardNot(t, "content violated a configured category", 400, Refusal)
}

// The English form of the Chinese 敏感内容 row (hunt 53g: Z.ai's 1301
// "System detected potentially unsafe or sensitive content in input or
// generation. …"; corpus
// zhipu-400-1301-en-potentially-unsafe-or-sensitive-content-reference) is a
// refusal, as its Chinese twin (zhipu-1301-sensitive-content-400) is.
func TestRoundFiftyThreeDSensitiveContent(t *testing.T) {
	zai := `{"error":{"code":"1301","message":"System detected potentially unsafe or sensitive content in input or generation. Please avoid using prompts that may generate sensitive content. Thank you for your cooperation."}}`
	run(t, []tc{
		{"Z.ai's 1301 in English", 400, nil, zai, false, "refusal", "phrase:unsafe or sensitive content"},
		{"the same at 403", 403, nil, zai, false, "refusal", ""},
		{"Ark's wording", 400, nil, `{"error":{"code":"OutputTextRiskDetection","message":"The request failed because the output text includes sensitive content that violates ContentSecurityDetection."}}`, false, "refusal", ""},
		{"sensitive content alone", 400, nil, `{"error":{"message":"Sensitive content detected in the prompt"}}`, false, "refusal", "phrase:sensitive content"},
		{"the Chinese twin, as before", 400, nil, `{"error":{"code":"1301","message":"系统检测到输入或生成内容可能包含不安全或敏感内容，请您避免输入易产生敏感内容的提示语，感谢您的配合。"}}`, false, "refusal", "phrase:敏感内容"},

		// Near answers: a member spelled with underscores, and "sensitive"
		// about case.
		{"a sensitive_content member stays silent", 400, nil, `{"error":{"message":"Unrecognized request argument supplied: sensitive_content_filter"}}`, false, "bad_request", ""},
		{"case sensitive stays silent", 400, nil, `{"error":{"message":"Header names here are case sensitive. Content was not read."}}`, false, "unknown", "status:400"},
	})
	echoGuardNot(t, "is this sensitive content", 400, Refusal)
}

// "Acceptable Use Policy" is a refusal only where the request or the prompt
// is what it speaks of (hunt 53g: Sourcegraph Cody Gateway's 400 "We
// blocked your request because we detected your prompt to be against our
// Acceptable Use Policy (https://sourcegraph.com/terms/aup). …"; corpus
// sourcegraph-400-cody-gateway-blocked-request-acceptable-use-policy): this
// prompt is refused and rephrasing passes. An account banned for the policy
// is not this request's content and stays where the account words or the
// status put it.
func TestRoundFiftyThreeDAcceptableUsePolicy(t *testing.T) {
	cody := `{"error":"We blocked your request because we detected your prompt to be against our Acceptable Use Policy (https://sourcegraph.com/terms/aup). Try again by removing any phrases that may violate our AUP. If you think this is a mistake, please contact support@sourcegraph.com and reference this ID: be22246b3457eadb4977dce5d3b694eb"}`
	run(t, []tc{
		{"Cody Gateway's prompt block", 400, nil, cody, false, "refusal", ""},
		{"the same at 403", 403, nil, cody, false, "refusal", ""},
		{"a prompt against the policy", 400, nil, `{"error":{"message":"Your prompt violates our Acceptable Use Policy."}}`, false, "refusal", "phrase:your prompt…acceptable use policy"},
		{"this request under the policy", 400, nil, `{"error":{"message":"This request was blocked under our Acceptable Use Policy."}}`, false, "refusal", "phrase:this request…acceptable use policy"},

		// Near answers: account bans citing the policy, the bare phrase, the
		// parts in two sentences.
		{"an account suspended for the policy stays auth", 403, nil, `{"error":{"message":"Your account has been suspended for violating our Acceptable Use Policy."}}`, false, "auth", "phrase:account has been suspended"},
		{"an account banned for the policy stays forbidden", 403, nil, `{"error":{"message":"This organization was banned for violating our Acceptable Use Policy."}}`, false, "forbidden", "status:403"},
		{"requests that got the account blocked stay forbidden", 403, nil, `{"error":{"message":"We blocked your requests because your account violated our Acceptable Use Policy."}}`, false, "forbidden", ""},
		{"a bare Acceptable Use Policy at 400 stays unknown", 400, nil, `{"error":{"message":"See our Acceptable Use Policy."}}`, false, "unknown", "status:400"},
		{"the prompt and the policy in two sentences stay silent", 400, nil, `{"error":{"message":"Your prompt was received. See our Acceptable Use Policy."}}`, false, "unknown", "status:400"},
	})
	echoGuardNot(t, "does your prompt break the Acceptable Use Policy", 400, Refusal)
}

// echoGuardNot checks that the client's words quoted back in a
// Content-check body decide nothing: the answer at status is not class.
func echoGuardNot(t *testing.T, quote string, status int, class Class) {
	t.Helper()
	req := `{"model":"m","messages":[{"role":"user","content":"` + quote + `"}]}`
	body := `{"error":{"message":"Content check failed: ` + quote + `"}}`
	if v := Classify(Response{Status: status, Body: []byte(body), Request: []byte(req), Model: "m"}); v.Class == class {
		t.Errorf("the client's words %q quoted back at %d: %s (%s)", quote, status, v.Class, v.Evidence)
	}
}
