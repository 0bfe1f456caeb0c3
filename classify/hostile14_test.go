package classify

import (
	"encoding/json"
	"testing"

	"github.com/detour-llm/detour/internal/testutil"
)

// stopTooLong is OpenAI's jsonschema answer to more than four stop
// sequences (the legacy wording TestQuotedAnswerFromClientText reads too):
// the client's list, printed by Python, opens the message.
func stopTooLong(items []string) (body, req string) {
	rq, _ := json.Marshal(map[string]any{"model": "gpt-4o", "messages": []any{map[string]any{"role": "user", "content": "hi"}}, "stop": items})
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": testutil.PyList(items) + " is too long - 'stop'", "type": "invalid_request_error", "param": nil, "code": nil}})
	return string(b), string(rq)
}

// TestClientListIsNoRelayTag: a message that opens with a list the server
// prints ("['a', 'b', …] is too long") opens with the client's first item:
// "[" and that item up to a "]" it holds is no relay's tag "[groq] ", and
// what follows is no relayed status nor quoted answer. Found by a hostile
// review: SageMaker's "Received client error (401)", the Node SDK's "402
// Payment Required" and a quoted answer joined from two items read as auth,
// quota and the rest, the echo check looking for the list's "['" too.
func TestClientListIsNoRelayTag(t *testing.T) {
	rest := []string{"c", "d", "e"}
	for _, c := range []struct {
		name   string
		status int
		items  []string
	}{
		{"sagemaker 401 → auth", 400, []string{"a] Received client error (401) from primary with message", "b"}},
		{"sagemaker 429 → rate_limited", 400, []string{"a] Received client error (429) from primary with message", "b"}},
		{"sagemaker 500 → server_error", 400, []string{"a] Received server error (500) from primary", "b"}},
		{"node sdk 402 → quota", 500, []string{"a] 402 Payment Required", "b"}},
		{"node sdk 401 → auth", 500, []string{"a] 401 Unauthorized", "b"}},
		{"quoted answer joined → quota", 400, []string{`a] {"error":{"code":"insufficient_quota","x":"`, `"}}`}},
		{"quoted answer joined → auth", 400, []string{`a] {"error":{"code":"invalid_api_key","x":"`, `"}}`}},
		{"quoted answer joined, item quoted in double quotes", 400, []string{`a'] {"error":{"code":"insufficient_quota","x":"`, `"}}`}},
	} {
		body, req := stopTooLong(append(c.items, rest...))
		v := Classify(Response{Status: c.status, Body: []byte(body), Request: []byte(req), Model: "gpt-4o"})
		want := Unknown
		if c.status >= 500 {
			want = ServerError
		}
		if v.Class != want {
			t.Errorf("%s: %s (%s), want %s\n  body: %s", c.name, v.Class, v.Evidence, want, body)
		}
	}
}

// TestLabelledLeadEchoedPastTheLabels: a lead read past a relay's labels
// is looked for in the client's request without them (labelledEcho): the
// relay's words ("[groq] ", "Validation error: ") before the client's text
// are not the client's, and hid its text from the check.
func TestLabelledLeadEchoedPastTheLabels(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		msg    string
		want   Class
	}{
		{"sagemaker lead after a tag", 400, "[groq] Received client error (401) from primary with message x", Unknown},
		{"sagemaker lead after a label", 422, "Validation error: Received client error (401) from primary", BadRequest},
		{"node sdk lead after a label", 500, "upstream error: 402 Payment Required", ServerError},
		{"node sdk lead after a tag", 500, "[RID: 42] 401 Unauthorized", ServerError},
	} {
		k := relayLabel([]byte(c.msg))
		rq, _ := json.Marshal(map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": c.msg[k:]}}})
		v := Classify(Response{Status: c.status, Body: []byte(openaiEnvelope(c.msg)), Request: rq, Model: "m"})
		if v.Class != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, v.Class, v.Evidence, c.want)
		}
		// Without the request the same answer is a relay's.
		if v := Classify(Response{Status: c.status, Body: []byte(openaiEnvelope(c.msg)), Model: "m"}); v.Class == c.want {
			t.Errorf("%s, no request: %s (%s), the relayed status unread", c.name, v.Class, v.Evidence)
		}
	}
}

// TestTwoPartPhraseHeadedByClientItem: a two-part phrase whose first part
// lies in a value of the client's the upstream quotes, and whose second is
// the upstream's own word after it ("Tool 'no model' is not loaded": "no
// model … loaded"), is no evidence (joinedFromClient): the client chose the
// head that makes the upstream's words a phrase. A 5xx read so was
// unavailable, the endpoint retired for a day; plain-text 5xx bodies, now
// read as messages, widened the reach. The upstream's own head stays
// evidence, its second part met inside a name it quotes or not.
func TestTwoPartPhraseHeadedByClientItem(t *testing.T) {
	req := `{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"no model"}}],"tool_choice":{"type":"function","function":{"name":"no model"}}}`
	for _, c := range []struct {
		name   string
		status int
		body   string
		req    string
		want   Class
	}{
		{"plain text 5xx", 500, "Tool 'no model' is not loaded", req, ServerError},
		{"json 5xx", 500, `{"error":{"message":"Tool 'no model' is not loaded"}}`, req, ServerError},
		{"fastapi 5xx", 503, `{"detail":"Tool 'no model' is not loaded"}`, req, ServerError},
		// The upstream's own words.
		{"no request", 500, "Tool 'no model' is not loaded", "", Unavailable},
		{"tabbyapi", 503, "No models are currently loaded.", req, Unavailable},
		{"head the upstream's, tail inside a quoted name", 404, "{\"error\":{\"message\":\"The model `a model that does not exist` does not exist.\"}}",
			`{"model":"a model that does not exist","messages":[{"role":"user","content":"hi"}]}`, Unavailable},
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
