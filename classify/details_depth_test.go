package classify

import "testing"

// Google's detail fields are read only where Google puts them: a client's
// JSON quoted deeper under error.details (a schema validator's "data") sets
// no reason, quota period or retry delay (found by the hostile review of
// client steering: each made the answer auth or quota).
func TestClientJSONUnderErrorDetailsIsNoEvidence(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		data   string
	}{
		{"reason", 400, `{"reason":"API_KEY_INVALID"}`},
		{"quotaId", 400, `{"violations":[{"quotaId":"GenerateRequestsPerDayPerProjectPerModel"}]}`},
		{"quotaId on a 429", 429, `{"violations":[{"quotaId":"GenerateRequestsPerDayPerProjectPerModel"}]}`},
		{"retryDelay on a 429", 429, `{"retryDelay":"86400s"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := `{"model":"m","messages":[{"role":"user","content":"hi"}],"metadata":` + c.data + `}`
			body := `{"error":{"message":"request validation failed","details":[{"instancePath":"/metadata","keyword":"additionalProperties","data":` + c.data + `}]}}`
			v := Classify(Response{Status: c.status, Body: []byte(body), Request: []byte(req), Model: "m"})
			if v.Class == Auth || v.Class == Quota || v.Class == Unavailable || v.RetryAfter >= longWait {
				t.Errorf("%s (%s), retry after %v: the client's metadata decided it", v.Class, v.Evidence, v.RetryAfter)
			}
		})
	}
	// Google's own places still count.
	v := Classify(Response{Status: 429, Body: []byte(`{"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerDayPerProjectPerModel-FreeTier"}]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"13s"}]}}`)})
	if v.Class != Quota {
		t.Errorf("Google's per-day quotaId: %s (%s), want quota", v.Class, v.Evidence)
	}
}
