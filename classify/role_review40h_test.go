package classify

import "testing"

// Text the client supplied is no evidence (docs/security.md): a user
// relies on a request it got wrong being answered at once with the
// upstream's 400, not walked through every target of the route. Vocabulary
// round 40 reads, in the Anthropic dialect, a refusal of a message's role
// system as `unknown` (another target serves the role), and read it in the
// client's own text too: an upstream that quotes the request back
// ("Invalid value: '<what you sent>'", echo.go) with the words
// "messages.0.role: unknown variant `system`" in it made any bad request of
// that client `unknown`, so it was sent on to every target. The body is
// constructed (OpenAI's quoting wording in Anthropic's error envelope); the
// servers' own refusals (the corpus) stay `unknown`.
func TestSystemRoleInTheClientsOwnText_review40h(t *testing.T) {
	const said = "messages.0.role: unknown variant `system`, expected `user` or `assistant`"
	req := []byte(`{"model":"m","max_tokens":64,"messages":[{"role":"user","content":[{"type":"text","text":"` + said + `"},{"type":"bogus"}]}]}`)
	body := `{"type":"error","error":{"type":"invalid_request_error","message":"messages.0.content.1.type: Invalid value: '` + said + `'"}}`
	v := Classify(Response{Status: 400, Body: []byte(body), Dialect: Anthropic, Request: req, Model: "m"})
	if v.Class != BadRequest {
		t.Errorf("the client's own words quoted back: %s (%s), want bad_request", v.Class, v.Evidence)
	}
	// The server's own refusal of the role (the corpus' DeepSeek case)
	// still moves on.
	own := `{"error":{"message":"Failed to deserialize the JSON body into the target type: messages[1].role: unknown variant ` + "`system`" + `, expected ` + "`user` or `assistant`" + ` at line 1 column 29","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`
	sys := []byte(`{"model":"m","max_tokens":64,"messages":[{"role":"user","content":"hi"},{"role":"system","content":"be brief"}]}`)
	if v := Classify(Response{Status: 400, Body: []byte(own), Dialect: Anthropic, Request: sys, Model: "m"}); v.Class != Unknown {
		t.Errorf("the server's refusal of role system: %s (%s), want unknown", v.Class, v.Evidence)
	}
}
