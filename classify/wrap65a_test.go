package classify

import (
	"encoding/json"
	"testing"
)

// Probe 65a (relaywrap_test.go): a first-party vendor's answer wrapped in a
// relay's envelope keeps its class where the relay keeps the vendor's
// meaning. The fixes it led to, each with a real corpus answer wrapped as
// the relay wraps it, a near answer the fix must leave alone, and an echo
// case (the client's own text decides nothing).

// wrapBody65a is a corpus answer's body, JSON-quoted for an envelope.
func wrapBody65a(t *testing.T, name string) string {
	t.Helper()
	c, ok := loadCorpus(t)[name]
	if !ok {
		t.Fatalf("no corpus answer %s", name)
	}
	b, _ := json.Marshal(c.Body)
	return string(b[1 : len(b)-1])
}

// TestRelayLeads65a: claude-code-router's "Error from provider(<name>,
// <model>: <status>): " (corpus ccr-modelscope-model-id-has-no-provider-
// supported-400, musistudio/claude-code-router#906) and done-hub's
// "Provider API error: " (corpus donehub-400-system-error-provider-api-
// error-tools-input-schema-invalid, deanxv/done-hub#33) lead the answer
// they quote, as LiteLLM's exception names do: the quoted answer's code
// decides. Before, both relays' quoted answers were prose to the
// classifier, and every code, param and field path in them was lost.
func TestRelayLeads65a(t *testing.T) {
	// OpenAI's string_above_max_length (corpus
	// openai-chat-messages-content-string-above-max-length-400): overflow.
	body := wrapBody65a(t, "openai-chat-messages-content-string-above-max-length-400")
	ccr := `{"error":{"message":"Error from provider(openai,gpt-4o: 400): ` + body + `","type":"api_error","code":"provider_response_error"}}`
	done := `{"type":"400","error":{"type":"system_error","message":"Provider API error: ` + body + ` (request id: 20260317221524507549295izfaVmyu)"}}`
	run(t, []tc{
		{"ccr quotes its provider's answer", 400, nil, ccr, false, "overflow", "code:string_above_max_length"},
		{"done-hub quotes its provider's answer", 400, nil, done, false, "overflow", "code:string_above_max_length"},
		// Must not catch: a parenthesis holding a quote is no routed list,
		// and "Provider API errors" is no lead: the quoted object stays
		// text, read by its words as before.
		{"a quoted name in the parenthesis is no label", 400, nil,
			`{"error":{"message":"Error from provider('openai'): ` + body + `","type":"api_error","code":"provider_response_error"}}`, false, "bad_request", "phrase:invalid '"},
		{"another noun is no lead", 400, nil,
			`{"type":"400","error":{"type":"system_error","message":"Provider API errors: ` + body + `"}}`, false, "bad_request", "phrase:invalid '"},
	})
	// Echo: the client wrote the relay's lead and the object itself.
	req, _ := json.Marshal(map[string]any{"messages": []map[string]string{{"role": "user",
		"content": "Error from provider(openai,gpt-4o: 400): " + loadCorpus(t)["openai-chat-messages-content-string-above-max-length-400"].Body}}})
	v := Classify(Response{Status: 400, Body: []byte(ccr), Request: req})
	if v.Class != Unknown {
		t.Errorf("echoed ccr lead: %s %q, want unknown", v.Class, v.Evidence)
	}
}

// TestQuotedArrayAfterStatus65a: a 4xx printed with its reason phrase and
// followed by Gemini's stream form, an array holding its answer, is read as
// its first object, as one followed by the object is: Antigravity-Manager's
// 429 "All 2 attempts failed. Last error: HTTP 400 Bad Request: [{…}]"
// (corpus antigravity-429-relayed-400-vertex-claude-thinking-signature-
// field-required, lbjlaq/Antigravity-Manager#179) quoting Gemini's window
// overrun (corpus gemini-input-token-count-exceeds-max).
func TestQuotedArrayAfterStatus65a(t *testing.T) {
	body := wrapBody65a(t, "gemini-input-token-count-exceeds-max")
	ag := `{"error":{"message":"All 2 attempts failed. Last error: HTTP 400 Bad Request: ` + body + `"}}`
	run(t, []tc{
		{"antigravity quotes gemini's array", 429, nil, ag, false, "context_length", "phrase:input token count…exceeds"},
		{"a 5xx relay quotes gemini's array", 502, nil,
			`{"error":"All variants failed with errors: v: Error 400 Bad Request from gemini client: ` + body + `"}`, false, "context_length", ""},
		// Must not catch: an array whose first item is no object.
		{"an array of numbers first", 429, nil,
			`{"error":{"message":"All 2 attempts failed. Last error: HTTP 400 Bad Request: [1, {\"error\": {\"code\": 400, \"message\": \"The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).\"}}]"}}`, false, "rate_limited", "status:429"},
	})
	// Echo: the client wrote the status line and the array.
	req, _ := json.Marshal(map[string]any{"messages": []map[string]string{{"role": "user",
		"content": "HTTP 400 Bad Request: " + loadCorpus(t)["gemini-input-token-count-exceeds-max"].Body}}})
	if v := Classify(Response{Status: 429, Body: []byte(ag), Request: req}); v.Class != RateLimited {
		t.Errorf("echoed status line: %s %q, want rate_limited", v.Class, v.Evidence)
	}
}

// TestDigitParam65a: new-api's and one-api's upstream_error carries the
// status their upstream answered in param ("param":"400"), which names no
// member: it neither proves bad input (corpus ccr-relay-upstream-error-
// empty-message-bad-response-status-code-400, musistudio/claude-code-
// router#966, quoting such a 400, is unknown) nor keeps the relay's
// envelope from being read as the quoted answer's.
func TestDigitParam65a(t *testing.T) {
	body := wrapBody65a(t, "openai-chat-messages-content-string-above-max-length-400")
	newapi := `{"error":{"message":"` + body + ` (request id: 20260317221524507549295izfaVmyu)","type":"upstream_error","param":"400","code":"bad_response_status_code"}}`
	run(t, []tc{
		{"a status in param names nothing", 400, nil, `{"error":{"message":"","type":"upstream_error","param":"400","code":"bad_response_status_code"}}`, false, "unknown", "status:400"},
		{"new-api's quoted answer decides", 400, nil, newapi, false, "overflow", "code:string_above_max_length"},
		// Must not catch: a member's name, or an index path, still names it.
		{"a member's name still proves", 400, nil, `{"error":{"message":"","type":"invalid_request_error","param":"messages","code":null}}`, false, "bad_request", "openai:param"},
		{"a path with an index still proves", 400, nil, `{"error":{"message":"","type":"invalid_request_error","param":"messages.0","code":null}}`, false, "bad_request", "openai:param"},
	})
	// Echo: the quoted object is the client's own text.
	req, _ := json.Marshal(map[string]any{"messages": []map[string]string{{"role": "user",
		"content": loadCorpus(t)["openai-chat-messages-content-string-above-max-length-400"].Body}}})
	if v := Classify(Response{Status: 400, Body: []byte(newapi), Request: req}); v.Class == Overflow {
		t.Errorf("echoed quoted answer decided: %s %q", v.Class, v.Evidence)
	}
}

// wrapRight are the changes the probe finds in the relays asserted below
// that are not the classifier's to undo, each with its reason.
var wrapRight = map[string]string{
	// A relayed capability gap whose message opens with a field path stays
	// a gap (families6_test.go, TestRelayedFieldPath, "relayed gap with a
	// path stays a gap", pinned), where the same message read directly is
	// bad_request (message:field-path). A pinned decision, left to the
	// lead: the three Anthropic answers read unknown in every relay that
	// quotes them whole.
	"anthropic-cache-control-ttl-1h-after-5m-field-path-400":   "pinned: relayed gap with a path",
	"anthropic-output-config-effort-max-thinking-disabled-400": "pinned: relayed gap with a path",
	"anthropic-tool-input-schema-oneof-top-level-400":          "pinned: relayed gap with a path",
}

// TestRelayWrapKeepsClass: every first-party answer the probe wraps keeps
// its class in the relays that quote the vendor's whole body at the
// vendor's status (OpenRouter's metadata.raw, claude-code-router's and
// done-hub's leads), but for wrapRight. The relays that keep only the
// vendor's message (new-api's Claude shape, Vercel, TrueFoundry, Bifrost,
// Portkey, LiteLLM for the OpenAI family) or answer their own status
// (LiteLLM's exception mapping, Antigravity-Manager's 429) drop what some
// answers are read by; the probe's report lists them
// (WRAP65A_REPORT=… go test ./classify -run TestWrapProbeReport).
func TestRelayWrapKeepsClass(t *testing.T) {
	whole := map[string]bool{"openrouter": true, "ccr": true, "donehub": true}
	n := 0
	for _, wc := range wrapCases(t) {
		before := Classify(wc.c.response())
		for _, rw := range relayWraps {
			if !whole[rw.name] {
				continue
			}
			st, body, _ := rw.wrap(wc.c)
			r := wc.c.response()
			r.Status, r.Body = st, []byte(body)
			after := Classify(r)
			n++
			if verdictClass(after) == verdictClass(before) {
				continue
			}
			if _, ok := wrapRight[wc.name]; ok {
				continue
			}
			t.Errorf("%s in %s: %s (%s) -> %s (%s)", wc.name, rw.name,
				verdictClass(before), before.Evidence, verdictClass(after), after.Evidence)
		}
	}
	if n < 2000 {
		t.Fatalf("only %d wrapped answers: the probe's selection shrank", n)
	}
}
