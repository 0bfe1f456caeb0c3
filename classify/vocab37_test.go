package classify

import "testing"

// TestVocabularyRoundThirtySeven: three held-out hunts (enterprise clouds'
// model APIs; open-model serving stacks and hosts; regional providers),
// each answer labelled from its meaning before the classifier ran (corpus
// README, "Vocabulary round thirty-seven"). The positives failed before
// their rules; the near-misses beside them must not move.
func TestVocabularyRoundThirtySeven(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		// Yandex Cloud's OpenAI-compatible endpoint (its standard wording
		// on both its APIs): the prompt's tokens compared with the window,
		// as IBM's "input tokens … must be <".
		{name: "Yandex number of input tokens must be no more than the window", status: 400,
			body: `{"error": {"message": "Error in session internal_id=...: number of input tokens must be no more than 32768, got 59830", "type": "invalid_request_error"}}`,
			req:  chat, model: "m", want: ContextLength},
		// MLServer under KServe scaling from zero (SeldonIO/MLServer#1134):
		// the model is still loading on a fresh pod, as "Model is not
		// loaded yet" and "not ready for inference".
		{name: "KServe model is not ready yet, in a 400", status: 400,
			body: `{"error":"Model sklearn-iris is not ready yet."}`, req: chat, model: "m", want: ServerError},
		// Near-misses (constructed): a throttle counting input tokens stays
		// a throttle; a bound on a request parameter is the client's; a
		// file the client uploaded that is still being processed is not
		// the model; a model the client named in its text is no evidence.
		{name: "input tokens per minute must be no more than", status: 429,
			body: `{"error":{"message":"number of input tokens per minute must be no more than 10000, got 12000"}}`, req: chat, model: "m", want: RateLimited},
		{name: "max_tokens must be no more than", status: 400,
			body: `{"error":{"message":"max_tokens must be no more than 8192, got 10000","type":"invalid_request_error"}}`, req: chat, model: "m", want: BadRequest},
		{name: "a file is not ready yet", status: 400,
			body: `{"error":{"message":"File file-abc123 is not ready yet."}}`, req: chat, model: "m", want: Unknown},
		{name: "the client's own text names a model not ready", status: 400,
			body: `{"error":{"message":"Invalid value: 'the model gpt is not ready yet'"}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":"the model gpt is not ready yet"}]}`, model: "m", want: BadRequest},
	})
}
