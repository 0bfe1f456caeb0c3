package dispatch

import "time"

// Counts no answer can have (docs/config.md, "Usage and cost", "Counts
// past what an answer can have"). An upstream's usage is what Detour
// bills a client key and reports as cost; one broken or lying count (a
// self-hosted server's unsigned -1, 4294967295 completion tokens) spent a
// key's whole month in one answer (review 62b). A count past what an
// answer to the request could have used is no count: Detour's own
// estimate stands in for it, and the record says so (Usage.Capped).
//
// The bounds read nothing a client chooses to mean a limit: a request's
// max_tokens does not bound its bill, since a server may read another
// member the client also sent (llama.cpp's n_predict: review 62e, one
// token billed of 4,096 written). They read the request's size and the
// answer's: what the model was given and what it wrote.

const (
	// promptBeyondBody is how many prompt tokens an answer may count
	// beyond its request's own bytes (one token is at least one byte of
	// text): media and documents fetched by URL or file id, a stored
	// conversation, a server tool's results, each read again on every
	// turn of a server tool's loop. 2^24, past the longest context
	// windows served (ten million tokens) read more than once.
	promptBeyondBody = 1 << 24
	// bodyReads is how many times a request's bytes may be counted in
	// one answer's prompt: a server tool's loop (Anthropic's web search
	// and fetch, OpenAI's hosted tools) reads the conversation again on
	// each turn and counts it each time.
	bodyReads = 16
	// reasoningRoom is how much output one choice may count beyond
	// the bytes the upstream sent (one written token is at least one byte):
	// reasoning or thinking the answer does not show (OpenAI's reasoning
	// models, Claude's thinking with its display omitted or summarised).
	// 2^18, twice the largest thinking budgets (128,000 tokens); Claude's
	// interleaved thinking across a server tool's loop spans the whole
	// turn, and a loop of many turns could pass it (review 62h: no such
	// count is on record).
	reasoningRoom = 1 << 18
	// maxChoices bounds a request's n (OpenAI allows at most 128).
	maxChoices = 128
)

// pastCeilings reports whether prompt and output tokens counted for an
// answer of answerBytes bytes to body pass what it can have used:
// bodyReads times the body's bytes and promptBeyondBody; the answer's
// bytes and reasoningRoom for each of the n choices body asks for. No
// body bounds nothing. The body's n is read only for an output past one
// choice's bound (the common count is far inside it): no walk of the
// body on every answer.
func pastCeilings(body []byte, answerBytes int64, prompt, output int) (promptPast, outputPast bool) {
	if len(body) == 0 {
		return false, false
	}
	promptPast = prompt > min(promptBeyondBody+bodyReads*len(body), maxCount)
	if output > outputCeiling(answerBytes, 1) {
		outputPast = output > outputCeiling(answerBytes, min(choicesAsked(body), maxChoices)) // n read as the continuation reads it (continue.go)
	}
	return promptPast, outputPast
}

// outputCeiling is the most output an answer of answerBytes bytes in
// choices choices can have counted.
func outputCeiling(answerBytes int64, choices int) int {
	return min(int(min(answerBytes, maxCount))+choices*reasoningRoom, maxCount)
}

// noteCapped logs that an attempt of e's counted past what its answer
// could have used, once a minute a provider: a broken server does it on
// every answer, and each record says so already (Usage.Capped).
func (w *walk) noteCapped(e *endpointRT) {
	now := time.Now().Unix()
	last := e.prov.cappedAt.Load()
	if now-last < 60 || !e.prov.cappedAt.CompareAndSwap(last, now) {
		return
	}
	w.d.log.Warn("upstream usage past what its answer could have used: Detour's estimate stands in (one line a minute a provider; each record says capped)",
		"target", e.key.Target, "provider", e.key.Provider, "decision", w.rec.ID)
}
