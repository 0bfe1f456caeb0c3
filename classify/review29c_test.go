package classify

import (
	"net/http"
	"testing"
)

// Hostile review 29c: db750cc, 893a5db, f0ae1e2, 4192452, 03be404, 45edc60.
// Each test failed at 296428d.

// 45edc60's subjectEchoed skips any name token that is a part of the model
// Detour sent. A client's own sub-model whose name or version shares a part
// with the endpoint's model ("GPT-4" beside gpt-4o, "2.5" beside
// gemini-2.5-pro, a date beside a dated model) is no longer the client's:
// the answer reads as the endpoint's model gone and cools it for everyone.
func TestReview29cPartOfModelIsNotTheModel(t *testing.T) {
	runHostile(t, []hostileCase{
		{name: "a tool's GPT-4 beside gpt-4o", status: 400,
			body: `{"error":{"message":"GPT-4 is no longer available."}}`,
			req:  `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"agent","model":"gpt-4"}]}`, model: "gpt-4o",
			notAny: []Class{Unavailable}},
		{name: "a fallback model sharing the version", status: 400,
			body: `{"error":{"message":"Gemini 2.5 Flash Image Preview is no longer available. Please switch to Gemini 2.5 Flash Image."}}`,
			req:  `{"model":"gemini-2.5-pro","messages":[{"role":"user","content":"hi"}],"models":["gemini-2.5-flash-image-preview"]}`, model: "gemini-2.5-pro",
			notAny: []Class{Unavailable}},
		{name: "a client's api version equal to the model's date", status: 400,
			body: `{"error":{"message":"API version 2024-08-06 is no longer supported."}}`,
			req:  `{"model":"gpt-4o-2024-08-06","messages":[{"role":"user","content":"hi"}],"api_version":"2024-08-06"}`, model: "gpt-4o-2024-08-06",
			notAny: []Class{Unavailable}},
	})
}

// f0ae1e2's AWS failure words are state phrases, ranked ahead of every
// bad-input phrase and read at any status: a generic preamble ("An error
// occurred while streaming the response: <reason>") hides the reason, and a
// 429 in those words loses its throttle.
func TestReview29cAWSFailureWordsOutrankTheReason(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		{name: "roles must alternate, wrapped", status: 400,
			body: `{"message":"An error occurred while streaming the response: messages: roles must alternate between \"user\" and \"assistant\""}`,
			req:  chat, model: "m", want: BadRequest},
		{name: "unsupported parameter, wrapped", status: 400,
			body: `{"message":"An error occurred while streaming the response: Unsupported parameter: 'temperature' is not supported with this model."}`,
			req:  chat, model: "m", notAny: []Class{ServerError}},
		{name: "field required after the AWS words", status: 400,
			body: `{"message":"The system encountered an unexpected error during processing. messages.0.content: Field required"}`,
			req:  chat, model: "m", want: BadRequest},
		{name: "a 429 in the streaming words", status: 429, header: http.Header{"Retry-After": {"20"}},
			body: `{"message":"An error occurred while streaming the response. Retry your request."}`,
			req:  chat, model: "m", want: RateLimited},
	})
}

// 4192452's Japanese and Korean quota phrases are strong account phrases:
// at a 429 they beat "per minute" (분당, 1分あたり, and even an English
// quota metric per minute) and a Retry-After of seconds. 할당량 and クォータ
// are also the words for a per-minute quota.
func TestReview29cCJKQuotaAtA429(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		{name: "a Korean app's 429 with a 30 s Retry-After", status: 429, header: http.Header{"Retry-After": {"30"}},
			body: `{"error":{"message":"Gemini API 할당량이 소진되었습니다."}}`, req: chat, model: "m", want: RateLimited},
		{name: "per-minute quota used up, Korean", status: 429,
			body: `{"error":{"message":"분당 요청 할당량이 소진되었습니다. 잠시 후 다시 시도하세요."}}`, req: chat, model: "m", want: RateLimited},
		{name: "per-minute quota short, Japanese", status: 429,
			body: `{"error":{"message":"1分あたりのクォータが不足しています。しばらくしてから再試行してください。"}}`, req: chat, model: "m", want: RateLimited},
		{name: "an English per-minute metric with a Korean gloss", status: 429,
			body: `{"error":{"message":"Quota exceeded for quota metric 'Generate Content API requests per minute'. 할당량이 소진되었습니다."}}`, req: chat, model: "m", want: RateLimited},
	})
}

// 45edc60's "is not a valid model" (ourModel) reads any sentence that names
// the model Detour sent, also where what follows says for what it is not
// valid: a tool, a door, a mode the client chose. A capability gap
// becomes the endpoint's model gone.
func TestReview29cValidModelForAFeature(t *testing.T) {
	runHostile(t, []hostileCase{
		{name: "not valid for the image tool", status: 400,
			body: "{\"error\":{\"message\":\"`gpt-4o` is not a valid model for the image_generation tool.\"}}",
			req:  `{"model":"gpt-4o","input":"hi","tools":[{"type":"image_generation"}]}`, model: "gpt-4o", notAny: []Class{Unavailable}},
		{name: "not valid for another door", status: 400,
			body: `{"error":{"message":"gpt-4o is not a valid model for the /v1/embeddings endpoint."}}`,
			req:  `{"model":"gpt-4o","input":"hi"}`, model: "gpt-4o", notAny: []Class{Unavailable}},
		{name: "not valid for batch requests", status: 400,
			body: `{"error":{"message":"gpt-4o isn't a valid model for batch requests."}}`,
			req:  `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}`, model: "gpt-4o", notAny: []Class{Unavailable}},
	})
}

// 45edc60's "deprecated and no longer available" in a 5xx has no subject
// check, unlike the 4xx gone phrases: a feature of the request deprecated
// becomes the endpoint's model gone.
func TestReview29cDeprecatedFeatureIn5xx(t *testing.T) {
	runHostile(t, []hostileCase{
		{name: "a request option deprecated", status: 500,
			body: `{"error":{"message":"The search_parameters option is deprecated and no longer available. Use the web_search tool."}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":"hi"}],"search_parameters":{"mode":"auto"}}`, model: "m", notAny: []Class{Unavailable}},
		{name: "a request parameter deprecated", status: 500,
			body: `{"error":{"message":"The functions parameter is deprecated and no longer available; use tools."}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":"hi"}],"functions":[{"name":"f"}]}`, model: "m", notAny: []Class{Unavailable}},
	})
}

// 03be404's "no credentials for … provider" (gap 16) is auth wherever the
// request brings no credential of its own, also where the client chose the
// provider (a routing member) or the provider is a feature's (a reranker,
// a search engine): the account is cooled and the operator paged for one
// client's choice.
func TestReview29cNoCredentialsForTheClientsProvider(t *testing.T) {
	oai := func(m string) string { return `{"error":{"message":"` + m + `","type":"invalid_request_error"}}` }
	runHostile(t, []hostileCase{
		{name: "the client's routing member", status: 400, body: oai("No credentials for provider: claude"),
			req: `{"model":"m","messages":[{"role":"user","content":"hi"}],"provider":"claude"}`, model: "m", notAny: []Class{Auth}},
		{name: "a reranker's provider", status: 400, body: oai("No credentials for rerank provider: cohere"),
			req: `{"model":"m","messages":[{"role":"user","content":"hi"}],"rerank":{"provider":"cohere","model":"rerank-v3.5"}}`, model: "m", notAny: []Class{Auth}},
		{name: "a search plugin's provider", status: 400, body: oai("No credentials for web search provider: tavily"),
			req: `{"model":"m","messages":[{"role":"user","content":"hi"}],"plugins":[{"id":"web","engine":"tavily"}]}`, model: "m", notAny: []Class{Auth}},
	})
}

// 45edc60's "verify your identity" has no notClient: a page the upstream
// fetched for the client, at the client's URL, that asks its visitor to
// verify their identity becomes the endpoint forbidden.
func TestReview29cVerifyIdentityOfTheClientsURL(t *testing.T) {
	runHostile(t, []hostileCase{
		{name: "a fetched page asks for verification", status: 400,
			body:  `{"error":{"message":"Failed to fetch https://bank.example.com/statement: the page says: Please verify your identity to continue."}}`,
			req:   `{"model":"m","messages":[{"role":"user","content":"read https://bank.example.com/statement"}],"tools":[{"type":"web_fetch_20250910","name":"web_fetch"}]}`,
			model: "m", notAny: []Class{Forbidden}},
	})
}
