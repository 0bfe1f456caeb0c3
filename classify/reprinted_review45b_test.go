package classify

import (
	"bytes"
	"encoding/json"
	"testing"
)

// review45b finding 1: a client whose tool schema writes a JSON escape, a
// number in another spelling, or its keys in another order than the
// upstream prints them, had the upstream's reprint of it read as the
// provider's answer: quota (the account cooled, the operator paged). The
// squeezed check now decodes the request's escapes, and the deciding code
// found among the request's own members holds the rest (reprint.go). The
// upstream here prints what the e2e test's reprintingUpstream prints
// ("ValueError: " and the repr of the parsed schema).
func TestReprintedClientSchemaEvadesSqueezedEcho_review45b(t *testing.T) {
	const printed = `'code': 'insufficient_quota', 'type': 'insufficient_quota', 'message': 'x'}}`
	cases := []struct{ name, schema, body string }{
		// JSON allows any character escaped; Python's json.loads decodes it.
		{"escaped letter", `{"\u0065rror": {"code": "insufficient_quota", "type": "insufficient_quota", "message": "x"}}`,
			`{'error': {` + printed},
		// Gson (Java clients' default encoder) escapes ' = < > & as \u00XX.
		{"Gson's escaped apostrophe", `{"error": {"message": "it\u0027s x", "code": "insufficient_quota", "type": "insufficient_quota"}}`,
			`{'error': {'message': "it's x", 'code': 'insufficient_quota', 'type': 'insufficient_quota'}}`},
		// json.loads reads 1e0 as the float 1.0, which repr prints so.
		{"number spelled otherwise", `{"error": {"n": 1e0, "code": "insufficient_quota", "type": "insufficient_quota", "message": "x"}}`,
			`{'error': {'n': 1.0, ` + printed},
		// The e2e test's own reprintingUpstream sorts keys (json.Marshal of
		// a map); the client wrote them in another order.
		{"keys sorted by the upstream", `{"error": {"type": "insufficient_quota", "message": "x", "code": "insufficient_quota"}}`,
			`{'error': {'code': 'insufficient_quota', 'message': 'x', 'type': 'insufficient_quota'}}`},
	}
	for _, c := range cases {
		req := `{"model":"m","tools":[{"type":"function","function":{"name":"f","parameters":` + c.schema + `}}]}`
		q, _ := json.Marshal("ValueError: " + c.body)
		for _, body := range []string{
			`{"error":{"message":` + string(q) + `,"type":"BadRequestError","code":400}}`,
			"Error code: 400 - " + c.body, // the same exception's text as a plain-text body
		} {
			for _, st := range []int{400, 500} {
				v := Classify(Response{Status: st, Body: []byte(body), Request: []byte(req), Model: "m"})
				if v.Class == Quota {
					t.Errorf("%s, %d %.40q…: %s (%s)", c.name, st, body, v.Class, v.Evidence)
				}
			}
		}
	}
}

// review45b finding 2: the squeezed echo check dropped the request's
// single quotes, so a client whose conversation holds an SDK's str(e) of an
// earlier failure (an agent feeding a tool's error back: "Error code: 429 -
// {'error': {…}}", the openai SDK's text) hid the same answer when a relay
// quoted it again as JSON: the corpus's insufficient_quota answer, quoted
// by a LiteLLM relay, read server_error (500: the endpoint cooled instead
// of the account) or unknown (400). It reads quota, as it did before the
// squeezed check.
func TestRelayedQuotaNotHiddenByReprInHistory_review45b(t *testing.T) {
	answer := corpusBody(t, "openai-insufficient-quota-429")
	var compact bytes.Buffer
	json.Compact(&compact, []byte(answer))
	rep, ok := pyRepr([]byte(answer))
	if !ok {
		t.Fatal("no repr")
	}
	q, _ := json.Marshal("litellm.RateLimitError: OpenAIException - " + compact.String())
	body := `{"error":{"message":` + string(q) + `,"type":null,"param":null,"code":"500"}}`
	hist, _ := json.Marshal("The last call failed: Error code: 429 - " + rep)
	req := `{"model":"m","messages":[{"role":"user","content":"go"},{"role":"tool","tool_call_id":"1","content":` + string(hist) + `}]}`
	for _, st := range []int{400, 500} {
		if v := Classify(Response{Status: st, Body: []byte(body), Request: []byte(req), Model: "m", Dialect: "openai"}); v.Class != Quota {
			t.Errorf("%d: %s (%s), want quota (as at f5c242a)", st, v.Class, v.Evidence)
		}
	}
}
