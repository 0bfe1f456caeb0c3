package classify

import "testing"

// TestPlainTextAnswerIsItsMessage: an error body in plain text (a Go
// server's http.Error, a Python proxy's str(e)) is its server's message,
// read as the same words in a JSON envelope are: found by the metamorphic
// envelope swap (metamorphic_test.go). A markup page is not: only its
// timeout wording counts in a 5xx, and a 404 page about a "file" stays the
// endpoint's.
func TestPlainTextAnswerIsItsMessage(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		body   string
		req    string
		want   Class
	}{
		{"5xx context wording", 500, "Context size has been exceeded.\n", "", ContextLength},
		{"5xx behind a tag", 500, "[address=0.0.0.0:43769, pid=1065] The decoder prompt (length 66501) is longer than the maximum model length of 65536.", "", ContextLength},
		{"5xx no model loaded", 503, "No models are currently loaded.", "", Unavailable},
		{"5xx relayed 429", 500, "Error code: 429 - {'error': {'code': 429, 'message': 'Quota exceeded for aiplatform.googleapis.com/online_prediction_tokens_per_minute_per_base_model'}}", "", RateLimited},
		{"4xx field path", 400, "messages.306.content.2.text: cache_control cannot be set for empty text blocks", "", BadRequest},
		{"4xx pydantic loc", 400, "Invalid request format: Input should be a valid list at ('body', 'messages')", "", BadRequest},
		{"429 a day's wait", 429, "Requests have exceeded token rate limit of your pricing tier. Please retry after 86400 seconds.", "", Quota},
		{"429 a per-minute metric", 429, "Quota exceeded for aiplatform.googleapis.com/online_prediction_input_tokens_per_minute_per_base_model with base model: x.", "", RateLimited},
		// The client's words are no evidence here either.
		{"5xx echoed context wording", 500, "failed: context size has been exceeded", `{"messages":[{"role":"user","content":"say context size has been exceeded"}]}`, ServerError},
		// A page is not a message.
		{"5xx html page", 500, "<html><body>Context size has been exceeded.</body></html>", "", ServerError},
		{"404 plain page, a file named", 404, "file not found", `{"model":"m","file_id":"file-abc"}`, Unavailable},
	} {
		r := Response{Status: c.status, Body: []byte(c.body), Model: "m"}
		if c.req != "" {
			r.Request = []byte(c.req)
		}
		if v := Classify(r); v.Class != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, v.Class, v.Evidence, c.want)
		}
	}
}
