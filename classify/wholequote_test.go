package classify

import "testing"

// TestMessageQuotedWhole: a relay that encodes the message string twice
// sends it quoted whole ("\"Invalid token\"", as SiliconFlow's corpus
// answer shows); its words open after the quote: a relayed status, a field
// path, the names a not-found answer gives. Found by the metamorphic axis
// that quotes a corpus message whole.
func TestMessageQuotedWhole(t *testing.T) {
	const id = "rs_037db69c59ceb65f0169c774068f0c81918788deadface5709"
	for _, c := range []struct {
		name, body, req string
		status          int
		want            Class
	}{
		{"node sdk status", `{"error":{"message":"\"400 Unable to access model gpt-4o-mini.\""}}`, "", 500, Unavailable},
		{"sdk relayed status", `{"error":{"message":"\"Error code: 429 - {'error': {'message': 'Quota exceeded for aiplatform.googleapis.com/online_prediction_tokens_per_minute_per_base_model'}}\""}}`, "", 500, RateLimited},
		{"json path", `{"error":{"message":"\"'$.input' is invalid.\""}}`, "", 400, BadRequest},
		{"plain text", `"'$.input' is invalid."`, "", 400, BadRequest},
		{"client's item", `{"error":{"message":"\"Item with id '` + id + `' not found.\""}}`, `{"input":[{"id":"` + id + `"}]}`, 404, BadRequest},
		// Quoted in part only: a quoted name, no quoted message.
		{"a name first", `{"error":{"message":"\"400 Unable\" is not a model"}}`, "", 500, ServerError},
	} {
		r := Response{Status: c.status, Body: []byte(c.body), Model: "gpt-5"}
		if c.req != "" {
			r.Request = []byte(c.req)
		}
		if v := Classify(r); v.Class != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, v.Class, v.Evidence, c.want)
		}
	}

	for in, want := range map[string]int{`\"a b\"`: 2, `"a b"`: 1, "\"a b\" \n": 1, `\"a\" b`: 0, `"a \"`: 0, `\"\"`: 0, `"`: 0, ``: 0} {
		if got := wholeQuoted([]byte(in)); got != want {
			t.Errorf("wholeQuoted(%q) = %d, want %d", in, got, want)
		}
	}
}
