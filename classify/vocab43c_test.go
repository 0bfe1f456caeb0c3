package classify

import (
	"encoding/json"
	"fmt"
	"testing"
)

// pyBytesRepr writes b as Python prints a bytes value (b'…'), the form
// LiteLLM's exception text quotes an upstream's raw answer in.
func pyBytesRepr(b []byte) string {
	out := []byte("b'")
	for _, c := range b {
		switch {
		case c == '\\' || c == '\'':
			out = append(out, '\\', c)
		case c == '\n':
			out = append(out, `\n`...)
		case c == '\r':
			out = append(out, `\r`...)
		case c == '\t':
			out = append(out, `\t`...)
		case c < 0x20 || c >= 0x7f:
			out = append(out, fmt.Sprintf(`\x%02x`, c)...)
		default:
			out = append(out, c)
		}
	}
	return string(append(out, '\''))
}

// TestVocabularyRoundFortyThreeCBytesQuotedAnswers: hunt 43f #15. A user
// relies on an upstream answer LiteLLM quotes in Python's bytes form
// ("Vertex_ai_betaException BadRequestError - b'{\n  \"error\": …}\n'",
// its form for Gemini and Vertex answers) being read as the same answer
// quoted plainly is: every real JSON error answer of the corpus, so
// quoted, gets the verdict it gets quoted plainly.
func TestVocabularyRoundFortyThreeCBytesQuotedAnswers(t *testing.T) {
	n := 0
	for name, c := range loadCorpus(t) {
		if c.Stream || c.Status < 400 || c.Miss != "" || len(c.Headers) > 0 || !json.Valid([]byte(c.Body)) || c.Provider == "openrouter" || c.Provider == "litellm" {
			continue
		}
		plain, _ := json.Marshal("litellm.APIError: UpstreamException - " + c.Body)
		bytesForm, _ := json.Marshal("litellm.APIError: UpstreamException - " + pyBytesRepr([]byte(c.Body)))
		r := c.response()
		r.Body = []byte(fmt.Sprintf(`{"error":{"message":%s,"type":null,"param":null,"code":"%d"}}`, plain, c.Status))
		want := Classify(r)
		r.Body = []byte(fmt.Sprintf(`{"error":{"message":%s,"type":null,"param":null,"code":"%d"}}`, bytesForm, c.Status))
		if got := Classify(r); got.Class != want.Class || got.Failed != want.Failed {
			t.Errorf("%s quoted as bytes: %s (%s); quoted plainly, %s (%s)", name, got.Class, got.Evidence, want.Class, want.Evidence)
		}
		n++
	}
	if n < 500 {
		t.Fatalf("only %d corpus answers quoted", n)
	}
}

// corpusBody returns the body of the corpus case name.
func corpusBody(t *testing.T, name string) string {
	t.Helper()
	c, ok := loadCorpus(t)[name]
	if !ok {
		t.Fatalf("no corpus case %s", name)
	}
	return c.Body
}

// litellmBytes is LiteLLM's proxy envelope around an upstream answer it
// quotes in Python's bytes form after its exception names.
func litellmBytes(lead, upstream string, status int) string {
	m, _ := json.Marshal(lead + pyBytesRepr([]byte(upstream)))
	return fmt.Sprintf(`{"error":{"message":%s,"type":null,"param":null,"code":"%d"}}`, m, status)
}

// TestVocabularyRoundFortyThreeCLiteLLMBytesForm: hunt 43f #15. A user
// relies on the upstream answer inside LiteLLM's bytes form being the one
// that decides, as a plainly quoted one does: Gemini's per-minute quotaId
// keeps a throttle rate_limited instead of cooling the account as quota,
// and words Python escaped (\xNN for UTF-8) are read. A quote that is no
// relay's (inside a sentence, the client's own text, a Python dict) is not
// read; a relay's 5xx quoting the answer of a 4xx its exception name
// names is read at that 4xx (round 44, vocab44_test.go).
func TestVocabularyRoundFortyThreeCLiteLLMBytesForm(t *testing.T) {
	perMinute := corpusBody(t, "gemini-resource-exhausted-per-minute-tokens")
	arrears := corpusBody(t, "zhipu-1113-account-in-arrears-recharge-429-cn")
	const lead = "litellm.RateLimitError: litellm.RateLimitError: Vertex_ai_betaException - "
	quotedInSentence, _ := json.Marshal("Invalid value: " + pyBytesRepr([]byte(perMinute)))
	own := litellmBytes(lead, arrears, 429)
	var ownMsg struct {
		Error struct{ Message string }
	}
	_ = json.Unmarshal([]byte(own), &ownMsg)
	ownReq, _ := json.Marshal(map[string]any{"model": "m", "messages": []map[string]string{{"role": "user", "content": "Why? " + ownMsg.Error.Message}}})
	// Hunt 43f #15 (BerriAI/litellm#18442), LiteLLM's 503 as the issue
	// shows it.
	hunt15 := `{
  "error": {
    "message": "litellm.ServiceUnavailableError: litellm.MidStreamFallbackError: litellm.BadRequestError: Vertex_ai_betaException BadRequestError - b'{\\n  \"error\": {\\n    \"code\": 400,\\n    \"message\": \"Unable to submit request because ` + "`load_mcp_documentation`" + ` functionDeclaration parameters schema should be of type OBJECT. Learn more: https://cloud.google.com/vertex-ai/generative-ai/docs/multimodal/function-calling\",\\n    \"status\": \"INVALID_ARGUMENT\"\\n  }\\n}\\n'. Received Model Group=gemini-3-flash-preview",
    "code": 503
  }
}`
	runHostile(t, []hostileCase{
		// Corpus answers in LiteLLM's bytes form (its lead as aider's logs
		// print it for Gemini's 429s).
		{name: "Gemini's per-minute 429 in bytes form", status: 429, body: litellmBytes(lead, perMinute, 429), want: RateLimited},
		{name: "Zhipu's arrears 429 in bytes form, UTF-8 as \\xNN", status: 429, body: litellmBytes(lead, arrears, 429), want: Quota},

		// Near-misses: no relay's quote, and no broader rule.
		{name: "a bytes value inside a sentence", status: 429,
			body: fmt.Sprintf(`{"error":{"message":%s,"type":null,"param":null,"code":"429"}}`, quotedInSentence), want: Quota},
		{name: "the client's own bytes-form text quoted back", status: 429, body: own, req: string(ownReq), want: RateLimited},
		{name: "a Python dict in bytes form", status: 429,
			body: litellmBytes(lead, `{'error': {'code': 429, 'message': 'You exceeded your current quota, please check your plan and billing details.', 'status': 'RESOURCE_EXHAUSTED', 'details': [{'@type': 'type.googleapis.com/google.rpc.QuotaFailure', 'violations': [{'quotaId': 'GenerateContentInputTokensPerModelPerMinute-FreeTier'}]}]}}`, 429), want: Quota},
		// Round 44: the quoted answer is read at the 400 its exception
		// name stands for (namedStatus), not at the relay's 503.
		{name: "hunt 43f #15: a 503 quoting a 400, read at the 400 its name says", status: 503, body: hunt15, want: BadRequest},
	})
}

// TestVocabularyRoundFortyThreeCGeminiSchemaSubset: hunt 43f #0 and #1. A
// user relies on a tool schema Gemini's subset refuses (an enum on a
// non-string property, a string format other than enum and date-time),
// valid JSON Schema that OpenAI and Anthropic take, moving on to the next
// target (unknown) instead of stopping with Gemini's 400, though the
// message opens with the schema member's path. Other words after such a
// path are bad input everywhere and still stop the walk, and the client's
// own words quoted back are no evidence.
func TestVocabularyRoundFortyThreeCGeminiSchemaSubset(t *testing.T) {
	const enum = `{"error":{"code":400,"message":"* GenerateContentRequest.tools[0].function_declarations[14].parameters.properties[truncateMode].enum: only allowed for STRING type\n* GenerateContentRequest.tools[0].function_declarations[27].parameters.properties[truncateMode].enum: only allowed for STRING type\n* GenerateContentRequest.tools[0].function_declarations[33].parameters.properties[truncateMode].enum: only allowed for STRING type\n","status":"INVALID_ARGUMENT"}}`
	const format = `{
  "error": {
    "code": 400,
    "message": "* GenerateContentRequest.tools[0].function_declarations[93].parameters.properties[links].items.properties[url].format: only 'enum' and 'date-time' are supported for STRING type\n* GenerateContentRequest.tools[0].function_declarations[94].parameters.properties[links].items.properties[url].format: only 'enum' and 'date-time' are supported for STRING type\n",
    "status": "INVALID_ARGUMENT"
  }
}
`
	raw, _ := json.Marshal(enum)
	viaOpenRouter := `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":` + string(raw) + `,"provider_name":"Google AI Studio","is_byok":false}}}`
	const echoReq = `{"contents":[{"role":"user","parts":[{"text":"What does enum: only allowed for STRING type mean?"}]}]}`
	runHostile(t, []hostileCase{
		// 43f #0 (musistudio/claude-code-router#475), #1
		// (google-gemini/gemini-cli#3178), as in the corpus.
		{name: "enum on a non-string property", status: 400, body: enum, want: Unknown},
		{name: "a string format other than enum and date-time", status: 400, body: format, want: Unknown},
		// Variants (constructed): #0 relayed by OpenRouter (as its
		// corpus case relays Gemini's "enum[1]: cannot be empty"), and
		// the same words in a response schema's path.
		{name: "enum on a non-string property via OpenRouter", status: 400, body: viaOpenRouter, want: Unknown},
		{name: "the same words at response_schema", status: 400,
			body: `{"error":{"code":400,"message":"* GenerateContentRequest.generation_config.response_schema.properties[level].enum: only allowed for STRING type\n","status":"INVALID_ARGUMENT"}}`, want: Unknown},

		// Near-misses: the corpus's path errors that are bad input
		// everywhere, hunt 43f #2's words (pinned bad_request for
		// response_schema in vocab27_test.go), the client's own words.
		{name: "items: missing field (corpus)", status: 400, body: corpusBody(t, "gemini-function-declaration-array-items-missing-field-400"), want: BadRequest},
		{name: "enum[1]: cannot be empty via OpenRouter (corpus)", status: 400, body: corpusBody(t, "openrouter-google-tools-enum-cannot-be-empty-previous-errors-400"), want: BadRequest},
		{name: "hunt 43f #2: should be non-empty for OBJECT type", status: 400,
			body: `{"error":{"code":400,"message":"* GenerateContentRequest.tools[0].function_declarations[7].parameters.properties[query].properties: should be non-empty for OBJECT type\n","status":"INVALID_ARGUMENT"}}`, want: BadRequest},
		{name: "the client's own words quoted back", status: 400, body: enum, req: echoReq, want: BadRequest},
	})
}
