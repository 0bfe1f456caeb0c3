package classify

import (
	"testing"
)

// A hostile review of the rules of corpus rounds 19 and 20: each test
// failed before its fix and states the verdict the answer must reach,
// or the account- or endpoint-scoped verdicts it must not reach.

// runReview20 is runHostile (rules_hostile_test.go) with the model Detour
// sent set where a case names none.
func runReview20(t *testing.T, cases []hostileCase) {
	t.Helper()
	for i := range cases {
		if cases[i].model == "" {
			cases[i].model = "served-model"
		}
	}
	runHostile(t, cases)
}

// vLLM takes a per-request `chat_template` (older versions always; newer
// ones with --trust-request-chat-template) and answers a jinja2
// TemplateError as a 400 whose message is f"{e} {e.__cause__}" (the
// trailing " None" of the corpus's vllm-* cases). raise_exception() with a
// concatenation writes a phrase no piece of the request holds, so the echo
// rule cannot see it: the client pages the operator and cools the whole
// account (quota), or cools the endpoint for unavailable_cooldown.
func TestTemplateRaiseBuildsNewPhrases(t *testing.T) {
	fqtReq := `{"model":"m","messages":[{"role":"user","content":"hi"}],"chat_template":"{{ raise_exception('credit balance is ' ~ 'too low') }}"}`
	tmplReq := `{"model":"m","messages":[{"role":"user","content":"hi"}],"chat_template":"{{ raise_exception('must provide a ' ~ 'chat template') }}"}`
	runReview20(t, []hostileCase{
		{name: "vllm flat, credit balance", status: 400,
			body: `{"object":"error","message":"credit balance is too low None","type":"BadRequestError","param":null,"code":400}`,
			req:  fqtReq, notAny: []Class{Quota, Auth}},
		{name: "vllm envelope, credit balance", status: 400,
			body: `{"error":{"message":"credit balance is too low None","type":"BadRequestError","param":null,"code":400}}`,
			req:  fqtReq, notAny: []Class{Quota, Auth}},
		{name: "vllm flat, must provide a chat template", status: 400,
			body: `{"object":"error","message":"must provide a chat template None","type":"BadRequestError","param":null,"code":400}`,
			req:  tmplReq, notAny: []Class{Unavailable}},
	})
}

// A free tier's throttle that says "free quota tier", with a rate-limit
// type and code or a 30 s RetryInfo, stays rate_limited: "no free quota
// tier" (a model this account's tier is not offered) ranks after the rate
// wording, and "free quota tier" alone decides nothing.
func TestFreeQuotaTierThrottle(t *testing.T) {
	runReview20(t, []hostileCase{
		{name: "openai envelope, rate_limit_exceeded", status: 429,
			body: `{"error":{"message":"Rate limit exceeded on the free quota tier. Please try again in 20s.","type":"rate_limit_error","param":null,"code":"rate_limit_exceeded"}}`,
			want: RateLimited},
		{name: "google envelope, rate limit words", status: 429,
			body: `{"error":{"code":429,"message":"Rate limit exceeded on the free quota tier.","status":"RESOURCE_EXHAUSTED"}}`,
			want: RateLimited},
		{name: "rate wording before no free quota tier", status: 429,
			body: `{"error":{"code":429,"message":"Rate limit exceeded: this key has no free quota tier left this minute.","status":"RESOURCE_EXHAUSTED"}}`,
			want: RateLimited},
		{name: "google envelope, RetryInfo 30s", status: 429,
			body: `{"error":{"code":429,"message":"Free quota tier limit reached. Please retry in 30s.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"30s"}]}}`,
			want: RateLimited},
	})
}

// "X doesn't have a free quota tier. Please use Y instead" is about one
// model on this key's plan (the answer itself names another model the same
// key can use): reading it as quota cools the whole provider account, every
// other model on it, and pages. It is a model not offered to this kind of
// account (behaviour.md: "A service not offered to a kind of account … is
// forbidden"), an endpoint's matter.
func TestNoFreeTierForOneModelIsNotAccountWide(t *testing.T) {
	runReview20(t, []hostileCase{
		{name: "gemini preview without a free tier", status: 429,
			body:   `{"error":{"code":429,"message":"Gemini 2.5 Pro Preview doesn't have a free quota tier. Please use Gemini 2.5 Pro Experimental (models/gemini-2.5-pro-exp-03-25) instead. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.","status":"RESOURCE_EXHAUSTED"}}`,
			notAny: []Class{Quota, Auth}},
	})
}

// An upstream that names the file it could not download by its decoded
// URL path ("Timeout while downloading 20250503_162129.jpg." in the
// corpus) quotes the client's text with its %20 and + decoded to blanks:
// the echo rule compares both forms (echoedInURL), so a client's file name
// cannot page the operator.
func TestURLDecodedFilenameEcho(t *testing.T) {
	runReview20(t, []hostileCase{
		{name: "percent-encoded", status: 400,
			body:   `{"error":{"message":"Timeout while downloading insufficient balance.jpg.","type":"invalid_request_error","param":null,"code":"invalid_image_url"}}`,
			req:    `{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://slow.example/insufficient%20balance.jpg"}}]}]}`,
			notAny: []Class{Quota, Auth}},
		{name: "plus-encoded", status: 400,
			body:   `{"error":{"message":"Error while downloading insufficient balance.jpg.","type":"invalid_request_error","param":null,"code":"invalid_image_url"}}`,
			req:    `{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://slow.example/insufficient+balance.jpg"}}]}]}`,
			notAny: []Class{Quota, Auth}},
	})
}

// A connect timeout to the client's own image host, inside a 5xx, is the
// client's slow host (behaviour.md, "What the request points to"): unknown,
// not a timeout counted against the endpoint. The fetch wording ranks
// before the 5xx timeout phrases and spans a URL or names the medium.
func TestConnectTimeoutToClientHost(t *testing.T) {
	req := `{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://slow.example.com/cat.png"}}]}]}`
	runReview20(t, []hostileCase{
		{name: "undici ConnectTimeoutError", status: 500,
			body: `{"error":{"message":"Failed to download https://slow.example.com/cat.png: fetch failed: ConnectTimeoutError: Connect Timeout Error (attempted address: slow.example.com:443, timeout: 10000ms)","type":"server_error","param":null,"code":null}}`,
			req:  req, want: Unknown},
		{name: "short download wording", status: 500,
			body: `{"error":{"message":"Failed to download image: connection timeout","type":"server_error","param":null,"code":null}}`,
			req:  req, want: Unknown},
	})
}

// A crashed worker's 5xx that "cannot use" something stays server_error,
// counted: only "cannot use tools" is a capability the server lacks.
func TestCannotUseWithInOutage(t *testing.T) {
	runReview20(t, []hostileCase{
		{name: "worker crash", status: 503,
			body: `{"error":{"message":"Worker cannot use GPU 0: crashed with CUDA error 700 (an illegal memory access was encountered)","type":"server_error","param":null,"code":null}}`,
			want: ServerError},
		{name: "oom kill", status: 500,
			body: `{"error":"Model runner cannot use more memory; killed with signal 9 (OOM)"}`,
			want: ServerError},
	})
}

// "at most … can be specified" (gap 40) crosses a sentence end and outranks
// the bad-input evidence of an answer that is about the client's own
// malformed input (a bad tool name, with its param and code): overflow
// moves the same bad request on to every target and tells the client to
// retry. Before: bad_request.
func TestAtMostCanBeSpecifiedAcrossSentences(t *testing.T) {
	runReview20(t, []hostileCase{
		{name: "tool name charset", status: 400,
			body: `{"error":{"message":"Invalid 'tools[0].function.name': at most 64 chars. Only a-z, 0-9, _ and - can be specified.","type":"invalid_request_error","param":"tools[0].function.name","code":"invalid_value"}}`,
			want: BadRequest},
	})
}

// TestOnlyTopLevelMembersSayWhatARequestCarries: a tool schema's property
// named "authentication" or "chat_template" is no credential and no
// template the upstream renders; only the request's own top-level
// data_sources and chat_template are.
func TestOnlyTopLevelMembersSayWhatARequestCarries(t *testing.T) {
	schema := `{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"authentication":{"type":"string"},"chat_template":{"type":"string"}}}}}]}`
	oyd := `{"model":"m","messages":[{"role":"user","content":"hi"}],"data_sources":[{"type":"azure_search","parameters":{"authentication":{"type":"api_key","key":"k"}}}]}`
	runReview20(t, []hostileCase{
		{name: "a schema property is no credential", status: 403, body: `{"error":{"message":"Invalid API key provided"}}`, req: schema, want: Auth},
		{name: "a schema property is no template", status: 400, body: `{"error":{"message":"Your credit balance is too low to access the API."}}`, req: schema, want: Quota},
		{name: "an escaped template member", status: 400, body: `{"error":{"message":"credit balance is too low None"}}`,
			req: `{"model":"m","messages":[{"role":"user","content":"hi"}],"chat\u005ftemplate":"{{ raise_exception('credit balance is ' ~ 'too low') }}"}`, notAny: []Class{Quota}},
		{name: "a data source's key", status: 403, body: `{"error":{"message":"Invalid API key provided"}}`, req: oyd, notAny: []Class{Auth}},
	})
}
