package classify

import "testing"

// Review 68l: a fast-mode request is the client's JSON as it wrote it, and
// the body Detour sends Anthropic at /v1/messages is that JSON with only
// its model replaced (provider.Request.WithModel). Anthropic reads
// "speed" : "fast" (a blank before the colon, a tab or a line break after
// it, an escape in the value or the name) as fast mode; the byte match of
// asksFastMode did not, so one client's fast-mode request at an
// organization granted none read quota: the shared account cooled for
// every client and the operator was paged, what zeroCap was written to
// stop (hunt 68h).
func TestReview68lFastModeAskedAsJSONAllows(t *testing.T) {
	body := `{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed your rate limit of 0 fast mode input tokens per minute (org: ..., model: claude-opus-5). ..."}}`
	for _, speed := range []string{
		`"speed" : "fast"`,
		`"speed":	"fast"`,
		"\"speed\":\n  \"fast\"",
		`"speed":"\u0066ast"`,
		`"spe\u0065d":"fast"`,
		`"speed" :"fast"`,
	} {
		req := `{"model":"claude-opus-5","max_tokens":1024,` + speed + `,"messages":[{"role":"user","content":"hi"}]}`
		if v := Classify(Response{Status: 429, Body: []byte(body), Request: []byte(req)}); v.Class != Unknown {
			t.Errorf("%s: %s (%s), want unknown", speed, v.Class, v.Evidence)
		}
	}
	// Not fast mode: "speed" inside a message's text, or under metadata,
	// asks for nothing; the account's zero allowance stays quota.
	for _, req := range []string{
		`{"model":"claude-opus-5","max_tokens":1024,"messages":[{"role":"user","content":"set \"speed\":\"fast\" in the config"}]}`,
		`{"model":"claude-opus-5","max_tokens":1024,"metadata":{"user_id":"u"},"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"tools":[{"name":"t","input_schema":{"type":"object","properties":{"speed":{"type":"string","default":"slow"}}}}]}`,
	} {
		if v := Classify(Response{Status: 429, Body: []byte(body), Request: []byte(req)}); v.Class != Quota {
			t.Errorf("%s: %s (%s), want quota", req, v.Class, v.Evidence)
		}
	}
}

// Review 68l: the words the client wrote are "limit of 0 " and the
// upstream's own template supplies "… per minute" within the 80 bytes
// zeroCap reads: the echo check looked for the whole span, which no
// request holds.
func TestReview68lZeroCapSplitEcho(t *testing.T) {
	req := `{"model":"m","user":"my limit of 0 ","messages":[{"role":"user","content":"hi"}]}`
	body := `{"error":{"type":"rate_limit_error","message":"Rate limit reached for user 'my limit of 0 ' on tokens per minute. Try again in 2s."}}`
	if v := Classify(Response{Status: 429, Body: []byte(body), Request: []byte(req)}); v.Class == Quota {
		t.Errorf("split echo: %s (%s), want no quota", v.Class, v.Evidence)
	}
}
