package classify

import "testing"

// TestCodeIn2xxReadsAsItsStatus: an error in a 2xx whose numeric code is
// a 4xx (OpenRouter's in-band error) is read as the same answer sent with
// that status, relays included: a model's status SageMaker relays, an
// upstream answer quoted whole. Found by the metamorphic "status in body"
// axis (metamorphic_test.go).
func TestCodeIn2xxReadsAsItsStatus(t *testing.T) {
	const raw = `{\"error\":{\"message\":\"Bad value.\",\"type\":\"invalid_request_error\",\"param\":\"logit_bias\"}}`
	for _, c := range []struct {
		name, body string
		want       Class
	}{
		{"sagemaker", `{"error":{"message":"Received server error (500) from primary and could not load the entire response body.","code":424}}`, ServerError},
		{"quoted answer", `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"` + raw + `"}}}`, BadRequest},
		{"the client's own", `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"` + raw + `"}}}`, Unknown},
	} {
		r := Response{Status: 200, Body: []byte(c.body)}
		if c.name == "the client's own" {
			r.Request = []byte(`{"messages":[{"role":"user","content":"{\"error\":{\"message\":\"Bad value.\",\"type\":\"invalid_request_error\",\"param\":\"logit_bias\"}}"}]}`)
		}
		if v := Classify(r); v.Class != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, v.Class, v.Evidence, c.want)
		}
		// The same answer with its status as the HTTP status agrees.
		r.Status = 424
		if c.name != "sagemaker" {
			r.Status = 400
		}
		if v := Classify(r); v.Class != c.want {
			t.Errorf("%s, sent as %d: %s (%s), want %s", c.name, r.Status, v.Class, v.Evidence, c.want)
		}
	}
}
