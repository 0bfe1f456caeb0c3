package classify

import "testing"

// A two-part phrase the upstream assembles from two of the client's own
// items is no evidence (found by the hostile review of client steering:
// each read quota or unavailable, cooling and paging); the same words in
// the upstream's own prose still count.
func TestTwoPartPhraseJoinedFromClientItems(t *testing.T) {
	for _, c := range []struct {
		name, body, req string
		status          int
		notClass        []Class
	}{
		// Azure lists the members it does not know (run-llama/llama_index#9364:
		// "Unrecognized request arguments supplied: tool_choice, tools").
		{"Azure: two unknown members", `{"error":{"message":"Unrecognized request arguments supplied: daily, limit","type":"invalid_request_error","param":null,"code":null}}`,
			`{"model":"r","messages":[{"role":"user","content":"hi"}],"daily":1,"limit":1}`, 400, []Class{Quota, RateLimited}},
		{"Azure: out of, quota", `{"error":{"message":"Unrecognized request arguments supplied: out of, quota","type":"invalid_request_error","param":null,"code":null}}`,
			`{"model":"r","messages":[{"role":"user","content":"hi"}],"out of":1,"quota":1}`, 400, []Class{Quota}},
		// vLLM dumps the request as a Python dict in its 400 (vllm-project/vllm#10567).
		{"vLLM dump: 'model' key and the client's content", `{"object":"error","message":"[{'type': 'value_error', 'msg': 'Value error, Incorrectly formatted tool_choice', 'input': {'model': 'llama-3.1-8b', 'messages': [{'role': 'user', 'content': 'not found'}], 'tool_choice': {}}}]","type":"BadRequestError","param":null,"code":400}`,
			`{"model":"llama-3.1-8b","messages":[{"role":"user","content":"not found"}],"tool_choice":{}}`, 400, []Class{Unavailable}},
		{"vLLM dump: two stop strings", `{"object":"error","message":"[{'type': 'value_error', 'msg': 'Value error', 'input': {'stop': ['out of', 'quota'], 'model': 'llama-3.1-8b'}}]","type":"BadRequestError","param":null,"code":400}`,
			`{"stop":["out of","quota"],"model":"llama-3.1-8b"}`, 400, []Class{Quota}},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := Classify(Response{Status: c.status, Body: []byte(c.body), Request: []byte(c.req), Model: "llama-3.1-8b"})
			for _, bad := range c.notClass {
				if v.Class == bad {
					t.Errorf("%s (%s): the client's items decided it", v.Class, v.Evidence)
				}
			}
		})
	}
	// The upstream's own prose: the word "model" is a member of every
	// request, yet the answer is the upstream's.
	for _, c := range []struct{ body, want string }{
		{`{"error":"model \"llama3\" not found, try pulling it first"}`, "unavailable"},
		{`{"error":{"message":"The model ` + "`gpt-x`" + ` does not exist or you do not have access to it.","type":"invalid_request_error"}}`, "unavailable"},
		{`{"error":{"message":"You exceeded your daily request limit, try tomorrow"}}`, "quota"},
	} {
		v := Classify(Response{Status: 400, Body: []byte(c.body), Request: []byte(`{"model":"r","messages":[{"role":"user","content":"not found daily limit"}]}`), Model: "gpt-x"})
		if v.Class.String() != c.want {
			t.Errorf("%s: %s (%s), want %s", c.body, v.Class, v.Evidence, c.want)
		}
	}
}

// A two-part phrase's first word at the head of an identifier the client
// sent is not the word: "model-report", a file id the client chose, does
// not make "model … not exist" (found by the hostile review of client
// steering: the Gemini file answers below read unavailable; any other id
// reads as here). The provider's own hyphenated wording still counts.
func TestPhraseWordAtTheHeadOfAnIdentifier(t *testing.T) {
	req := `{"contents":[{"role":"user","parts":[{"fileData":{"mimeType":"application/pdf","fileUri":"https://generativelanguage.googleapis.com/v1beta/files/model-report"}},{"text":"summarize"}]}]}`
	for _, c := range []struct {
		status     int
		body, want string
	}{
		// The client's own reference to a stored file (TestStoredThingMayNotExist).
		{403, `{"error":{"code":403,"message":"You do not have permission to access the File model-report or it may not exist.","status":"PERMISSION_DENIED"}}`, "bad_request"},
		{404, `{"error":{"code":404,"message":"File model-report not found.","status":"NOT_FOUND"}}`, "bad_request"},
		// Gemini's own gone model still reads as one.
		{404, `{"error":{"code":404,"message":"models/gemini-1.0-pro is not found for API version v1beta, or is not supported for generateContent.","status":"NOT_FOUND"}}`, "unavailable"},
	} {
		v := Classify(Response{Status: c.status, Body: []byte(c.body), Request: []byte(req), Model: "gemini-2.5-flash"})
		if v.Class.String() != c.want {
			t.Errorf("%s: %s (%s), want %s", c.body, v.Class, v.Evidence, c.want)
		}
	}
}

func TestPhraseWordAtTheHeadOfTheProvidersOwnIdentifier(t *testing.T) {
	v := Classify(Response{Status: 400, Body: []byte(`{"error":{"message":"Your daily-limit has been reached for this key."}}`),
		Request: []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`)})
	if v.Class != Quota {
		t.Errorf("%s (%s), want quota", v.Class, v.Evidence)
	}
}
