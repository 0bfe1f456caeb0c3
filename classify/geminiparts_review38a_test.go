package classify

import (
	"net/http"
	"testing"
)

// TestReview38aGeminiPartsTheClientNeverSees: a Gemini candidate that
// stopped for a block or a failure carries, on thinking models, parts the
// client never gets: a thought summary ("thought": true), or an empty text
// part that holds only the turn's thoughtSignature (Gemini 3 puts the
// signature on a part of its own, https://ai.google.dev/gemini-api/docs/thought-signatures).
// Such a candidate has no content: the operator relies on its finish being
// read as the same finish with no parts at all — SAFETY a refusal (handed
// to the client, never replayed at another vendor, never counted against
// the endpoint), OTHER or MALFORMED_FUNCTION_CALL unknown (the walk moves
// on) — not as an answer. Before, any scalar under parts counted as
// content: the whole answer then reached the adapter, which found nothing
// to translate and failed it as the endpoint's server_error (counted,
// retried, replayed elsewhere), and a stream committed an empty success.
// Bodies are shaped as the API reference's GenerateContentResponse
// (candidates[].content.parts[] with text, thought, thoughtSignature;
// finishReason; usageMetadata); the combinations are INVENTED.
func TestReview38aGeminiPartsTheClientNeverSees(t *testing.T) {
	sig := `"thoughtSignature":"CiQB0e2Kb1Yx7Z3lFq9v2bWc0QmV8r3dJ5nTz1pXh4u6sYk="`
	for _, c := range []struct {
		name, body string
		want       Class
		failed     bool
	}{
		{"SAFETY beside a signature on an empty text", `{"candidates":[{"content":{"parts":[{"text":"",` + sig + `}],"role":"model"},"finishReason":"SAFETY","index":0}],"usageMetadata":{"promptTokenCount":5,"thoughtsTokenCount":40,"totalTokenCount":45}}`, Refusal, true},
		{"SAFETY beside a bare signature", `{"candidates":[{"content":{"parts":[{` + sig + `}],"role":"model"},"finishReason":"SAFETY","index":0}]}`, Refusal, true},
		{"PROHIBITED_CONTENT beside a thought", `{"candidates":[{"content":{"parts":[{"text":"Considering the request","thought":true}],"role":"model"},"finishReason":"PROHIBITED_CONTENT","index":0}]}`, Refusal, true},
		{"OTHER beside a thought, thought member first", `{"candidates":[{"content":{"parts":[{"thought":true,"text":"Considering the request"}],"role":"model"},"finishReason":"OTHER","index":0}]}`, Unknown, true},
		{"MALFORMED_FUNCTION_CALL beside an empty text", `{"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"MALFORMED_FUNCTION_CALL","index":0}]}`, Unknown, true},
		// What the client does get is content: these stay answers.
		{"SAFETY after text that carries the signature", `{"candidates":[{"content":{"parts":[{"text":"Here is",` + sig + `}],"role":"model"},"finishReason":"SAFETY","index":0}]}`, Unknown, false},
		{"SAFETY after a thought and a text", `{"candidates":[{"content":{"parts":[{"text":"hmm","thought":true},{"text":"Here is"}],"role":"model"},"finishReason":"SAFETY","index":0}]}`, Unknown, false},
		{"OTHER beside a function call without args", `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"now"},` + sig + `}],"role":"model"},"finishReason":"OTHER","index":0}]}`, Unknown, false},
		{"OTHER beside an image", `{"candidates":[{"content":{"parts":[{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}}],"role":"model"},"finishReason":"OTHER","index":0}]}`, Unknown, false},
		{"a blocked candidate beside one with text", `{"candidates":[{"content":{"parts":[{` + sig + `}]},"finishReason":"SAFETY","index":0},{"content":{"parts":[{"text":"fine"}]},"finishReason":"STOP","index":1}]}`, Unknown, false},
	} {
		for _, stream := range []bool{false, true} {
			body := c.body
			if stream {
				body = "data: " + body + "\r\n\r\n"
			}
			v := Classify(Response{Status: http.StatusOK, Body: []byte(body), Dialect: Gemini, Stream: stream})
			if v.Failed != c.failed || c.failed && v.Class != c.want {
				t.Errorf("%s (stream %v): got failed %v class %q evidence %q, want failed %v class %q", c.name, stream, v.Failed, v.Class, v.Evidence, c.failed, c.want)
			}
		}
	}
}
