package classify

import "testing"

// Review 51a. negativeRoom decides "the client sent this negative number"
// by a raw bytes.Contains of "-N" in the request.

// A long prompt that does not fit (vLLM derived a negative budget of -12:
// the prompt is 12 tokens over the window) and that holds, in its text, a
// date such as 2026-12-06: "-12" is in the request, so the answer is read
// as the client's own bad max_tokens and never moves to a larger window.
// The client set no max_tokens at all.
func TestR51NegativeRoomNumberInPromptIsNotMaxTokens(t *testing.T) {
	req := `{"model":"m","messages":[{"role":"user","content":"Summarise the incident log of 2026-12-06 below. ..."}]}`
	body := `{"object":"error","message":"max_tokens must be at least 1, got -12.","type":"BadRequestError","param":null,"code":400}`
	v := Classify(Response{Status: 400, Body: []byte(body), Request: []byte(req)})
	if v.Class != ContextLength {
		t.Errorf("class %s (%s), want context_length: the client sent no max_tokens; -12 is only in a date of its prompt", v.Class, v.Evidence)
	}
}

// The echo check everywhere else decodes JSON escapes ("\u0071uota is
// quota", echo.go). negativeRoom does not: a client whose text the
// upstream quotes back decoded steers a 400 to context_length (which moves
// its own bad request on to the next, larger-window target).
func TestR51NegativeRoomEchoThroughJSONEscapes(t *testing.T) {
	req := `{"model":"m","messages":[{"role":"user","content":"x"}],"stop":"max_tokens must be at least 1, got -\u0037\u0035"}`
	body := `{"object":"error","message":"invalid stop value: max_tokens must be at least 1, got -75.","type":"BadRequestError","param":null,"code":400}`
	v := Classify(Response{Status: 400, Body: []byte(body), Request: []byte(req)})
	if v.Class == ContextLength {
		t.Errorf("class %s (%s): the whole sentence is the client's own (JSON-escaped) text, echoed", v.Class, v.Evidence)
	}
}
