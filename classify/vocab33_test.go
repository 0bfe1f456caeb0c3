package classify

import "testing"

// TestVocabularyRoundThirtyThree: three held-out hunts (thinking and tool
// state carried across turns; strict OpenAI-compatible servers; access
// gates of 2026), each message labelled from its meaning before the
// classifier ran (corpus README, "Vocabulary round thirty-three"). Each
// positive failed before its rule; the near-misses beside them must not
// move.
func TestVocabularyRoundThirtyThree(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		// Gemini (google-gemini/gemini-cli#13467; openclaw/openclaw#23771
		// through OpenRouter; massgen/MassGen#665 as OpenRouter's
		// metadata.raw): a thought signature the conversation carries back
		// that the model cannot read is the client's history, like a
		// missing one.
		{name: "gemini corrupted thought signature", status: 400,
			body: "{\n  \"error\": {\n    \"code\": 400,\n    \"message\": \"Corrupted thought signature.\",\n    \"status\": \"INVALID_ARGUMENT\"\n  }\n}\n",
			req:  chat, model: "gemini-3-pro-preview", want: BadRequest},
		{name: "openrouter relaying a corrupted thought signature", status: 400,
			body: `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\n  \"error\": {\n    \"code\": 400,\n    \"message\": \"Corrupted thought signature.\",\n    \"status\": \"INVALID_ARGUMENT\"\n  }\n}\n","provider_name":"Google AI Studio"}}}`,
			req:  chat, model: "google/gemini-3-flash-preview", want: BadRequest},

		// Crusoe (vybestack/llxprt-code#2917): a strict server refuses a
		// member it does not take, as a 403 whose body is a bare list of
		// sentences. The request's member, not the account's access: as
		// forbidden one client's parameter would cool the endpoint.
		{name: "crusoe request blocked: parameter not allowed", status: 403,
			body: `{"errors":["Request blocked: parameter 'reasoning' is not allowed"]}`,
			req:  `{"model":"m","messages":[{"role":"user","content":"hi"}],"reasoning":{"effort":"high"}}`, model: "m", want: BadRequest},
		{name: "a parameter not allowed, in OpenAI's envelope", status: 400,
			body: `{"error":{"message":"parameter 'thinking' is not allowed","type":"invalid_request_error"}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":"hi"}],"thinking":{"type":"enabled"}}`, model: "m", want: BadRequest},
		// Near-misses (constructed): a bare list of sentences is read for
		// every cause, not only bad input; a blocked request that names no
		// parameter stays the 403's.
		{name: "an errors list naming a suspended account", status: 403,
			body: `{"errors":["Your account has been suspended."]}`, req: chat, model: "m", want: Auth},
		{name: "an errors list naming a spent balance", status: 400,
			body: `{"errors":["Insufficient balance. Please top up your account."]}`, req: chat, model: "m", want: Quota},
		{name: "request blocked without a parameter stays forbidden", status: 403,
			body: `{"errors":["Request blocked"]}`, req: chat, model: "m", want: Forbidden},
	})
	// A completion that also carries such a list is still an answer: the
	// list is read as text, never taken for an error by itself.
	ok := `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"errors":["Your account has been suspended."]}`
	if v := Classify(Response{Status: 200, Body: []byte(ok), Request: []byte(chat), Model: "m"}); v.Failed {
		t.Errorf("a 2xx completion beside an errors list: %s (%s), want an answer", v.Class, v.Evidence)
	}
}
