package classify

import "testing"

// TestVocabularyRoundThirtyFive: a held-out hunt among providers the corpus
// held little of (SambaNova, xAI's credit states, Cerebras, Llama Stack,
// Fireworks, OpenRouter, relays), each message labelled from its meaning
// before the classifier ran (corpus README, "Vocabulary round
// thirty-five"). The positive failed before its rule; the near-misses
// beside it must not move.
func TestVocabularyRoundThirtyFive(t *testing.T) {
	chat := `{"model":"m","max_tokens":128000,"messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		// OpenRouter (tailcallhq/forgecode#571, printed as the client got
		// it: the envelope wrapped whole in another "error"): a key's limit
		// that still affords 19484 tokens is about this request's size, as
		// "can only afford" is (review 32g): overflow moves on and cools
		// nothing, where quota cooled the account and paged the operator.
		{name: "openrouter token capacity required, wrapped", status: 402,
			body: `{"error":{"error":{"message":"More credits are required to run this request. 128000 token capacity required, 19484 available. To increase, visit https://openrouter.ai/settings/keys and create a key with a higher limit","code":402},"code":402}}`,
			req:  chat, model: "m", want: Overflow},
		// Near-misses (constructed): the same wording affording nothing an
		// ordinary request fits in is the account's; a wrapped envelope is
		// read for every cause.
		{name: "token capacity required, 200 available", status: 402,
			body: `{"error":{"message":"More credits are required to run this request. 16384 token capacity required, 200 available.","code":402}}`,
			req:  chat, model: "m", want: Quota},
		{name: "a wrapped envelope naming a revoked key", status: 401,
			body: `{"error":{"error":{"message":"Your API key has been revoked.","code":401}}}`, req: chat, model: "m", want: Auth},
		{name: "a wrapped envelope naming a retired model", status: 400,
			body: `{"error":{"error":{"message":"No endpoints found for deepseek/deepseek-r1:free.","code":404}}}`, req: chat, model: "deepseek/deepseek-r1:free", want: Unavailable},
	})
}
