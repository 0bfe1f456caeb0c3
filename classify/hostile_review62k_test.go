package classify

import (
	"strings"
	"testing"
	"time"
)

// Review 62k: a hostile upstream's answer through the new reads: huge
// values, deep nesting, invalid UTF-8, escaped keys. No panic, no
// runaway time, and the class of the status where the new members say nothing.
func TestReview62kHostileNewReads(t *testing.T) {
	big := strings.Repeat("Exception", 1<<17)
	deep := strings.Repeat(`{"error":`, 20000) + `1` + strings.Repeat(`}`, 20000)
	bodies := []string{
		`{"type":"error","error":{"type":"` + big + `","message":"x","details":{"error_code":"` + big + `"}}}`,
		`{"error":{"code":503,"metadata":{"error_type":"` + strings.Repeat("a", 1<<20) + `"},"availability":{"code":"\xff\xfe"}}}`,
		`{"error":{"details":{"error_code":"thread_not_found\u0000"},"type":"x"}}`,
		`{"error":{"details":{"error\u005fcode":"organization_on_hold"},"type":"x"}}`,
		deep,
		`{"error":{"details":` + strings.Repeat(`[`, 5000) + `{"error_code":"organization_on_hold"}` + strings.Repeat(`]`, 5000) + `}}`,
		`{"error":{"message":"End User=` + strings.Repeat("x", 1<<20) + ` over budget"}}`,
		`{"error":{"message":"` + strings.Repeat("monthly limit monthly ", 1<<15) + `"}}`,
	}
	req := []byte(`{"model":"m","user":"` + strings.Repeat("monthly ", 1<<14) + `","messages":[{"role":"user","content":"` + strings.Repeat("over budget ", 1<<14) + `"}]}`)
	for i, b := range bodies {
		for _, st := range []int{200, 400, 401, 429, 503} {
			start := time.Now()
			v := Classify(Response{Status: st, Body: []byte(b), Request: req, Model: "m"})
			// A failure guard, not a measurement: each takes tens of
			// milliseconds; 200 ms failed a CI run beside two helpers.
			if el := time.Since(start); el > 5*time.Second {
				t.Errorf("body %d status %d: %v", i, st, el)
			}
			if i == 3 || i == 5 {
				t.Logf("body %d status %d: %s (%s)", i, st, v.Class, v.Evidence)
			}
		}
	}
}

// A Responses server that spreads the client's request into its response
// object (some compatible servers build it as {**request, id, status,
// output, error}): a client's top-level "error_type" member comes back as
// response.error_type, read as OpenRouter's, no echo check for codes.
func TestReview62kResponseErrorTypeFromClient(t *testing.T) {
	req := `{"model":"m","input":"hi","error_type":"authentication"}`
	body := `{"type":"response.failed","response":{"id":"r","model":"m","input":"hi","error_type":"authentication","status":"failed","error":{"code":"server_error","message":"The server had an error processing your request."}}}`
	v := classify56(200, body, req, true)
	t.Logf("-> %s (%s)", v.Class, v.Evidence)
	if v.Class == Auth {
		t.Errorf("the client's own member paged the operator: %s (%s)", v.Class, v.Evidence)
	}
}
