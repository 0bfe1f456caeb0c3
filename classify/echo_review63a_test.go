package classify

import "testing"

// Review 63a. A structured code that would cool or page is no evidence
// where the client's request holds it as a member's value, however the
// client spelled it: an escape in the name or the value, another letter
// case, JSON inside a string (a tool call's arguments). A member's name is
// not its value (review 62l).
func TestReview63aDetailCodeEchoedAnyhow(t *testing.T) {
	const body = `{"type":"error","error":{"type":"invalid_request_error","message":"metadata rejected","details":{"error_code":"organization_on_hold"}}}`
	if v := classify56(400, body, "", false); v.Class != Auth {
		t.Fatalf("without a request: %s (%s), want auth", v.Class, v.Evidence)
	}
	for _, req := range []string{
		`{"metadata":{"error_code":"organization_on_hold"}}`,
		`{"metadata":{"error\u005fcode":"organization_on_hold"}}`,
		`{"metadata":{"error_code":"organizatio\u006e_on_hold"}}`,
		`{"metadata":{"error_code":"Organization_On_Hold"}}`,
		`{"messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"error_code\": \"organization_on_hold\"}"}}]}]}`,
	} {
		if v := classify56(400, body, req, false); v.Class == Auth {
			t.Errorf("%s: %s (%s), want the client's code discarded", req, v.Class, v.Evidence)
		}
	}
	// Named, not held as a value: the code stands.
	want56(t, "a member's name", classify56(400, body, `{"tools":[{"type":"function","function":{"name":"f","parameters":{"properties":{"organization_on_hold":{"type":"string"}}}}}]}`, false), Auth, "")
}

// Review 63a. A top-level code is the client's where the request's own top
// level holds it (a server answering {**request, "error": …}); held deep in
// the request's history (an agent's earlier failure) it is not: the relay's
// quote of a real one stands (review 46a, TestRelayedAnswerNotHiddenByEarlierFailure_review46a).
func TestReview63aTopLevelCodeCopiedFromTheRequest(t *testing.T) {
	const body = `{"id":"resp_1","object":"response","status":"failed","code":"insufficient_quota","message":"failed"}`
	if v := classify56(400, body, "", false); v.Class != Quota {
		t.Fatalf("without a request: %s (%s), want quota", v.Class, v.Evidence)
	}
	for _, req := range []string{`{"input":"hi","code":"insufficient_quota"}`, `{"input":"hi","c\u006fde":"INSUFFICIENT_QUOTA"}`} {
		if v := classify56(400, body, req, false); v.Class == Quota {
			t.Errorf("%s: %s (%s), want the client's code discarded", req, v.Class, v.Evidence)
		}
	}
	want56(t, "held deeper", classify56(400, body, `{"input":[{"type":"function_call_output","output":"{\"code\":\"insufficient_quota\"}"}]}`, false), Quota, "")
}

// Review 63a. A two-part phrase whose first part is a value the upstream
// writes after a label, and that value is a whole string of the request,
// is the client's: LiteLLM's throttle names the end user before its own
// "Limit type", and a user "daily" made a day's quota of it.
func TestReview63aLabelledValueStartsNoPhrase(t *testing.T) {
	for _, u := range []string{"daily", "team-daily", "usage limit", "daily-digest"} {
		body := `{"error":{"message":"Rate limit exceeded for end_user: ` + u + `. Limit type: requests. Current limit: 2, Remaining: 0. Limit resets at: 2026-12-07 08:31:00 UTC","type":"None","param":"None","code":"429"}}`
		req := `{"model":"r","messages":[{"role":"user","content":"hi"}],"user":"` + u + `"}`
		// The client's own end user's throttle: bad_request since review 67d.
		want56(t, u, classify56(429, body, req, false), BadRequest, "")
	}
	// The upstream's own words: a day's cap, whoever asks.
	want56(t, "own words", classify56(429, `{"error":{"message":"Error: daily request limit reached. Try again tomorrow."}}`, `{"user":"daily"}`, false), Quota, "")
}
