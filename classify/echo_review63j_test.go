package classify

import (
	"encoding/json"
	"testing"
)

// spread63j is a Responses-compatible server's failed answer built as
// {**request, id, status, object, output, error} (review 63a's premise).
func spread63j(req string, errObj map[string]any) string {
	var m map[string]any
	_ = json.Unmarshal([]byte(req), &m)
	m["id"], m["status"], m["object"] = "resp_1", "failed", "response"
	m["error"] = errObj
	m["output"] = []any{}
	b, _ := json.Marshal(m)
	return string(b)
}

// Review 63j: the top-level reads other than "code" and "type" — error_code,
// errorCode, reason (capitals), errors[].code, detail.code — are top codes
// too (scalar.go); tryTop first asked the request's top level only for a
// member named "code" or "type", and now asks for the member the code was
// read in (facts.topCodeIn).
func TestReview63jTopCodeUnderOtherNames(t *testing.T) {
	errObj := map[string]any{"code": "server_error", "message": "The server had an error processing your request."}
	ctl := classify56(500, spread63j(`{"model":"m","input":"hi"}`, errObj), `{"model":"m","input":"hi"}`, false)
	t.Logf("control (nothing of the client's): %s (%s)", ctl.Class, ctl.Evidence)
	for _, member := range []string{
		`"code":"insufficient_quota"`,
		`"error_code":"insufficient_quota"`,
		`"errorCode":"insufficient_quota"`,
		`"reason":"INSUFFICIENT_QUOTA"`,
		`"reason":"INVALID_API_KEY"`,
		`"errors":[{"code":"insufficient_quota"}]`,
		`"detail":{"code":"insufficient_quota"}`,
		`"error_code":"invalid_api_key"`,
		`"errorCode":"organization_on_hold"`,
	} {
		req := `{"model":"m","input":"hi",` + member + `}`
		for _, st := range []int{200, 500} {
			v := classify56(st, spread63j(req, errObj), req, false)
			bad := v.Class != ctl.Class
			t.Logf("%-45s status %d: %s (%s) changed=%v", member, st, v.Class, v.Evidence, bad)
			if bad && codeEchoGuarded(v.Class) {
				t.Errorf("%s (status %d): the client's top-level member decided %s (%s)", member, st, v.Class, v.Evidence)
			}
		}
	}
}
