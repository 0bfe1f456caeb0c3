package classify

import "testing"

// Review 51a, after fbbde1d: negativeMember takes any ": -N" in the
// request as the client's own member. A prompt that holds JSON (code, a
// config, a log — what long prompts are made of) has such members in its
// text: "max_retries": -1 is everywhere, and a prompt one token over the
// window gets vLLM's "got -1". The client set no max_tokens; the number
// is in its message text, inside a string, not a member of the request.
func TestR51NegativeRoomJSONInsidePromptText(t *testing.T) {
	req := `{"model":"m","messages":[{"role":"user","content":"Review this config:\n{\"max_retries\": -1, \"timeout\": 30}\n..."}]}`
	body := `{"object":"error","message":"max_tokens must be at least 1, got -1.","type":"BadRequestError","param":null,"code":400}`
	v := Classify(Response{Status: 400, Body: []byte(body), Request: []byte(req)})
	if v.Class != ContextLength {
		t.Errorf("class %s (%s), want context_length: no max_tokens was sent; \"max_retries\": -1 is text inside the user's message", v.Class, v.Evidence)
	}
}
