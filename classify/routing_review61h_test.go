package classify

import "testing"

// Review 61h (1): carriesRouting decoded the client's routing preferences
// into a struct with encoding/json, which matches member names
// case-insensitively and keeps the last of them. The router (OpenRouter, a JS service) reads
// "provider" exactly. The front's strict pass refuses a case-variant only
// of the members Detour itself reads (readMembers), and "provider" is not
// one, so {"provider":{"only":[…]},"Provider":null} passes the front,
// OpenRouter honours only:[…], and Detour decodes Provider = nil:
// "restricts nothing", and the router's "No allowed providers" reads as
// the endpoint's (unavailable: cooled for unavailable_cooldown, for
// everyone). Before 2f1e48d4 any top-level "provider" made it bad_request.
func TestReview61hRoutingCaseFoldOverride(t *testing.T) {
	none := `{"error":{"message":"No allowed providers are available for the selected model.","code":404}}`
	zdr := `{"error":{"message":"No endpoints found matching your data policy (Zero data retention). Configure: https://openrouter.ai/settings/privacy","code":404}}`
	for name, req := range map[string]string{
		"Provider null after provider.only":     `{"model":"m","messages":[],"provider":{"only":["nonexistent-x"]},"Provider":null}`,
		"PROVIDER {} merged? (control)":         `{"model":"m","messages":[],"provider":{"only":["nonexistent-x"]},"PROVIDER":{}}`,
		"Only:[] after only:[x]":                `{"model":"m","messages":[],"provider":{"only":["nonexistent-x"],"Only":[]}}`,
		"ZDR:false after zdr:true":              `{"model":"m","messages":[],"provider":{"zdr":true,"ZDR":false}}`,
		"Allow_Fallbacks:true after false":      `{"model":"m","messages":[],"provider":{"order":["nonexistent-x"],"allow_fallbacks":false,"Allow_Fallbacks":true}}`,
		"Data_Collection:allow after deny":      `{"model":"m","messages":[],"provider":{"data_collection":"deny","Data_Collection":"allow"}}`,
		"providerOptions gateway.only, Gateway": `{"model":"m","messages":[],"providerOptions":{"gateway":{"only":["nonexistent-x"]},"Gateway":null}}`,
		"provider_options + ProviderOptions":    `{"model":"m","messages":[],"providerOptions":{"gateway":{"only":["nonexistent-x"]}},"ProviderOptions":null}`,
	} {
		for bname, body := range map[string]string{"no allowed providers": none, "data policy": zdr} {
			v := classify56(404, body, req, false)
			if v.Class != BadRequest {
				t.Errorf("%s / %s: the router honours the client's exact-named preference, Detour read a case-variant last: %s (%s), want bad_request", name, bname, v.Class, v.Evidence)
			}
		}
	}
}

// Control: the same requests without the case-variant are the client's.
func TestReview61hRoutingControls(t *testing.T) {
	none := `{"error":{"message":"No allowed providers are available for the selected model.","code":404}}`
	for _, req := range []string{
		`{"model":"m","messages":[],"provider":{"only":["nonexistent-x"]}}`,
		`{"model":"m","messages":[],"provider":{"zdr":true}}`,
		`{"model":"m","messages":[],"providerOptions":{"gateway":{"only":["x"]}}}`,
	} {
		if v := classify56(404, none, req, false); v.Class != BadRequest {
			t.Errorf("control %s: %s (%s)", req, v.Class, v.Evidence)
		}
	}
}

// Review 61h (2): the header values joined into Response.Request. Where no
// sent body follows them, the last line is a forwarded header value
// (anthropic-beta), which the client writes: a JSON object there replaces
// the body's preferences. Today dispatch always appends the sent body of a
// native call (every adapter builds its request on a bytes reader, so
// GetBody never fails); this is the classifier's contract only.
func TestReview61hRoutingHeaderLastLine(t *testing.T) {
	none := `{"error":{"message":"No allowed providers are available for the selected model.","code":404}}`
	body := `{"model":"m","messages":[],"provider":{"only":["nonexistent-x"]}}`
	// client body, then header values only (no sent body).
	req := body + "\n2023-06-01\n{}"
	v := classify56(404, none, req, false)
	t.Logf("header-last evidence: %s (%s)", v.Class, v.Evidence)
	if v.Class != BadRequest {
		t.Errorf("a forwarded header value {} as the last line overrode the body's provider.only: %s (%s)", v.Class, v.Evidence)
	}
	// With the sent body after the headers (what dispatch does): the sent
	// body decides.
	req2 := body + "\n{\"provider\":{\"only\":[\"x\"]}}\n" + body
	if v := classify56(404, none, req2, false); v.Class != BadRequest {
		t.Errorf("sent body last, carrying only: %s (%s)", v.Class, v.Evidence)
	}
}

// Review 61h (3): a header value shaped like JSON that restricts, with
// the client's body restricting nothing and a translation that keeps no
// "provider": the sent body (last) decides, so the header cannot make a
// real account-level answer its own bad_request.
func TestReview61hRoutingHeaderCannotClaim(t *testing.T) {
	none := `{"error":{"message":"No allowed providers are available for the selected model.","code":404}}`
	body := `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`
	req := body + "\n{\"provider\":{\"only\":[\"x\"]}}\n" + `{"messages":[{"role":"user","content":"hi"}]}`
	if v := classify56(404, none, req, false); v.Class == BadRequest {
		t.Errorf("a header value claimed the router's account-level answer: %s (%s)", v.Class, v.Evidence)
	}
}
