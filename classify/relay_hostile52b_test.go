package classify

import (
	"strings"
	"testing"
)

// Hostile 52b (client): the phrase-status rule reads the LAST "4xx Phrase:
// {" in a 5xx's text and, where that last one is the client's own text
// (echoed), skips the whole text — the genuine relayed 4xx before it
// included. An upstream that quotes the client's input inside its 400 (vLLM's
// pydantic errors echo the offending input: vllm-project/vllm#49239) behind a
// relay's 502 (TensorZero's AllVariantsFailed, corpus
// tensorzero-502-all-variants-failed-vllm-400-encoder-cache-size.json) then
// has its class set by the client's words: "note 401 Unauthorized: {…}" in a
// prompt turns the relayed 400 (bad_request: not the endpoint's)
// into the relay's server_error, counted against the endpoint. The same
// answer with neutral client text is read as bad_request (message:loc).
func TestEchoAfterGenuineRelayedStatusSteersNothing(t *testing.T) {
	answer := func(prompt string) (req, body string) {
		req = `{"model":"m","messages":[{"role":"user","content":"` + prompt + `"}]}`
		inner := `{\"error\":{\"message\":\"[{'type': 'string_type', 'loc': ('body', 'messages', 0, 'content'), 'msg': 'Input should be a valid string', 'input': '` + strings.ReplaceAll(prompt, `\"`, `\\\"`) + `'}]\",\"type\":\"BadRequestError\",\"code\":400}}`
		body = `{ "error": "All variants failed with errors: v: All model providers failed to infer with errors: vllm: Error 400 Bad Request from vllm client: ` + inner + `" }`
		return req, body
	}
	nreq, nbody := answer(`see the log`)
	want := Classify(Response{Status: 502, Body: []byte(nbody), Request: []byte(nreq), Dialect: OpenAI})
	if want.Class == ServerError {
		t.Fatalf("control: %s (%s), want the relayed 400 read", want.Class, want.Evidence)
	}
	for _, prompt := range []string{
		`see the log: 401 Unauthorized: {\"x\":1}`,
		`see the log: Error 429 Too Many Requests - {\"x\":1}`,
	} {
		req, body := answer(prompt)
		got := Classify(Response{Status: 502, Body: []byte(body), Request: []byte(req), Dialect: OpenAI})
		if got.Class != want.Class {
			t.Errorf("prompt %q: %s (%s); the same answer with neutral client text: %s (%s): the client's words decided the class", prompt, got.Class, got.Evidence, want.Class, want.Evidence)
		}
	}
}
