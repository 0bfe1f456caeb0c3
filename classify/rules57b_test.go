package classify

import "testing"

// Round 57's second batch of rules, from hunts 57c (unusual statuses), 57e
// (official SDKs' issues, a random sample) and 57f (forum pages, a random
// sample), each beside the near answers it must leave alone and an echo
// guard: the client's own words quoted back never steer the class.
// Hunt 57e's R1 (error.details[].param as proof) is not written: review 27e
// reverted that reading and vocab27_test.go pins Azure's body unknown.
// Helpers: rules56_test.go.

// (a) hunt 57c R1. 598 and 599 are the de-facto "network read timeout" and
// "network connect timeout" statuses some proxies send, and Tornado's HTTP
// client names its own timers "Timeout in request queue", "Timeout while
// connecting", "Timeout during request" (HTTPTimeoutError(599, …)): LLM
// Foundry documents its 599 bodies under "Timeout errors"
// (llmfoundry.straive.com/help/errors) and they read server_error
// (status:599). 598 and 599 are timeout whatever the body says, as 504 and
// 524 are (sweep.golden moves for them, deliberately); the Tornado words are
// timeout inside any 5xx.
func TestRoundFiftySevenBNetworkTimeoutStatuses(t *testing.T) {
	queue := `{"error":{"code":"application_error","message":"HTTP 599: Timeout in request queue","type":"application_error"}}`
	conn := `{ "code": "application_error", "message": "Timeout while connecting", "type": "application_error" }`
	want56(t, "LLM Foundry's queue at 599", classify56(599, queue, "", false), Timeout, "status:599")
	want56(t, "LLM Foundry's connect at 599", classify56(599, conn, "", false), Timeout, "status:599")
	want56(t, "598, empty", classify56(598, "", "", false), Timeout, "status:598")
	want56(t, "599, empty", classify56(599, "", "", false), Timeout, "status:599")
	want56(t, "the queue words at 500", classify56(500, queue, "", false), Timeout, "phrase:timeout in request queue")
	want56(t, "the connect words at 502", classify56(502, conn, "", false), Timeout, "phrase:timeout while connecting")
	want56(t, "during request at 500", classify56(500, `{"error":{"message":"HTTP 599: Timeout during request"}}`, "", false), Timeout, "phrase:timeout during request")
	// Near answers: another 5xx stays the server's, 597 too, and a 400's
	// download timer of the client's URL is not read by the 5xx words.
	want56(t, "a 500 that says nothing", classify56(500, `{"error":{"message":"Internal server error"}}`, "", false), ServerError, "")
	want56(t, "597 stays", classify56(597, "", "", false), ServerError, "status:597")
	want56(t, "a 400's download timer stays", classify56(400, `{"error":{"message":"Timeout while downloading https://example.com/a.png.","type":"invalid_request_error","param":null,"code":"invalid_image_url"}}`, "", false), Unknown, "phrase:timeout…download")
	// The client's own words quoted back in a 5xx make no timeout.
	echo56(t, 500, "Timeout while connecting", `{"error":{"message":"failed on input: Timeout while connecting"}}`, ServerError)
}

// (b) hunt 57c R2. A 499 Detour receives was not caused by Detour closing
// its request (a client that closed reads no answer): a hop behind the
// endpoint gave up, the endpoint's path failed. Copilot CLI's bare 499
// (github/copilot-cli#595) and Gemini Code Assist's 499 CANCELLED with
// reason backendError (gemini-code-assist-499-cancelled-backenderror-array,
// a known miss read unknown) read unknown (status:499). The body still
// refines, as at any non-fixed status.
func TestRoundFiftySevenBReceived499(t *testing.T) {
	want56(t, "Copilot CLI's empty 499", classify56(499, "", "", false), ServerError, "status:499")
	want56(t, "Gemini's CANCELLED backendError", classify56(499, `[{"error":{"code":499,"message":"The operation was cancelled.","errors":[{"message":"The operation was cancelled.","domain":"global","reason":"backendError"}],"status":"CANCELLED"}}]`, "", false), ServerError, "")
	want56(t, "a bare nginx page", classify56(499, "<html><head><title>499</title></head><body>client closed request</body></html>", "", false), ServerError, "")
	// Words that name another class still decide.
	want56(t, "a bad key's words", classify56(499, `{"error":{"message":"Incorrect API key provided: sk-abc.","type":"invalid_request_error","code":"invalid_api_key"}}`, "", false), Auth, "")
	// Near: 498 and 424 keep their unknown default.
	want56(t, "498 stays unknown", classify56(498, "", "", false), Unknown, "status:498")
	// The client's own words quoted back take nothing from the default.
	echo56(t, 499, "Incorrect API key provided", `{"error":{"message":"cancelled while reading: Incorrect API key provided"}}`, ServerError)
}

// (c) hunt 57c R3. A 424 whose words say only that a dependency failed or
// cannot be reached is the endpoint's: UiPath's LLM Gateway's RFC 7807
// {"title":"Failed dependency","status":424} (UiPath/uipath-python#461,
// "Problem was on agenthub service") and OpenGateLLM's "Model provider not
// reachable." (opengatellm-424-model-provider-not-reachable, a known miss)
// read unknown (status:424). 424's default stays unknown (Bedrock's
// ModelErrorException "Model produced invalid sequence as part of
// ToolUse"), and the words count at 424 only, never where the client's
// request holds a URL the text names.
func TestRoundFiftySevenBFailedDependency424(t *testing.T) {
	want56(t, "UiPath's problem title", classify56(424, `{"title":"Failed dependency","status":424}`, "", false), ServerError, "phrase:failed dependency")
	want56(t, "OpenGateLLM's provider not reachable", classify56(424, `{"detail": "Model provider not reachable."}`, "", false), ServerError, "phrase:not reachable")
	want56(t, "an upstream unreachable", classify56(424, `{"error":{"message":"upstream unreachable"}}`, "", false), ServerError, "phrase:unreachable")
	// Near answers.
	want56(t, "an empty 424 stays unknown", classify56(424, "", "", false), Unknown, "status:424")
	if v := Classify(Response{Status: 424, Header: map[string][]string{"X-Amzn-Errortype": {"ModelErrorException"}}, Body: []byte(`{"message":"Model produced invalid sequence as part of ToolUse. Please refer to the model tool use troubleshooting guide."}`)}); v.Class != Unknown {
		t.Errorf("Bedrock's ModelErrorException: %s (%s), want unknown", v.Class, v.Evidence)
	}
	want56(t, "a problem's title beside its detail", classify56(424, `{"type":"about:blank","title":"Failed Dependency","status":424,"detail":"Model produced invalid sequence as part of ToolUse."}`, "", false), Unknown, "status:424")
	want56(t, "failed dependency at 400 stays", classify56(400, `{"title":"Failed dependency","status":400}`, "", false), Unknown, "")
	want56(t, "not reachable at 400 stays", classify56(400, `{"detail": "Model provider not reachable."}`, "", false), Unknown, "")
	req := `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://img.example.com/a.png"}}]}]}`
	want56(t, "the client's URL not reachable", classify56(424, `{"detail":"https://img.example.com/a.png is not reachable"}`, req, false), Unknown, "")
	// The client's own words quoted back make no server_error.
	echo56(t, 424, "Failed dependency", `{"detail":"cannot process: Failed dependency"}`, Unknown)
}

// (d) hunt 57c R4. An anti-bot challenge refuses this client until it
// passes one: ChatGPT's web backend's 418 {"detail":{"message":"Client
// challenge required","code":"challenge_required"}}
// (Chanzhaoyu/chatgpt-web#2010) and DuckDuckGo AI Chat's 418
// {"action":"error","status":418,"type":"ERR_CHALLENGE",…}
// (aandrew-me/tgpt#344) read unknown (status:418). Access not granted from
// here, forbidden at any 4xx, as Cloudflare's managed challenge is; 418
// itself stays unknown (DuckDuckGo also sent it for a system message).
func TestRoundFiftySevenBChallenge4xx(t *testing.T) {
	want56(t, "ChatGPT's challenge_required", classify56(418, `{"detail":{"message":"Client challenge required","code":"challenge_required"}}`, "", false), Forbidden, "")
	want56(t, "DuckDuckGo's ERR_CHALLENGE", classify56(418, `{"action":"error","status":418,"type":"ERR_CHALLENGE","overrideCode":"e1b9"}`, "", false), Forbidden, "")
	want56(t, "the code alone at 403", classify56(403, `{"error":{"code":"challenge_required","message":"Forbidden"}}`, "", false), Forbidden, "")
	want56(t, "the words at 400", classify56(400, `{"error":{"message":"Challenge required"}}`, "", false), Forbidden, "")
	// Near answers: a bare 418, and a challenge word that is no gate.
	want56(t, "a bare 418 stays", classify56(418, `{"code":418,"msg":"HTTP status client error (418 I'm a teapot) for url (https://chat.openai.com/backend-api/conversation)"}`, "", false), Unknown, "")
	want56(t, "an empty 418 stays", classify56(418, "", "", false), Unknown, "status:418")
	want56(t, "a 500 stays the server's", classify56(500, `{"error":{"message":"challenge required"}}`, "", false), ServerError, "")
	// The client's own words quoted back make no forbidden.
	echo56(t, 400, "challenge required", `{"error":{"message":"You wrote: challenge required"}}`, Unknown)
}

// (e) hunt 57f. OpenRouter's error.metadata.retry_after_seconds (Venice's
// free pool relayed: "temporarily rate-limited upstream", 17) waited 0: a
// number there is the wait of a rate_limited answer, after the headers'
// own. It moves no other class's wait (OpenRouter sends it on 400s too).
func TestRoundFiftySevenBOpenRouterMetadataRetryAfter(t *testing.T) {
	venice := `{"error": {"message": "Provider returned error", "code": 429, "metadata": {"raw": "meta-llama/llama-3.3-70b-instruct:free is temporarily rate-limited upstream. Please retry shortly, or add your own key to accumulate your rate limits: https://openrouter.ai/settings/integrations", "provider_name": "Venice", "is_byok": false, "retry_after_seconds": 17, "retry_after_seconds_raw": 16.007}}, "user_id": "user_x"}`
	wantWait56(t, "OpenRouter's metadata", classify56h(429, venice, ""), RateLimited, 17_000_000_000)
	wantWait56(t, "Retry-After first", classify56h(429, venice, "", "retry-after", "5"), RateLimited, 5_000_000_000)
	wantWait56(t, "as a string, none", classify56h(429, `{"error":{"message":"Provider returned error","code":429,"metadata":{"retry_after_seconds":"17"}}}`, ""), RateLimited, 0)
	wantWait56(t, "deeper, none", classify56h(429, `{"error":{"message":"Provider returned error","code":429,"metadata":{"headers":{"retry_after_seconds":17}}}}`, ""), RateLimited, 0)
	wantWait56(t, "another object's metadata, none", classify56h(429, `{"error":{"message":"Rate limit exceeded"},"metadata":{"retry_after_seconds":17}}`, ""), RateLimited, 0)
	// A 400 carrying it keeps its class and waits nothing.
	if v := classify56h(400, `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\"error\":{\"message\":\"response_format.json_schema: Field required\"}}","provider_name":"Together","retry_after_seconds":2}}}`, ""); v.RetryAfter != 0 {
		t.Errorf("a 400: %s wait %v, want 0", v.Class, v.RetryAfter)
	}
	// Named in the client's request, the member may be the client's.
	req := `{"model":"m","metadata":{"retry_after_seconds":17},"messages":[{"role":"user","content":"hi"}]}`
	wantWait56(t, "echoed", classify56h(429, venice, req), RateLimited, 0)
}
