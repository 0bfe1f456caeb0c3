package classify

import (
	"net/http"
	"testing"
	"time"
)

// Round 56's rules, from hunts 56a (multimodal input errors), 56b
// (reasoning, thinking and conversation state) and 56c (context length and
// output limits), each beside the near answers it must leave alone and an
// echo guard: the client's own words quoted back never steer the class.

// classify56 classifies body as an answer to req (nil: none) for model m.
func classify56(status int, body, req string, stream bool) Verdict {
	var r []byte
	if req != "" {
		r = []byte(req)
	}
	return Classify(Response{Status: status, Body: []byte(body), Request: r, Model: "m", Stream: stream})
}

// want56 checks a classification's class and, where ev is set, its evidence.
func want56(t *testing.T, name string, v Verdict, want Class, ev string) {
	t.Helper()
	if !v.Failed || v.Class != want || ev != "" && v.Evidence != ev {
		t.Errorf("%s: got %s (%s), want %s %s", name, v.Class, v.Evidence, want, ev)
	}
}

// echo56 classifies body as an answer to a request whose user message is
// words, and wants the class the body has without them.
func echo56(t *testing.T, status int, words, body string, want Class) {
	t.Helper()
	req := `{"model":"m","messages":[{"role":"user","content":"` + words + `"}]}`
	if v := classify56(status, body, req, false); v.Class != want {
		t.Errorf("the client's words %q quoted back: %s (%s), want %s", words, v.Class, v.Evidence, want)
	}
}

// (a) hunt 56c R1. A bad-input phrase that is a request parameter's name
// (max_tokens, temperature, top_p) is echoed in every request that sets the
// parameter, since the request holds the name as a member: DashScope's
// "Range of max_tokens should be [1, 8192]" (claude-code-router#184) to a
// request {"model":"qwen-max","max_tokens":8912} lost its only evidence to
// the echo guard and read unknown in production, bad_request in the corpus
// (which gives no request). A match that is only a member name (a quoted
// name followed by ':') is not the client's words; one inside a string value
// still is. Only phrases whose class is bad_request are read so: a member
// name never makes an account, a key or an endpoint's class.
func TestRoundFiftySixParamNameMemberIsNoEcho(t *testing.T) {
	dash := `{"error":{"code":"invalid_parameter_error","param":null,"message":"<400> InternalError.Algo.InvalidParameter: Range of max_tokens should be [1, 8192]","type":"invalid_request_error"},"id":"chatcmpl-4b638ae7-4858-966f-95f5-08cbea6ffe34","request_id":"4b638ae7-4858-966f-95f5-08cbea6ffe34"}`
	want56(t, "no request", classify56(400, dash, "", false), BadRequest, "phrase:max_tokens")
	want56(t, "the max_tokens member", classify56(400, dash, `{"model":"qwen-max","max_tokens":8912}`, false), BadRequest, "phrase:max_tokens")
	want56(t, "the member, blanks before the colon", classify56(400, dash, `{"model":"qwen-max", "max_tokens" : 8912}`, false), BadRequest, "phrase:max_tokens")
	want56(t, "the member, nested", classify56(400, dash, `{"model":"qwen-max","parameters":{"max_tokens":8912}}`, false), BadRequest, "phrase:max_tokens")
	// The same name in a string value is the client's text: still echoed.
	if v := classify56(400, dash, `{"model":"qwen-max","max_tokens":8912,"messages":[{"role":"user","content":"what is max_tokens?"}]}`, false); v.Class == BadRequest {
		t.Errorf("the name in the client's message: %s (%s), want no bad_request from it", v.Class, v.Evidence)
	}
	echo56(t, 400, "Range of max_tokens should be", `{"error":{"message":"You said: Range of max_tokens should be"}}`, Unknown)
	// The name as a value ("stop":["max_tokens"]) is the client's words.
	if v := classify56(400, dash, `{"model":"qwen-max","stop":["max_tokens"]}`, false); v.Class == BadRequest {
		t.Errorf("the name as a value: %s (%s), want no bad_request from it", v.Class, v.Evidence)
	}
	// temperature and top_p, the same way (DashScope's message with the
	// parameter it names).
	for _, p := range []string{"temperature", "top_p"} {
		body := `{"error":{"code":"invalid_parameter_error","param":null,"message":"<400> InternalError.Algo.InvalidParameter: Range of ` + p + ` should be [0, 2)","type":"invalid_request_error"}}`
		want56(t, p+" member", classify56(400, body, `{"model":"qwen-max","`+p+`":3}`, false), BadRequest, "phrase:"+p)
	}
	// A cooling class keeps the full guard: a member the client named
	// after an account word, quoted back, proves nothing about the account.
	for _, body := range []string{
		`{"error":{"message":"Unrecognized request argument supplied: insufficient_quota","type":"invalid_request_error"}}`,
		`{"error":{"message":"insufficient_quota","type":"invalid_request_error"}}`,
	} {
		if v := classify56(400, body, `{"model":"m","insufficient_quota":1}`, false); v.Class == Quota {
			t.Errorf("a member named insufficient_quota quoted back: %s (%s), want no quota", v.Class, v.Evidence)
		}
	}
	if v := classify56(429, `{"error":{"message":"rate_limit_exceeded","type":"x"}}`, `{"model":"m","rate_limit_exceeded":1}`, false); v.Class != RateLimited {
		// A 429 is rate_limited by its status whatever the words.
		t.Errorf("429 with a member echoed: %s (%s)", v.Class, v.Evidence)
	}
}

// (a, side effect) openai-gpt-audio-stream-error-could-not-finish-max-tokens-200:
// an error event "Could not finish the message because max_tokens or model
// output limit was reached" inside a stream. Its only phrase is max_tokens;
// with a request that sets max_tokens, the echo guard left the stream-error
// default, server_error, which cools the endpoint for one client's budget.
// It reads as it does without a request (bad_request, its recorded miss).
func TestRoundFiftySixAudioStreamMaxTokensMember(t *testing.T) {
	body := "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"},\"finish_reason\":null}]}\n\n" +
		"data: {\"error\":{\"message\":\"Could not finish the message because max_tokens or model output limit was reached. Please try again with higher max_tokens.\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":null}}\n\n" +
		"data: [DONE]\n\n"
	without := classify56(200, body, "", true)
	with := classify56(200, body, `{"model":"gpt-audio","stream":true,"max_tokens":50,"messages":[{"role":"user","content":"Say Canada"}]}`, true)
	if with.Class == ServerError || with.Class != without.Class {
		t.Errorf("with a max_tokens member: %s (%s); without a request: %s (%s)", with.Class, with.Evidence, without.Class, without.Evidence)
	}
}

// (b1) hunt 56a R1. Ollama's 500 "Failed to create new sequence: failed to
// process inputs: this model is missing data required for image input"
// (ha-llmvision#691): the model was packaged without its vision projector;
// text requests to it work and a vision target serves the image. unknown,
// as the same words in a 4xx and in Ollama's 200 NDJSON line already are,
// and as llama.cpp's 500 "image input is not supported … mmproj" is. A 500
// with no such words stays server_error.
func TestRoundFiftySixMissingDataRequiredIn5xx(t *testing.T) {
	body := `{"error":"Failed to create new sequence: failed to process inputs: this model is missing data required for image input"}`
	want56(t, "Ollama's 500", classify56(500, body, "", false), Unknown, "phrase:missing data required")
	want56(t, "a bare 500", classify56(500, `{"error":"Failed to create new sequence: failed to process inputs"}`, "", false), ServerError, "")
	echo56(t, 500, "this model is missing data required for image input", `{"error":"failed to process: this model is missing data required for image input"}`, ServerError)
}

// (b2) hunt 56a R2. xAI's 400 "Invalid PNG image." (hermes-agent#69078,
// inside "Client specified an invalid argument"): image bytes that do not
// decode in the format they claim fail at every target: bad_request, the
// format-named twin of "invalid base64 image", ahead of the vague "invalid
// argument". Azure's "Invalid image (base64) data" (round 30, unknown) names
// no format and stays where it was.
func TestRoundFiftySixInvalidFormatImage(t *testing.T) {
	xai := func(m string) string {
		return `{"code":"invalid-argument","error":"code: 'Client specified an invalid argument', message: \"` + m + `\""}`
	}
	want56(t, "xAI, PNG", classify56(400, xai("Invalid PNG image."), "", false), BadRequest, "phrase:invalid png image")
	want56(t, "JPEG", classify56(400, xai("Invalid JPEG image."), "", false), BadRequest, "phrase:invalid jpeg image")
	want56(t, "WebP", classify56(400, xai("Invalid WEBP image."), "", false), BadRequest, "phrase:invalid webp image")
	want56(t, "the bare invalid argument", classify56(400, xai("Invalid request."), "", false), Unknown, "")
	want56(t, "Azure's base64 data", classify56(400, `{"error":{"code":"BadRequest","message":"Invalid image (base64) data."}}`, "", false), Unknown, "")
	echo56(t, 400, "Invalid PNG image.", `{"code":"invalid-argument","error":"code: 'Client specified an invalid argument', message: \"Invalid PNG image.\""}`, Unknown)
}

// (b3) hunt 56a R3, reversing round 13's reading (families9_test.go). A
// bare "Cannot fetch content from the provided URL." is this provider's
// fetcher failing (its egress, agent, timeout or size cap), not the URL:
// js-genai#1385's presigned URL was downloadable at the moment and the
// identical request succeeded on retry. behaviour.md reads a timeout
// fetching what the request points to as unknown, and the corpus reads
// DashScope's "Failed to download multimodal content" and OpenAI's
// failed_to_download_image so. unknown. What proves the resource broken
// for any fetcher stays bad_request: the site's robots denial (Vertex's
// URL_ROBOTED status), the host's 404 or 410, a URL that is not valid.
func TestRoundFiftySixFetchFailureIsTheFetchers(t *testing.T) {
	g := func(m string) string {
		return `{"error":{"code":400,"message":"` + m + `","status":"INVALID_ARGUMENT"}}`
	}
	want56(t, "Gemini's bare fetch failure", classify56(400, g("Cannot fetch content from the provided URL."), "", false), Unknown, "")
	want56(t, "round 13's wording", classify56(400, g("Cannot fetch content from the provided URL. Please ensure the URL is valid and accessible."), "", false), Unknown, "")
	want56(t, "could not fetch", classify56(400, `{"error":{"message":"Could not fetch the image URL."}}`, "", false), Unknown, "")
	want56(t, "Vertex's robots denial", classify56(400, g("Cannot fetch content from the provided URL. Please ensure the URL is valid and accessible by Vertex AI. Vertex AI respects robots.txt rules, so confirm the URL is allowed to be crawled. Status: URL_ROBOTED-ROBOTED_DENIED"), "", false), BadRequest, "")
	// The robots boilerplate alone (no denial) is no denial.
	want56(t, "robots boilerplate, no status", classify56(400, g("Cannot fetch content from the provided URL. Please ensure the URL is valid and accessible by Vertex AI. Vertex AI respects robots.txt rules, so confirm the URL is allowed to be crawled."), "", false), Unknown, "")
	want56(t, "the host's 404", classify56(400, `{"error":{"message":"Could not fetch the URL: 404 Not Found"}}`, "", false), BadRequest, "")
	want56(t, "the host's 410", classify56(400, `{"error":{"message":"Unable to fetch the image URL: HTTP 410 Gone"}}`, "", false), BadRequest, "")
	want56(t, "an invalid URL", classify56(400, `{"error":{"message":"Cannot fetch the URL: invalid URL"}}`, "", false), BadRequest, "")
	want56(t, "a 5xx stays the server's", classify56(500, `{"error":{"message":"Could not fetch the URL: connection reset"}}`, "", false), ServerError, "")
	// The client's words do not steer it back.
	echo56(t, 400, "URL_ROBOTED-ROBOTED_DENIED", g("Cannot fetch content from the provided URL: URL_ROBOTED-ROBOTED_DENIED"), Unknown)
	echo56(t, 400, "Could not fetch the URL: 404 Not Found", `{"error":{"message":"Could not fetch the URL: 404 Not Found"}}`, Unknown)
}

// (c) hunt 56b. Azure's Responses API without a code: "The encrypted
// content gAAA...wXBV could not be verified." (openai-agents-python#2063):
// the replayed reasoning item's content sits between the noun and the
// invalidity. bad_request, as OpenAI's invalid_encrypted_content and the
// adjacent "Encrypted content could not be decrypted or parsed." are (round
// 52c: the noun and the invalidity in one clause). "Encrypted content is not
// supported with this model" stays unknown; the words across a full stop
// are no clause.
func TestRoundFiftySixEncryptedContentCouldNotBeWithGap(t *testing.T) {
	az := func(m string) string {
		return `{"error":{"message":"` + m + `","type":"invalid_request_error","param":null,"code":null}}`
	}
	want56(t, "Azure, content between", classify56(400, az("The encrypted content gAAA...wXBV could not be verified."), "", false), BadRequest, "")
	want56(t, "adjacent, as before", classify56(400, az("Encrypted content could not be decrypted or parsed."), "", false), BadRequest, "")
	want56(t, "not supported stays", classify56(400, az("Encrypted content is not supported with this model."), "", false), Unknown, "")
	want56(t, "across a full stop", classify56(400, az("The encrypted content was received. The request could not be completed."), "", false), Unknown, "")
	echo56(t, 400, "The encrypted content gAAA...wXBV could not be verified.", az("You wrote: The encrypted content gAAA...wXBV could not be verified."), Unknown)
}

// Round 56, hunt 56d (batch, files, fine-tuned and dedicated-deployment
// surfaces; account, organization and project states).

// (d1) hunt 56d R1. Vertex's 400 INVALID_ARGUMENT "The Model name
// projects/…/models/1213123123123123 is malformed and it should be in form
// of projects/{project}/locations/{location}/publishers/google/models/{model}"
// (python-genai#1679): the model configured is a tuned model's resource path
// that this route does not serve. The model member is Detour's, not the
// client's input, so every request to this endpoint fails the same way:
// unavailable, as "model name format" and "model name is invalid" are. Only
// the model name called malformed, in one clause: Bedrock's "Malformed input
// request", a token or a payload called malformed, and a model name beside a
// malformed sentence stay bad input.
func TestRoundFiftySixDMalformedModelName(t *testing.T) {
	g := func(m string) string {
		return `{"error":{"code":400,"message":"` + m + `","status":"INVALID_ARGUMENT"}}`
	}
	vertex := g("The Model name projects/cloud-dev/locations/europe-west4/models/1213123123123123 is malformed and it should be in form of projects/{project}/locations/{location}/publishers/google/models/{model}")
	want56(t, "Vertex's tuned-model path", classify56(400, vertex, "", false), Unavailable, "")
	want56(t, "with the client's request", classify56(400, vertex, `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`, false), Unavailable, "")
	want56(t, "Bedrock's malformed input", classify56(400, `{"message":"Malformed input request: #: extraneous key [foo] is not permitted, please reformat your input and try again."}`, "", false), BadRequest, "")
	want56(t, "a payload called malformed", classify56(400, g("The request payload is malformed."), "", false), BadRequest, "")
	want56(t, "a model name, then another sentence", classify56(400, g("The model name was read. The request body is malformed."), "", false), BadRequest, "")
	// The client's own words quoted back prove nothing about the endpoint.
	echo56(t, 400, "The Model name projects/x/models/1 is malformed", g("You said: The Model name projects/x/models/1 is malformed"), Unknown)
	if v := classify56(400, g("The Model name projects/x/models/1 is malformed"), `{"model":"m","messages":[{"role":"user","content":"why is The Model name projects/x/models/1 is malformed"}]}`, false); v.Class == Unavailable {
		t.Errorf("the client's request holds the words: %s (%s), want no unavailable", v.Class, v.Evidence)
	}
}

// (d2) hunt 56d R2. Workers AI's 3039, a 400 "Finetune is missing required
// files (model.safetensors and config.json)" (cloudflare-docs errors.mdx): a
// stored fine-tune lacks its own weights and config. No request field is
// missing, so it is not bad input; the answer does not name the fine-tune,
// so "Not found: whose?" cannot say whether it is the endpoint's
// (unavailable) or one the client sent as its lora member (bad_request).
// unknown, as a model packaged without what a medium needs ("missing data
// required for image input") is: the request moves on, nothing cools. A
// client's missing field or property keeps bad_request.
func TestRoundFiftySixDMissingRequiredFiles(t *testing.T) {
	cf := func(code, m string) string {
		return `{"success":false,"errors":[{"code":` + code + `,"message":"` + m + `"}]}`
	}
	want56(t, "Workers AI 3039", classify56(400, cf("3039", "Finetune is missing required files (model.safetensors and config.json)"), "", false), Unknown, "phrase:missing required files")
	want56(t, "a missing parameter", classify56(400, `{"error":{"message":"Missing required parameter: 'messages'.","type":"invalid_request_error","param":"messages","code":"missing_required_parameter"}}`, "", false), BadRequest, "")
	want56(t, "a missing property", classify56(400, cf("5006", "Error: oneOf at '/' not met, 0 matches: missing required property 'prompt'"), "", false), BadRequest, "")
	echo56(t, 400, "Finetune is missing required files", cf("3039", "You said: Finetune is missing required files"), Unknown)
}

// (d3) hunt 56d R3. A Hugging Face Inference Endpoint in its failed state:
// "Bad Request: Your endpoint is in error, check its status on
// endpoints.huggingface.co" (huggingface.co/stabilityai/stable-diffusion-
// xl-base-1.0/discussions/221). The dedicated endpoint's replica crashed or
// never started; it stays down until its owner fixes or re-creates it:
// unavailable, beside "endpoint … not running". Scoped as "endpoint … not
// found" is: an endpoint the client named (an MCP server's URL in its
// request) is the client's. The paused endpoint's "Bad Request: Invalid
// state" (elastic/elasticsearch#112033) names nothing and stays unknown, a
// known miss: a rule on those words would take every state-machine 400.
func TestRoundFiftySixDEndpointIsInError(t *testing.T) {
	hf := func(m string) string { return `{"error":"` + m + `"}` }
	want56(t, "HF, failed endpoint", classify56(400, hf("Bad Request: Your endpoint is in error, check its status on endpoints.huggingface.co"), "", false), Unavailable, "")
	want56(t, "HF, paused endpoint (known miss)", classify56(400, hf("Bad Request: Invalid state"), "", false), Unknown, "")
	want56(t, "an endpoint, then another sentence", classify56(400, hf("Endpoint reached. The value of temperature is in error range."), "", false), BadRequest, "")
	req := `{"model":"m","tools":[{"type":"mcp","server_label":"x","server_url":"https://mcp.example.com/sse"}],"input":"hi"}`
	if v := classify56(400, hf("MCP server endpoint 'https://mcp.example.com/sse' is in error"), req, false); v.Class == Unavailable {
		t.Errorf("an endpoint the client named: %s (%s), want no unavailable", v.Class, v.Evidence)
	}
	echo56(t, 400, "Your endpoint is in error", hf("You said: Your endpoint is in error"), Unknown)
}

// classify56h classifies an answer with headers h (name, value pairs).
func classify56h(status int, body, req string, h ...string) Verdict {
	hd := http.Header{}
	for i := 0; i+1 < len(h); i += 2 {
		hd.Set(h[i], h[i+1])
	}
	var r []byte
	if req != "" {
		r = []byte(req)
	}
	return Classify(Response{Status: status, Header: hd, Body: []byte(body), Request: r, Model: "m"})
}

// wantWait56 checks a verdict's class and its wait.
func wantWait56(t *testing.T, name string, v Verdict, class Class, wait time.Duration) {
	t.Helper()
	if !v.Failed || v.Class != class || v.RetryAfter != wait {
		t.Errorf("%s: got %s (%s) wait %v, want %s wait %v", name, v.Class, v.Evidence, v.RetryAfter, class, wait)
	}
}

// (e1) hunt 56e rule 2, headers. Anthropic's 429 behind a relay that drops
// retry-after still names when each window is whole again:
// anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-reset,
// RFC 3339 (anthropics/anthropic-sdk-typescript#357: requests-remaining 0,
// requests-reset 20:00:00Z, date 19:59:59 GMT, a 1 s wait). A window's reset
// is a wait only where its -remaining is 0, measured against the answer's
// Date (else the classifier's clock); a reset in the past, a value that is
// no RFC 3339 time, or a window not spent is none, and a far-future one is
// bounded as a Retry-After date is (24h, hence quota: retry-after>=1h).
// Retry-After, when present, wins. Only the wait moves, never the class.
func TestRoundFiftySixEAnthropicWindowReset(t *testing.T) {
	body := `{"type":"error","error":{"type":"rate_limit_error","message":"Rate limited"},"request_id":"req_011CcQs88ju9s5K64Q8U2Gok"}`
	// sdk-typescript#357's capture (date 19:59:59 GMT, requests reset
	// 20:00:00Z), replayed at the present clock: a Date far from it is no
	// longer the clock resets are measured against (review 56b).
	base := time.Now().UTC().Truncate(time.Second)
	date := base.Format(http.TimeFormat)
	at := func(sec int) string { return base.Add(time.Duration(sec) * time.Second).Format(time.RFC3339) }
	wantWait56(t, "requests window spent (sdk-typescript#357)", classify56h(429, body, "",
		"anthropic-ratelimit-requests-remaining", "0", "anthropic-ratelimit-requests-reset", at(1),
		"anthropic-ratelimit-tokens-remaining", "40000", "anthropic-ratelimit-tokens-reset", at(60),
		"date", date), RateLimited, time.Second)
	wantWait56(t, "tokens window spent", classify56h(429, body, "",
		"anthropic-ratelimit-requests-remaining", "49", "anthropic-ratelimit-requests-reset", at(1),
		"anthropic-ratelimit-tokens-remaining", "0", "anthropic-ratelimit-tokens-reset", at(30),
		"date", date), RateLimited, 30*time.Second)
	wantWait56(t, "input-tokens window spent", classify56h(429, body, "",
		"anthropic-ratelimit-input-tokens-remaining", "0", "anthropic-ratelimit-input-tokens-reset", at(10),
		"date", date), RateLimited, 10*time.Second)
	wantWait56(t, "output-tokens window spent", classify56h(429, body, "",
		"anthropic-ratelimit-output-tokens-remaining", "0", "anthropic-ratelimit-output-tokens-reset", base.Add(5*time.Second).Format("2006-01-02T15:04:05+00:00"),
		"date", date), RateLimited, 5*time.Second)
	wantWait56(t, "no window spent", classify56h(429, body, "",
		"anthropic-ratelimit-requests-remaining", "3", "anthropic-ratelimit-requests-reset", at(1),
		"date", date), RateLimited, 0)
	wantWait56(t, "retry-after wins", classify56h(429, body, "", "retry-after", "7",
		"anthropic-ratelimit-requests-remaining", "0", "anthropic-ratelimit-requests-reset", at(1),
		"date", date), RateLimited, 7*time.Second)
	wantWait56(t, "a reset already past", classify56h(429, body, "",
		"anthropic-ratelimit-requests-remaining", "0", "anthropic-ratelimit-requests-reset", at(-3599),
		"date", date), RateLimited, 0)
	wantWait56(t, "not an RFC 3339 time", classify56h(429, body, "",
		"anthropic-ratelimit-requests-remaining", "0", "anthropic-ratelimit-requests-reset", "in a while",
		"date", date), RateLimited, 0)
	wantWait56(t, "a number, not a time", classify56h(429, body, "",
		"anthropic-ratelimit-requests-remaining", "0", "anthropic-ratelimit-requests-reset", "-5"), RateLimited, 0)
	wantWait56(t, "far future: bounded, an allowance", classify56h(429, body, "",
		"anthropic-ratelimit-requests-remaining", "0", "anthropic-ratelimit-requests-reset", "9999-12-31T23:59:59Z",
		"date", date), Quota, 0)
	if d := spentWindowReset(http.Header{"Anthropic-Ratelimit-Requests-Remaining": {"0"},
		"Anthropic-Ratelimit-Requests-Reset": {"9999-12-31T23:59:59Z"}}, time.Now()); d != maxRetryAfter {
		t.Errorf("far-future reset: %v, want the %v bound", d, maxRetryAfter)
	}
	// No Date (or one that does not parse): measured against the clock.
	soon := time.Now().Add(30 * time.Second).UTC().Format(time.RFC3339)
	for _, d := range []string{"", "yesterday"} {
		v := classify56h(429, body, "", "anthropic-ratelimit-tokens-remaining", "0", "anthropic-ratelimit-tokens-reset", soon, "date", d)
		if v.Class != RateLimited || v.RetryAfter < 25*time.Second || v.RetryAfter > 31*time.Second {
			t.Errorf("date %q: got %s wait %v, want rate_limited about 30s", d, v.Class, v.RetryAfter)
		}
	}
	// A server error keeps its explicit headers' wait alone.
	if v := classify56h(529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "",
		"anthropic-ratelimit-requests-remaining", "0", "anthropic-ratelimit-requests-reset", at(1),
		"date", date); v.RetryAfter != 0 {
		t.Errorf("overloaded 529: wait %v, want none", v.RetryAfter)
	}
}

// (e2) hunt 56e rule 2, body. CLIProxyAPI's model_cooldown
// (error.reset_seconds) and Codex's usage_limit_reached
// (error.resets_in_seconds) name the wait only in a member of the error
// object. Read as seconds, a number, one level into "error" (where
// retry_after is read); at the top, deeper, as a string, negative, in the
// message's words, or where the client's request holds the name, none.
// 561635 s is bounded to 24h, an allowance (retry-after>=1h): the corpus's
// cliproxyapi reset-seconds miss becomes a hit.
func TestRoundFiftySixEBodyResetMembers(t *testing.T) {
	cool := func(member string) string {
		return `{"error":{"code":"model_cooldown","message":"All credentials for model m are cooling down","model":"m",` + member + `}}`
	}
	wantWait56(t, "reset_seconds", classify56h(429, cool(`"reset_seconds":42,"reset_time":"42s"`), ""), RateLimited, 42*time.Second)
	wantWait56(t, "resets_in_seconds", classify56h(429, cool(`"resets_in_seconds":30`), ""), RateLimited, 30*time.Second)
	wantWait56(t, "CLIProxyAPI's 156h", classify56h(429, cool(`"reset_seconds":561635,"reset_time":"156h0m34s"`), ""), Quota, 0)
	wantWait56(t, "huge", classify56h(429, cool(`"reset_seconds":1e300`), ""), Quota, 0)
	wantWait56(t, "negative", classify56h(429, cool(`"reset_seconds":-42`), ""), RateLimited, 0)
	wantWait56(t, "a string", classify56h(429, cool(`"reset_seconds":"42"`), ""), RateLimited, 0)
	wantWait56(t, "retry-after wins", classify56h(429, cool(`"reset_seconds":42`), "", "retry-after", "5"), RateLimited, 5*time.Second)
	wantWait56(t, "retry_after member wins", classify56h(429, cool(`"reset_seconds":42,"retry_after":9`), ""), RateLimited, 9*time.Second)
	wantWait56(t, "at the top, not in the error object",
		classify56h(429, `{"error":{"code":"model_cooldown","message":"All credentials for model m are cooling down"},"reset_seconds":42}`, ""), RateLimited, 0)
	wantWait56(t, "deeper: a quoted input",
		classify56h(429, cool(`"input":{"reset_seconds":42}`), ""), RateLimited, 0)
	wantWait56(t, "in the message's words",
		classify56h(429, `{"error":{"code":"model_cooldown","message":"All credentials for model m are cooling down: \"reset_seconds\":42"}}`, ""), RateLimited, 0)
	// The client's request holds the name: the answer may be quoting it.
	req := `{"model":"m","messages":[{"role":"user","content":"hi"}],"metadata":{"reset_seconds":42}}`
	wantWait56(t, "the client's member", classify56h(429, cool(`"reset_seconds":42`), req), RateLimited, 0)
}

// (e3) hunt 56e rule 3. Azure OpenAI's TPM 429 may carry no Retry-After,
// only x-rate-limit-reset-tokens: 55 (hyphenated; openai/openai-python#937),
// which the x-ratelimit-reset-* reading never met: seconds, on a 429 with no
// Retry-After. Where both windows' resets are given and neither says which
// is spent, neither is this answer's (review 32h). Bounded as Retry-After.
func TestRoundFiftySixEAzureHyphenatedReset(t *testing.T) {
	body := `{"error":{"code":"429","message":"Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2023-07-01-preview have exceeded token rate limit of your current OpenAI S0 pricing tier."}}`
	wantWait56(t, "tokens (openai-python#937)", classify56h(429, body, "", "x-rate-limit-reset-tokens", "55", "policy-id", "DeploymentRatelimit-Token"), RateLimited, 55*time.Second)
	wantWait56(t, "requests", classify56h(429, body, "", "x-rate-limit-reset-requests", "6"), RateLimited, 6*time.Second)
	wantWait56(t, "retry-after wins", classify56h(429, body, "", "retry-after", "3", "x-rate-limit-reset-tokens", "55"), RateLimited, 3*time.Second)
	wantWait56(t, "retry-after-ms wins", classify56h(429, body, "", "retry-after-ms", "3000", "x-rate-limit-reset-tokens", "55"), RateLimited, 3*time.Second)
	wantWait56(t, "both, none spent", classify56h(429, body, "", "x-rate-limit-reset-tokens", "55", "x-rate-limit-reset-requests", "1"), RateLimited, 0)
	wantWait56(t, "both, tokens spent", classify56h(429, body, "", "x-rate-limit-reset-tokens", "55", "x-rate-limit-reset-requests", "1",
		"x-ratelimit-remaining-tokens", "0", "x-ratelimit-remaining-requests", "5"), RateLimited, 55*time.Second)
	wantWait56(t, "negative", classify56h(429, body, "", "x-rate-limit-reset-tokens", "-55"), RateLimited, 0)
	wantWait56(t, "not a number", classify56h(429, body, "", "x-rate-limit-reset-tokens", "soon"), RateLimited, 0)
	wantWait56(t, "huge: an allowance", classify56h(429, body, "", "x-rate-limit-reset-tokens", "1e300"), Quota, 0)
	wantWait56(t, "a day: an allowance", classify56h(429, body, "", "x-rate-limit-reset-tokens", "86400"), Quota, 0)
	// Only on a 429: a 503's or a 200 stream's reset headers name no wait.
	if v := classify56h(503, `{"error":{"code":"429","message":"Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2023-07-01-preview have exceeded token rate limit of your current OpenAI S0 pricing tier."}}`, "",
		"x-rate-limit-reset-tokens", "55"); v.RetryAfter == 55*time.Second {
		t.Errorf("503: wait %v, want no hyphenated reset read", v.RetryAfter)
	}
}
