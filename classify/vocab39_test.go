package classify

import (
	"testing"
	"time"
)

// TestVocabularyRoundThirtyNineEmbeddings: hunt 39b (embeddings answers),
// each labelled from its meaning before the classifier ran (corpus README,
// "Vocabulary round thirty-nine"). A user relies on an embeddings text that
// is too long for one model's window walking on to a target with a larger
// window (not ending the request as its bad input), and on a chat model
// asked for embeddings moving on without cooling the endpoint its chat
// clients use. The positives failed before their rules; the near-misses
// beside them must not move.
func TestVocabularyRoundThirtyNineEmbeddings(t *testing.T) {
	emb := `{"model":"m","input":["alpha","beta"]}`
	runHostile(t, []hostileCase{
		// Jina's live answer for one text over jina-embeddings-v3's window
		// (a Rust client's wire tests, "Recorded from the live API").
		{name: "Jina INPUT_TOKEN_LIMIT_EXCEEDED", status: 400,
			body: `{"detail":{"message":"Input text exceeds the model's maximum of 8194 tokens. Use 'truncate: true' to automatically truncate, or split into smaller chunks.","request_id":"r","code":"INPUT_TOKEN_LIMIT_EXCEEDED"}}`,
			req:  emb, model: "m", want: ContextLength},
		// The same words without the code, and the code without the words
		// (constructed from it): each decides alone.
		{name: "Jina's words alone", status: 400,
			body: `{"detail":{"message":"Input text exceeds the model's maximum of 8194 tokens. Use 'truncate: true' to automatically truncate, or split into smaller chunks."}}`,
			req:  emb, model: "m", want: ContextLength},
		{name: "Jina's code alone", status: 400,
			body: `{"detail":{"message":"Request failed.","code":"INPUT_TOKEN_LIMIT_EXCEEDED"}}`,
			req:  emb, model: "m", want: ContextLength},
		// OpenAI's 403 for a chat model on /v1/embeddings (tinyhumansai/
		// openhuman#5116): the door, not access.
		{name: "OpenAI not allowed to generate embeddings from this model", status: 403,
			body: `{ "error": { "message": "You are not allowed to generate embeddings from this model", "type": "invalid_request_error", "param": null, "code": null } }`,
			req:  emb, model: "gpt-4o-mini", want: Unknown},
		// vLLM's newer window sentence on an embeddings request: placed by
		// "context length", which every version of it carries (no rule of
		// its own).
		{name: "vLLM you passed N input tokens and requested 0 output tokens", status: 400,
			body: `{"error": {"message": "You passed 2049 input tokens and requested 0 output tokens. However, the model's context length is only 2048 tokens, resulting in a maximum input length of 2048 tokens. Please reduce the length of the input prompt. (parameter=input_tokens, value=2049)", "type": "BadRequestError", "param": null, "code": 400}}`,
			req:  emb, model: "m", want: ContextLength},

		// Near-misses from the corpus: a batch's token cap is the endpoint's
		// (Voyage, Mistral), an output cap or a count of blocks is the
		// client's input, access to the model itself stays forbidden.
		{name: "Voyage max allowed tokens per submitted batch", status: 400,
			body: `{"detail":"Request to model 'voyage-large-2-instruct' failed. The max allowed tokens per submitted batch is 120000. Your batch has 121138 tokens after truncation. Please lower the number of tokens in the batch."}`,
			req:  emb, model: "m", want: Overflow},
		{name: "Mistral too many tokens in batch", status: 400,
			body: `{"object":"error","message":"Too many tokens in batch. Max is 16384 got 17555","type":"invalid_request_error","param":null,"code":null}`,
			req:  emb, model: "m", want: Overflow},
		{name: "Anthropic maximum of 4 cache_control blocks", status: 400,
			body: `{"type":"error","error":{"type":"invalid_request_error","message":"A maximum of 4 blocks with cache_control may be provided. Found 5."}}`,
			req:  emb, model: "m", want: BadRequest},
		{name: "Anthropic max_tokens over the output maximum", status: 400,
			body: `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: 10000 > 4096, which is the maximum allowed number of output tokens for claude-3-5-sonnet-20240620"}}`,
			req:  emb, model: "m", want: BadRequest},
		{name: "not allowed to sample from this model stays forbidden", status: 403,
			body: `{"error":{"message":"You are not allowed to sample from this model","type":"invalid_request_error"}}`,
			req:  emb, model: "m", want: Forbidden},
		{name: "not allowed to request logprobs from this model stays unknown", status: 403,
			body: `{"error":{"message":"You are not allowed to request logprobs from this model","type":"invalid_request_error"}}`,
			req:  emb, model: "m", want: Unknown},

		// Near-misses (constructed): a batch's tokens in Jina's words stay
		// the batch cap; a length in characters names no window; an input
		// text's tokens counted per minute at a 429 are a throttle; the
		// client's own text quoted back is no evidence; a bad-input code in
		// the detail object is not read as proof, nor does a detail code
		// outrank the answer's own top-level one.
		{name: "input text exceeds the tokens per batch", status: 400,
			body: `{"detail":{"message":"Input text exceeds the maximum of 8192 tokens per batch."}}`,
			req:  emb, model: "m", want: Overflow},
		{name: "input text exceeds a length in characters", status: 400,
			body: `{"detail":{"message":"Input text exceeds the maximum of 2048 characters."}}`,
			req:  emb, model: "m", notAny: []Class{ContextLength}},
		{name: "input text tokens per minute at a 429", status: 429,
			body: `{"detail":{"message":"Input text exceeds your limit of 100000 tokens per minute."}}`,
			req:  emb, model: "m", want: RateLimited},
		{name: "the client's own text about an input text over its tokens", status: 400,
			body: `{"error":{"message":"Invalid value: 'Input text exceeds the model's maximum of 8194 tokens'"}}`,
			req:  `{"model":"m","input":["Input text exceeds the model's maximum of 8194 tokens"]}`, model: "m", notAny: []Class{ContextLength}},
		{name: "a bad-input code in a detail object proves nothing", status: 400,
			body: `{"detail":{"message":"Request failed.","code":"invalid_value"}}`,
			req:  emb, model: "m", want: Unknown},
		{name: "a top-level code outranks the detail object's", status: 400,
			body: `{"code":"invalid_api_key","detail":{"message":"Request failed.","code":"INPUT_TOKEN_LIMIT_EXCEEDED"}}`,
			req:  emb, model: "m", want: Auth},
	})
}

// TestVocabularyRoundThirtyNineHosts: hunt 39c (inference hosts), labelled
// before the classifier ran. A user relies on a dead Cloudflare token being
// the account's (cooled, the operator paged) even though Cloudflare sends
// it as a 400, and on a day's allowance being a spent allowance whether the
// day resets in two hours or in two minutes.
func TestVocabularyRoundThirtyNineHosts(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		// Cloudflare's v4 API given a bad token (maruel/genai's recorded
		// bad_apiKey cassette): code 10001, a 400.
		{name: "Cloudflare 10001 unable to authenticate request", status: 400,
			body: "{\"success\":false,\"errors\":[{\"code\":10001,\"message\":\"Unable to authenticate request\"}]}\n",
			req:  chat, model: "m", want: Auth},
		{name: "Cloudflare 10000 authentication error stays auth", status: 403,
			body: `{"success":false,"errors":[{"code":10000,"message":"Authentication error"}]}`,
			req:  chat, model: "m", want: Auth},
		// GitHub Models' daily allowance with a wait under an hour (the
		// hunt's real body, "Please wait 5631 seconds", with the wait
		// shortened, as near the day's reset): still a day's allowance.
		{name: "GitHub Models per 86400s, the day near its reset", status: 429,
			body: `{"error":{"code":"RateLimitReached","message":"Rate limit of 50 per 86400s exceeded for UserByModelByDay. Please wait 120 seconds before retrying.","details":"Rate limit of 50 per 86400s exceeded for UserByModelByDay. Please wait 120 seconds before retrying."}}`,
			req:  chat, model: "m", want: Quota},
		{name: "GitHub Models per 86400s, wait 5631 seconds", status: 429,
			body: "{\n\t\t\t\t\"error\": {\n\t\t\t\t\t\"code\": \"RateLimitReached\",\n\t\t\t\t\t\"message\": \"Rate limit of 50 per 86400s exceeded for UserByModelByDay. Please wait 5631 seconds before retrying.\",\n\t\t\t\t\t\"details\": \"Rate limit of 50 per 86400s exceeded for UserByModelByDay. Please wait 5631 seconds before retrying.\"\n\t\t\t\t}\n\t\t\t}",
			req:  chat, model: "m", want: Quota},

		// Near-misses (constructed unless said): the minute's window is a
		// throttle (the hunt's real body); an hour's names neither and the
		// words decide; a price "per 1m tokens" is a million, no minute;
		// a duration with no seconds unit is not read; the client's own
		// words quoted back are no evidence; a connector's or a fetched
		// URL's authentication is not the operator's key.
		{name: "GitHub Models per 60s", status: 429,
			body: "{\n  \"error\": {\n    \"code\": \"RateLimitReached\",\n    \"message\": \"Rate limit of 10 per 60s exceeded for UserByModelByMinute. Please wait 46 seconds before retrying.\",\n    \"details\": \"Rate limit of 10 per 60s exceeded for UserByModelByMinute. Please wait 46 seconds before retrying.\"\n  }\n}",
			req:  chat, model: "m", want: RateLimited},
		{name: "an hour's window leaves the words to decide", status: 429,
			body: `{"error":{"code":"RateLimitReached","message":"Rate limit of 100 per 3600s exceeded for UserByModelByHour. Please wait 30 seconds before retrying."}}`,
			req:  chat, model: "m", want: RateLimited},
		{name: "a price per 1m tokens is no minute", status: 429,
			body: `{"error":{"message":"You exceeded your current quota. This model is billed at $2 per 1m tokens; please check your plan and billing details."}}`,
			req:  chat, model: "m", want: Quota},
		{name: "a spend cap per 1 day stays a spend cap", status: 429,
			body: `{"detail":"Budget limit exceeded. Limit: $100.00 USD per 1 day. Budget resets at 2026-05-01T00:00:00Z. Request rejected."}`,
			req:  chat, model: "m", want: Quota},
		{name: "the client's own per 86400s quoted back", status: 429,
			body: `{"error":{"message":"Too many requests. Your last prompt: 'the note says Rate limit of 50 per 86400s exceeded'"}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":"the note says Rate limit of 50 per 86400s exceeded"}]}`, model: "m", notAny: []Class{Quota}},
		{name: "an MCP server the client declared fails to authenticate", status: 400,
			body: `{"type":"error","error":{"type":"invalid_request_error","message":"Unable to authenticate request to MCP server 'docs'"}}`,
			req:  chat, model: "m", want: BadRequest},
		{name: "a URL the client sent fails to authenticate", status: 400,
			body: `{"error":{"message":"Unable to authenticate request to https://files.example.com/report.pdf: 401"}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":[{"type":"file","file":{"file_url":"https://files.example.com/report.pdf"}}]}]}`, model: "m", notAny: []Class{Auth}},
		{name: "the client's own words quoted back", status: 400,
			body: `{"error":{"message":"Invalid value: 'Unable to authenticate request'"}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":"Unable to authenticate request"}]}`, model: "m", notAny: []Class{Auth}},
	})
}

// TestVocabularyRoundThirtyNineWindowKeepsTheWait: a user relies on a
// per-minute throttle read by its "per 60s" window still telling the
// gateway how long to wait (the body's "Please wait 46 seconds").
func TestVocabularyRoundThirtyNineWindowKeepsTheWait(t *testing.T) {
	v := Classify(Response{Status: 429, Body: []byte(`{"error":{"code":"RateLimitReached","message":"Rate limit of 10 per 60s exceeded for UserByModelByMinute. Please wait 46 seconds before retrying."}}`)})
	if v.Class != RateLimited || v.RetryAfter != 46*time.Second {
		t.Fatalf("got %s (%s), retry after %s; want rate_limited, 46s", v.Class, v.Evidence, v.RetryAfter)
	}
}
