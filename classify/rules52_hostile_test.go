package classify

import "testing"

// Hostile 52 (client): vLLM's "must be at least 1, got -N" is read as a
// prompt past the window (round 51: max_tokens' negative budget) whatever
// parameter it names and however the client wrote its number. vLLM's
// SamplingParams._verify_args says the same words of n ("n must be at
// least 1, got -1.", vllm/sampling_params.py), and pydantic's lax mode
// takes "max_tokens": "-5" (a string) as -5. Both are the client's own
// bad input, not a full window: bad_request, not context_length (which
// walks the route to a larger window and tells an OpenAI client, in
// OpenAI's words, that its context overflowed).
func TestNegativeRoomOnlyForTheOutputLimit(t *testing.T) {
	for _, c := range []struct{ name, req, msg string }{
		{"n -1", `{"model":"m","n":-1,"messages":[{"role":"user","content":"hi"}]}`, "n must be at least 1, got -1."},
		{"max_tokens as a string", `{"model":"m","max_tokens":"-5","messages":[{"role":"user","content":"hi"}]}`, "max_tokens must be at least 1, got -5."},
	} {
		body := `{"object":"error","message":"` + c.msg + `","type":"BadRequestError","param":null,"code":400}`
		v := Classify(Response{Status: 400, Body: []byte(body), Request: []byte(c.req)})
		if v.Class == ContextLength {
			t.Errorf("%s: %s (%s): the client's own negative value read as a full window", c.name, v.Class, v.Evidence)
		}
	}
}
