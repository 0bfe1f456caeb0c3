package classify

import "testing"

// A hostile review of the rules of vocabulary round 22 (a param names a
// field only where the request carries it; the new account, gone and
// retry-hint wording). Each test fails against the round's rules and names
// the harm.

// TestReview22WorkerTotalRequestLimitIsNotQuota: "total request limit"
// (phrasesaccount.go, meant for Baidu's 19 "Open api total request limit
// reached", a lifetime allowance) is a strong quota phrase read anywhere.
// NVIDIA's inference workers answer a full in-flight queue with
// "ResourceExhausted: Worker local total request limit reached (16/16)"
// (quoted in public gateway code and incident notes, relayed as a 502 in a
// 200, a 503, or — gRPC's RESOURCE_EXHAUSTED maps to 429 — as a 429). That
// is a concurrency limit that frees within seconds; read as quota it cools
// the whole provider account for account_cooldown and pages the operator,
// and the outranked per-minute wording ("per minute") cannot save it
// either. Suggested fix: anchor the phrase to Baidu's wording ("open api
// total request limit") or make it weak, and never quota beside a
// worker/concurrency count.
func TestReview22WorkerTotalRequestLimitIsNotQuota(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		{name: "nvidia worker queue full, as a 429", status: 429,
			body: `{"error":{"message":"ResourceExhausted: Worker local total request limit reached (16/16)"}}`,
			req:  chat, model: "m", notAny: []Class{Quota}},
		{name: "nvidia worker queue full, relayed by a router as its 429", status: 200,
			body: `{"error":{"message":"Provider returned error","code":429,"metadata":{"raw":"{\"error\":\"ResourceExhausted: Worker local total request limit reached (16/16)\"}","provider_name":"Nvidia"}}}`,
			req:  chat, model: "m", notAny: []Class{Quota}},
		{name: "a per-minute total request limit", status: 429,
			body: `{"error":{"message":"Rate limit exceeded: total request limit of 60 per minute reached"}}`,
			req:  chat, model: "m", want: RateLimited},
	})
}

// TestReview22SchemaPropertyIsNoField: namesField counts a param as a
// request field when the request carries a member of that name "at any
// depth" — a property of a tool's JSON schema or a response_format schema
// too. Cerebras sends "param":"quota" with its daily cap; a client whose
// tool (set_disk_quota) or structured-output schema has a "quota" property
// turns that daily cap into bad_request: the route stops (no failover to
// the other targets that would serve it) and the spent account is never
// cooled, so every other request keeps spending an attempt on it.
// carriesCredential already says a property inside a tool's schema is no
// member; namesField should read members the same way (outside tools[].
// function.parameters, input_schema, response_format's schema).
func TestReview22SchemaPropertyIsNoField(t *testing.T) {
	daily := `{"message":"Tokens per day limit exceeded - too many tokens processed.","type":"too_many_tokens_error","param":"quota","code":"token_quota_exceeded"}`
	runHostile(t, []hostileCase{
		{name: "a tool with a quota argument", status: 429, body: daily,
			req:   `{"model":"m","messages":[{"role":"user","content":"raise the disk quota"}],"tools":[{"type":"function","function":{"name":"set_disk_quota","parameters":{"type":"object","properties":{"quota":{"type":"integer"}}}}}]}`,
			model: "m", want: Quota},
		{name: "a structured output with a quota property", status: 429, body: daily,
			req:   `{"model":"m","messages":[{"role":"user","content":"plan it"}],"response_format":{"type":"json_schema","json_schema":{"name":"plan","schema":{"type":"object","properties":{"quota":{"type":"number"}}}}}}`,
			model: "m", want: Quota},
	})
}

// TestReview22TooLargeToBeLoadedIsTheRequest: "model … too large to be
// loaded" (phrasesgone.go, for Hugging Face's "The model X is too large to
// be loaded automatically (16GB > 10GB)") has an 80-byte gap and no subject
// check, and "too large to be loaded" is the common wording for any input
// too big for memory. A request's payload too large — even under a 413,
// whose status says overflow — is read as the model gone, and one client's
// oversized image or document cools the endpoint at once for
// unavailable_cooldown, for everyone. Suggested fix: require the model to
// be the subject ("model <name> is too large to be loaded", subject/goneNoun
// as the sibling gone phrases), or HF's own "too large to be loaded
// automatically".
func TestReview22TooLargeToBeLoadedIsTheRequest(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		{name: "a 413 naming the model's payload", status: 413,
			body: `{"error":{"message":"Request for model llava-13b too large to be loaded (payload 48MB > 20MB)"}}`,
			req:  chat, model: "llava-13b", notAny: []Class{Unavailable}},
		{name: "the model's input too large for memory", status: 400,
			body: `{"error":{"message":"The model input is too large to be loaded into memory."}}`,
			req:  chat, model: "m", notAny: []Class{Unavailable}},
		{name: "an image sent to the model", status: 400,
			body: `{"error":{"message":"The image you sent to the model is too large to be loaded (max 20MB)."}}`,
			req:  chat, model: "m", notAny: []Class{Unavailable}},
	})
}

// TestReview22FeatureDoesNotSupportCompletionIsNotGone: "does not support
// completion" (gonePhrases and fiveXXPhrases, for Ollama's "<model> does
// not support completion") has word: true, but '-' ends a word, so
// "completion-only", "completion-style" match; and nothing checks that the
// model is what lacks it. A gateway's refusal of the client's options
// ("native compaction does not support completion-only media or sampling
// options", a public gateway's own error text) is read as the model gone:
// the client's sampling options cool the endpoint for unavailable_cooldown
// for everyone, in a 4xx and a 5xx alike. Suggested fix: the model as the
// subject (subject/goneNoun, as "model is only supported in" got), and a
// word end that is the end of the phrase's word, not a hyphenated compound.
func TestReview22FeatureDoesNotSupportCompletionIsNotGone(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		{name: "a feature lacks completion-only options", status: 400,
			body: `{"error":{"message":"native compaction does not support completion-only media or sampling options","type":"invalid_request_error"}}`,
			req:  chat, model: "m", notAny: []Class{Unavailable}},
		{name: "the same in a 500", status: 500,
			body: `{"error":{"message":"native compaction does not support completion-only media or sampling options"}}`,
			req:  chat, model: "m", notAny: []Class{Unavailable}},
		{name: "a feature lacks completion-style prompts", status: 400,
			body: `{"error":{"message":"Prompt caching does not support completion-style prompts","type":"invalid_request_error"}}`,
			req:  chat, model: "m", notAny: []Class{Unavailable}},
	})
}
