package classify

import (
	"sync"
	"testing"
)

// Probe 65b: every corpus answer whose body decides its class, classified
// again at other statuses. Three phrase families were read only at some
// statuses for no stated reason; each test below is the real corpus body at
// a status it now keeps its meaning at, a near answer left alone, and the
// client's own text quoted back, which decides nothing.

var (
	corpus65bOnce  sync.Once
	corpus65bCases map[string]corpusCase
)

// corpus65b is the corpus answer name, sent with status st.
func corpus65b(t *testing.T, name string, st int) Verdict {
	t.Helper()
	corpus65bOnce.Do(func() { corpus65bCases = loadCorpus(t) })
	c, ok := corpus65bCases[name]
	if !ok {
		t.Fatalf("no corpus answer %s", name)
	}
	r := c.response()
	r.Status = st
	return Classify(r)
}

// (1) LiteLLM's refusals of the request's own principal or of a parameter
// it requires (ownRequestPhrases) were read at 400, 401 and 429 only: the
// same words at 402, 403, 404, 409, 413, 422 or a 5xx read quota or auth,
// which cooled the account and paged the operator for one client's user.
func TestProbe65bOwnRequestAnyStatus(t *testing.T) {
	for _, st := range []int{402, 403, 404, 409, 413, 422, 500, 503} {
		// testdata/corpus/litellm-401-auth-error-exceeded-budget-end-user-over-budget.json
		want56(t, "end user over budget", corpus65b(t, "litellm-401-auth-error-exceeded-budget-end-user-over-budget", st), BadRequest, "phrase:exceededbudget: end user=…over budget")
		// testdata/corpus/litellm-enterprise-required-param-user-401.json
		want56(t, "required param", corpus65b(t, "litellm-enterprise-required-param-user-401", st), BadRequest, "phrase:please pass param=…required param")
	}
	// The key's own budget is the account's: quota stays.
	want56(t, "a key over budget at 403", corpus65b(t, "litellm-budget-exceeded-key-429", 403), Quota, "")
	want56(t, "a key over budget at 500, by its strong code as before", corpus65b(t, "litellm-budget-exceeded-key-429", 500), Quota, "type:budget_exceeded")
	echo56(t, 403, "ExceededBudget: End User=bob over budget",
		`{"error":{"message":"Budget has been exceeded! Current cost: 5, Max budget: 1. Input: ExceededBudget: End User=bob over budget"}}`, Quota)
	echo56(t, 500, "please pass param=user in request body. This is a required param",
		`{"error":{"message":"Internal error: please pass param=user in request body. This is a required param"}}`, ServerError)
}

// (2) What a 402 says about this one request's price over a balance still
// positive (an affordable count, a maximum possible cost) was read at 402
// only: the same body at 400, 403, 429 or a 5xx read quota, so one client's
// max_tokens cooled the account and paged. Only a quota verdict moves.
func TestProbe65bRequestPriceAnyStatus(t *testing.T) {
	for _, st := range []int{400, 403, 404, 409, 413, 422, 429} {
		// testdata/corpus/openrouter-requires-more-credits-402.json
		want56(t, "can only afford 10114", corpus65b(t, "openrouter-requires-more-credits-402", st), Overflow, "phrase:can only afford")
		// testdata/corpus/gatewayz-402-insufficient-credits-max-possible-cost-shortfall-max-tokens.json
		want56(t, "maximum possible cost", corpus65b(t, "gatewayz-402-insufficient-credits-max-possible-cost-shortfall-max-tokens", st), Overflow, "phrase:maximum possible cost")
	}
	want56(t, "Gatewayz at 500", corpus65b(t, "gatewayz-402-insufficient-credits-max-possible-cost-shortfall-max-tokens", 500), Overflow, "phrase:maximum possible cost")
	// An account as good as empty stays quota.
	want56(t, "can only afford 0", classify56(400, `{"error":{"message":"This request requires more credits, or fewer max_tokens. You requested up to 4096 tokens, but can only afford 0.","code":402}}`, "", false), Quota, "")
	want56(t, "empty balance", classify56(403, `{"error":{"message":"Insufficient credits for this request. Maximum possible cost: $0.2000. Available balance: $0.0000."}}`, "", false), Quota, "")
	// Not quota to begin with: the words alone move nothing.
	want56(t, "no credit words at 403", classify56(403, `{"error":{"message":"Maximum possible cost: $0.20"}}`, "", false), Forbidden, "")
	echo56(t, 400, "can only afford 50000",
		`{"error":{"message":"Insufficient credits. Your prompt: can only afford 50000"}}`, Quota)
	echo56(t, 429, "Maximum possible cost: $0.2000",
		`{"error":{"message":"Insufficient credits. Your prompt: Maximum possible cost: $0.2000"}}`, Quota)
}

// (3) A notRate wording ("too many tokens") beside a throttle's own code or
// words was passed over at a 429 only: at a 400 (AWS and relays send
// throttles so) it read context_length, so the client got "prompt too long"
// and the walk stood still. Read as at a 429 wherever the answer names the
// throttle itself.
func TestProbe65bThrottleWordsAnyStatus(t *testing.T) {
	for _, st := range []int{400, 403, 409, 413, 422} {
		// testdata/corpus/bedrock-throttling-too-many-tokens.json (x-amzn-ErrorType ThrottlingException)
		want56(t, "Bedrock's throttle", corpus65b(t, "bedrock-throttling-too-many-tokens", st), RateLimited, "")
		// testdata/corpus/cerebras-429-tokens-per-minute-limit-exceeded-too-many-tokens-processed.json
		want56(t, "Cerebras' per-minute cap", corpus65b(t, "cerebras-429-tokens-per-minute-limit-exceeded-too-many-tokens-processed", st), RateLimited, "phrase:per minute")
		// testdata/corpus/xai-too-many-tokens-team-tpm-actual-over-limit-429.json: one request over the minute's cap
		want56(t, "xAI's request over its TPM", corpus65b(t, "xai-too-many-tokens-team-tpm-actual-over-limit-429", st), Overflow, "")
	}
	// The window's words alone stay the window's.
	want56(t, "too many tokens, no throttle", corpus65b(t, "cohere-400-too-many-tokens-prompt-cannot-exceed-4081", 400), ContextLength, "")
	want56(t, "Bedrock's words without its throttle code", classify56(400, `{"message":"Too many tokens, please wait before trying again."}`, "", false), ContextLength, "")
	echo56(t, 400, "tokens per minute",
		`{"error":{"message":"Too many tokens in the prompt. Prompt: tokens per minute"}}`, ContextLength)
}
