package classify

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

func TestEchoedNormalises(t *testing.T) {
	for _, c := range []struct {
		name, req, raw string
		want           bool
	}{
		{"plain", `{"role":"insufficient funds"}`, `insufficient funds`, true},
		{"case", `{"role":"INSUFFICIENT Funds"}`, `insufficient funds`, true},
		{"blank runs", `{"role":"insufficient \t  funds"}`, `Insufficient funds`, true},
		{"escaped blanks on both sides", `{"role":"insufficient\n\tfunds"}`, `insufficient\nfunds`, true},
		{"unicode escapes", `{"role":"\u0069\u006E\u0073ufficient fund\u0073"}`, `insufficient funds`, true},
		{"an escape splits a word", `{"role":"\u0071uota exc\u0065eded"}`, `quota exceeded`, true},
		{"escaped blank", `{"role":"quota\u0020\u000aexceeded"}`, `quota exceeded`, true},
		{"escaped quote and slash", `{"role":"it's \"not\/valid\""}`, `"not/valid"`, true},
		{"surrogate pair", `{"role":"\ud83d\ude00 rate limit"}`, "\U0001F600 rate limit", true},
		{"raw utf-8 in the upstream, escaped in the request", `{"role":"d\u00e9j\u00e0 vu billing"}`, "déjà vu billing", true},
		{"not there", `{"role":"user","content":"quota"}`, `quota exceeded`, false},
		{"words apart", `{"a":"quota","b":"exceeded"}`, `quota exceeded`, false},
		{"needle longer than the request", `{"a":"q"}`, `quota exceeded`, false},
		{"a bad escape is a backslash", `{"role":"\q\uZZZZ"}`, `\q\uzzzz`, true},
		{"lone surrogate", `{"role":"\ud83d x"}`, "\uFFFD x", true},
		{"trailing backslash", `quota \`, `quota \`, true},
		{"no request", ``, `quota`, false},
		{"empty text", `quota`, ``, false},
		{"blank text", `quota`, ` \n `, false},
		// JSON inside the client's strings (a tool call's arguments, a tool
		// result) reaches the upstream decoded twice: Detour sends it on as
		// JSON (Gemini's functionCall.args, Anthropic's tool_use.input).
		{"escaped twice", `{"arguments":"{\"a\":\"\\u0063redit balance\"}"}`, `credit balance`, true},
		{"quote escaped twice", `{"arguments":"{\"a\":\"say \\\"quota\\\"\"}"}`, `say "quota"`, true},
		{"newline escaped twice", `{"arguments":"{\"a\":\"quota\\nexceeded\"}"}`, `quota exceeded`, true},
		{"backslash escaped twice", `{"arguments":"{\"a\":\"a\\\\b\"}"}`, `a\b`, true},
		{"surrogates escaped twice", `{"arguments":"{\"a\":\"\\ud83d\\ude00 limit\"}"}`, "\U0001F600 limit", true},
		{"a double escape that is not one", `{"a":"x\\q"}`, `x\q`, true},
		// A backslash the client wrote reaches the upstream as a backslash:
		// the request's first reading still counts beside the deeper one.
		{"a literal backslash before n", `{"a":"C:\\new folder"}`, `C:\new folder`, true},
		{"overlapping prefix (KMP)", `aab aaab aaaab`, `aaab`, true},
		{"overlapping prefix, absent", `aab aab aaxab`, `aaab`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := echoed([]byte(c.req), []byte(c.raw)); got != c.want {
				t.Errorf("echoed(%q, %q) = %v, want %v", c.req, c.raw, got, c.want)
			}
		})
	}
	// A long match (operator rules) goes past the stack buffers.
	long := strings.Repeat("usage limits reached ", 40)
	if !echoed([]byte(`{"x":"`+long+`"}`), []byte(long)) || echoed([]byte(`{"x":"`+long[:400]+`"}`), []byte(long)) {
		t.Error("long needle")
	}
}

// phraseText is the text a phrase matches, as a client would write it.
func phraseText(p phrase) string {
	if p.slash { // a unit after a slash: "calls / month"
		return "/ " + p.a
	}
	if p.b == "" {
		return p.a
	}
	if p.clientThing {
		return p.a + " image " + p.b
	}
	if p.memberGap { // two request members' names
		return "a_b " + p.a + " c_d " + p.b
	}
	return p.a + " " + p.b
}

// requestWith is a chat request carrying text as a message role, JSON-encoded
// in one of the ways a client may write it.
func requestWith(text, how string) []byte {
	switch how {
	case "escaped": // every byte a \u escape
		var b strings.Builder
		for _, r := range text {
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		return []byte(`{"model":"m","messages":[{"role":"` + b.String() + `","content":"hi"}]}`)
	case "first letters escaped": // \u0071uota exceeded
		var b strings.Builder
		start := true
		for _, r := range text {
			if start && r >= 'a' && r <= 'z' {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				s, _ := json.Marshal(string(r))
				b.WriteString(strings.Trim(string(s), `"`))
			}
			start = r == ' '
		}
		return []byte(`{"model":"m","messages":[{"role":"` + b.String() + `","content":"hi"}]}`)
	}
	b, _ := json.Marshal(map[string]any{"model": "m", "messages": []any{map[string]any{"role": text, "content": "hi"}}})
	return b
}

// echoAnswer is an upstream error quoting what as the bad role: OpenAI's
// current wording (openai/codex#7085: "Invalid value: 'other'. Supported
// values are: 'search', 'open_page', and 'find_in_page'." with type
// invalid_request_error, param naming the field, code invalid_value; the
// role list as in anomalyco/opencode#10803), or its older one, which names no
// param and no code (lss233/kirara-ai#1028 quotes an empty role back as
// "<role in quotes> is not one of ['system', 'assistant', 'user',
// 'function'] - 'messages.21.role'").
func echoAnswer(what string, legacy bool) []byte {
	e := map[string]any{
		"message": "Invalid value: '" + what + "'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.",
		"type":    "invalid_request_error", "param": "messages[0].role", "code": "invalid_value",
	}
	if legacy {
		e = map[string]any{
			"message": "'" + what + "' is not one of ['system', 'assistant', 'user', 'function'] - 'messages.0.role'",
			"type":    "invalid_request_error", "param": nil, "code": nil,
		}
	}
	b, _ := json.Marshal(map[string]any{"error": e})
	return b
}

// scopedElsewhere are the classes that describe an account or an endpoint:
// a client's echoed text must never yield one.
var scopedElsewhere = map[Class]bool{Quota: true, Auth: true, Unavailable: true, Forbidden: true,
	ServerError: true, Timeout: true, RateLimited: true}

// TestEchoedPhrasesAreNoEvidence is generated from the phrase tables: every
// taught phrase, quoted back by the upstream as the client's own input, and
// present in the client's request (written plainly, fully \u-escaped, with
// escapes splitting its words, or in upper case with other blanks), decides
// nothing about the account or the endpoint.
func TestEchoedPhrasesAreNoEvidence(t *testing.T) {
	sets := map[string]*phraseSet{"main": mainPhrases, "fiveXX": fiveXXPhrases, "timeout": timeoutPhrases}
	hows := []string{"plain", "escaped", "first letters escaped", "upper case, other blanks"}
	n := 0
	for setName, set := range sets {
		for _, p := range set.list {
			text := phraseText(p)
			for _, how := range hows {
				echo := text
				if how == "upper case, other blanks" {
					// The client wrote it differently; the upstream quotes
					// what it decoded.
					blanks := " \n\t "
					if p.clause { // a line break ends the clause the phrase must stay in
						blanks = " \t  "
					}
					echo = strings.ReplaceAll(strings.ToUpper(text), " ", blanks)
				}
				req := requestWith(echo, how)
				// 4xx in OpenAI's current wording: the field is named, so
				// the answer is the client's bad input.
				for _, st := range []int{400, 403, 404, 429} {
					v := Classify(Response{Status: st, Body: echoAnswer(echo, false), Request: req})
					n++
					if v.Class != BadRequest || scopedElsewhere[v.Class] {
						t.Errorf("%s %q (%s) as %d: %s (%s), want bad_request", setName, p.a, how, st, v.Class, v.Evidence)
					}
				}
				// The older wording names nothing: the phrase must not
				// decide, and nothing proves bad input.
				body := echoAnswer(echo, true)
				control := Classify(Response{Status: 400, Body: body})
				if setName == "main" && !strings.HasPrefix(control.Evidence, "phrase:") {
					t.Fatalf("%q: the test body does not match the phrase without the request: %+v", p.a, control)
				}
				v := Classify(Response{Status: 400, Body: body, Request: req})
				n++
				if v.Class != Unknown {
					t.Errorf("%s %q (%s) legacy 400: %s (%s), want unknown", setName, p.a, how, v.Class, v.Evidence)
				}
				if strings.HasPrefix(control.Evidence, "phrase:") && !strings.HasSuffix(v.Evidence, "+echo") {
					t.Errorf("%s %q (%s) legacy 400: evidence %q does not say the echo was ignored", setName, p.a, how, v.Evidence)
				}
				// A provider 500 quoting the client: still the provider's
				// failure, never the client's request nor a timeout.
				b5, _ := json.Marshal(map[string]any{"error": map[string]any{
					"message": "The server had an error while processing your request: '" + echo + "'",
					"type":    "server_error", "param": nil, "code": nil}})
				if v := Classify(Response{Status: 500, Body: b5}); setName != "main" && v.Class == ServerError {
					t.Fatalf("%q: the 5xx test body does not match the phrase without the request: %+v", p.a, v)
				}
				for _, st := range []int{500, 502, 503} {
					v := Classify(Response{Status: st, Body: b5, Request: req})
					n++
					if v.Class != ServerError {
						t.Errorf("%s %q (%s) in a %d: %s (%s), want server_error", setName, p.a, how, st, v.Class, v.Evidence)
					}
				}
			}
		}
	}
	t.Logf("%d echoed answers classified", n)
}

// The same answers with a request that does not contain the phrase keep their
// verdict: the echo check discards only what the client sent.
func TestEchoCheckNeedsTheText(t *testing.T) {
	body := echoAnswer("You exceeded your current quota", true)
	for _, req := range []string{``, `{"messages":[{"role":"user","content":"how are quotas computed?"}]}`} {
		v := Classify(Response{Status: 400, Body: body, Request: []byte(req)})
		if v.Class != Quota || v.Evidence != "phrase:exceeded your current quota" {
			t.Errorf("request %q: %+v", req, v)
		}
	}
	// A real Anthropic spend cap, the request unrelated: still quota.
	real := `{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}}`
	v := Classify(Response{Status: 400, Body: []byte(real), Request: []byte(`{"messages":[{"role":"user","content":"my balance is low"}]}`)})
	if v.Class != Quota {
		t.Errorf("real spend cap: %+v", v)
	}
	// The next phrase that is not echoed decides: a 429 whose echoed text
	// says quota but whose own wording says per minute.
	v = Classify(Response{Status: 429, Body: []byte(`{"error":{"message":"Rate limit reached on tokens per minute; you wrote 'insufficient funds'"}}`),
		Request: []byte(`{"messages":[{"role":"user","content":"insufficient funds"}]}`)})
	if v.Class != RateLimited || v.Evidence != "phrase:per minute+echo" {
		t.Errorf("next phrase: %+v", v)
	}
	// A two-part phrase echoed once and said by the provider once.
	v = Classify(Response{Status: 400, Body: []byte(`{"error":{"message":"'model x not found' is not valid here; model gpt-9 not found"}}`),
		Request: []byte(`{"messages":[{"role":"user","content":"model x not found"}]}`)})
	if v.Class != Unavailable || v.Evidence != "phrase:model…not found" {
		t.Errorf("second occurrence: %+v", v)
	}
	// "Limit N … Requested M" the client wrote is not a request over its limit.
	v = Classify(Response{Status: 429, Body: []byte(`{"error":{"message":"Invalid value: 'Limit 10, Requested 99'"}}`),
		Request: []byte(`{"messages":[{"role":"Limit 10, Requested 99"}]}`)})
	if v.Class != RateLimited || v.Evidence != "status:429+echo" {
		t.Errorf("echoed over-limit: %+v", v)
	}
}

// Structured fields first: where OpenAI names the request field at fault, an
// account-scoped phrase in the message is that field's content, with or
// without the request at hand.
func TestParamBeforeAccountWording(t *testing.T) {
	run(t, []tc{
		{"quota wording in a named field", 400, nil, string(echoAnswer("You exceeded your current quota", false)), false, "bad_request", "phrase:invalid value"},
		{"auth wording in a named field, 403", 403, nil, string(echoAnswer("Invalid API key", false)), false, "bad_request", "code:invalid_value"},
		{"quota wording beside a bad-input code", 429, nil, `{"error":{"message":"Unsupported value: 'insufficient funds'","code":"unsupported_value"}}`, false, "bad_request", "code:unsupported_value"},
		// Endpoint-scoped wording next to a field keeps its class: OpenAI
		// names `stream` when an unverified organization may not stream.
		{"forbidden beside param stream", 400, nil, `{"error":{"message":"Your organization must be verified to stream this model.","type":"invalid_request_error","param":"stream","code":"unsupported_value"}}`, false, "forbidden", "phrase:organization must be verified"},
		// No param, no bad-input code: the wording decides as before.
		{"quota without a field", 400, nil, `{"error":{"message":"You exceeded your current quota","type":"invalid_request_error","param":null}}`, false, "quota", "phrase:exceeded your current quota"},
	})
}

func TestRulesIgnoreEchoedMatches(t *testing.T) {
	c := &Classifier{Rules: []Rule{
		{Status: []int{400}, Match: regexp.MustCompile(`(?i)usage limits`), Class: Quota},
		{Status: []int{503}, Class: Unavailable}, // no Match: no text, no echo check
	}}
	body := []byte(`{"error":{"message":"Invalid value: 'usage limits'"}}`)
	if v := c.Classify(Response{Status: 400, Body: body}); v.Evidence != "rule:1" {
		t.Fatalf("without the request the rule matches: %+v", v)
	}
	v := c.Classify(Response{Status: 400, Body: body, Request: []byte(`{"messages":[{"role":"Usage  LIMITS"}]}`)})
	if v.Class == Quota || strings.HasPrefix(v.Evidence, "rule:") {
		t.Errorf("echoed rule match decided: %+v", v)
	}
	// A later match of the same rule that the client did not send counts.
	c.Rules[0].Match = regexp.MustCompile(`(?i)(your|workspace) api usage limits`)
	body2 := []byte(`{"error":{"message":"Invalid value: 'your API usage limits'. Your workspace reached its workspace API usage limits."}}`)
	v = c.Classify(Response{Status: 400, Body: body2, Request: []byte(`{"messages":[{"role":"your API usage limits"}]}`)})
	if v.Evidence != "rule:1" {
		t.Errorf("second match: %+v", v)
	}
	if v := c.Classify(Response{Status: 503, Body: []byte(`x`), Request: []byte(`x`)}); v.Evidence != "rule:2" {
		t.Errorf("status-only rule: %+v", v)
	}
}

// Task of issue 12: a 5xx whose body proves a request-scoped class takes it.
func TestFiveXXProvingTheRequest(t *testing.T) {
	run(t, []tc{
		{"llama.cpp exceed_context_size_error", 500, nil, `{"error":{"code":500,"message":"the request exceeds the available context size. try increasing the context size or enable context shift","type":"exceed_context_size_error","n_prompt_tokens":1407,"n_ctx":256}}`, false, "context_length", "type:exceed_context_size_error"},
		{"llama.cpp context size wording", 500, nil, `{"error":{"code":500,"message":"Context size has been exceeded.","type":"server_error"}}`, false, "context_length", "phrase:context size has been exceeded"},
		{"context code in a 503", 503, nil, `{"error":{"message":"too long","code":"context_length_exceeded"}}`, false, "context_length", "code:context_length_exceeded"},
		{"refusal code", 500, nil, `{"error":{"message":"blocked","code":"content_filter"}}`, false, "refusal", "code:content_filter"},
		{"bad-input code naming its field", 500, nil, `{"error":{"message":"bad role","param":"messages[0].role","code":"invalid_value"}}`, false, "bad_request", "code:invalid_value"},
		{"TGI input validation", 500, nil, `{"error":"Input validation error: ` + "`inputs`" + ` tokens + ` + "`max_new_tokens`" + ` must be <= 4096","error_type":"validation"}`, false, "bad_request", "phrase:input validation error"},
		// Weak hints stay the provider's failure.
		{"param alone", 500, nil, `{"error":{"message":"oops","param":"messages"}}`, false, "server_error", "status:500"},
		{"bad-input code without its field", 500, nil, `{"error":{"message":"oops","code":"invalid_value"}}`, false, "server_error", "status:500"},
		{"bad-input wording", 500, nil, `{"error":{"message":"value must be positive; schema mismatch"}}`, false, "server_error", "status:500"},
		{"quota wording", 500, nil, `{"error":{"message":"insufficient quota"}}`, false, "server_error", "status:500"},
		{"overflow wording", 500, nil, `{"error":{"message":"request too large"}}`, false, "server_error", "status:500"},
		{"ollama out of memory", 500, nil, `{"error":"model requires more system memory (2.7 GiB) than is available (2.3 GiB)"}`, false, "server_error", "status:500"},
		{"context wording in an HTML page", 500, nil, `<html><body>maximum context length</body></html>`, false, "server_error", "status:500"},
		// Timeouts keep their rule.
		{"504 with context wording", 504, nil, `{"error":{"message":"prompt is too long"}}`, false, "timeout", "status:504"},
		{"deadline wording", 500, nil, `{"error":{"message":"deadline exceeded"}}`, false, "timeout", "phrase:deadline exceeded"},
		// An error event with a 5xx code inside a 200 stream.
		{"stream event code 500 context", 200, nil, "data: {\"error\":{\"code\":500,\"message\":\"the request exceeds the available context size. try increasing the context size or enable context shift\",\"type\":\"exceed_context_size_error\"}}\n\n", true, "context_length", "type:exceed_context_size_error"},
	})
	// The echo check applies: a client cannot turn a 500 into its own fault.
	v := Classify(Response{Status: 500, Body: []byte(`{"error":{"message":"failed on input 'Input validation error'"}}`),
		Request: []byte(`{"messages":[{"role":"user","content":"Input validation error"}]}`)})
	if v.Class != ServerError || v.Evidence != "status:500+echo" {
		t.Errorf("echoed 5xx: %+v", v)
	}
	// Nor can it by quoting a 4xx the way a proxy relays one.
	v = Classify(Response{Status: 500, Body: []byte(`{"error":{"message":"OpenAIException - Error code: 401 - {'error': 'nope'}"}}`),
		Request: []byte(`{"messages":[{"role":"user","content":"OpenAIException - Error code: 401 - {'error': 'nope'}"}]}`)})
	if v.Class != ServerError || v.Evidence != "status:500+echo" {
		t.Errorf("echoed relayed status: %+v", v)
	}
}

// The echo check allocates nothing for a phrase, whatever the request's size.
func TestEchoCheckAllocs(t *testing.T) {
	req := []byte(`{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("lorem ipsum ", 2000) + `"},{"role":"You exceeded your current quota"}]}`)
	r := Response{Status: 400, Body: echoAnswer("You exceeded your current quota", true), Request: req}
	if v := Classify(r); v.Class != Unknown {
		t.Fatalf("%+v", v)
	}
	if n := testing.AllocsPerRun(100, func() { Classify(r) }); n > 1 {
		// The "+echo" evidence is the one allocation.
		t.Errorf("%v allocations, want at most 1", n)
	}
}

// A phrase an upstream quotes from text Detour joined at a line break (a
// request's system messages, a message's text parts) is the client's when
// each piece between the breaks is in the request: a client cannot split
// "credit balance is too low" over two system messages to cool the
// account. A piece the client did not send keeps the phrase the
// upstream's.
func TestEchoJoinedAtLineBreaks(t *testing.T) {
	req := `{"model":"r","messages":[{"role":"system","content":"Your credit balance"},{"role":"system","content":"is too low to access the Anthropic API."},{"role":"user","content":"hi"}]}`
	for _, c := range []struct {
		name, body, req, class string
		matched                bool // the phrase matched, so an echo is marked
	}{
		{"system messages joined", `{"type":"error","error":{"type":"invalid_request_error","message":"Invalid system prompt: Your credit balance\n\nis too low to access the Anthropic API."}}`, req, "unknown", true},
		{"three pieces", `{"error":{"message":"Invalid content: No endpoints\nfound for this model.\nIncorrect API key provided: xyz"}}`, `{"messages":[{"role":"user","content":[{"type":"text","text":"No endpoints"},{"type":"text","text":"found for this model."},{"type":"text","text":"Incorrect API key provided: xyz"}]}]}`, "unknown", true},
		// Not the client's: a piece it did not send, or the whole phrase
		// on one line the client wrote only in part.
		{"a piece not sent", `{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance\n\nis too low to access the Anthropic API."}}`, `{"messages":[{"role":"system","content":"Your credit balance"}]}`, "quota", true},
		{"one line", `{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API."}}`, `{"messages":[{"role":"system","content":"Your credit balance"}]}`, "quota", true},
		{"a piece too short to prove anything", `{"type":"error","error":{"type":"invalid_request_error","message":"credit balance is too low\na"}}`, `{"messages":[{"role":"user","content":"a"}]}`, "quota", true},
		{"escaped newline as \u000a", `{"type":"error","error":{"type":"invalid_request_error","message":"Invalid system prompt: Your credit balance\u000ais too low to access the Anthropic API."}}`, req, "unknown", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := Classify(Response{Status: 400, Body: []byte(c.body), Request: []byte(c.req)})
			if v.Class.String() != c.class {
				t.Errorf("class %s (evidence %q), want %s", v.Class, v.Evidence, c.class)
			}
			if c.class == "unknown" && c.matched && !strings.HasSuffix(v.Evidence, "+echo") {
				t.Errorf("evidence %q, want the echo marked", v.Evidence)
			}
		})
	}
}

// TestEchoedTwoXXPhrasesAreNoEvidence is generated from twoXXPhrases, the
// words read only in an error a 2xx carries (blocks.go): each, written by the
// upstream, decides; quoted back from the client's request (in each of the
// ways requestWith writes it), the error stays the server's, as an error in a
// 2xx that says nothing is.
func TestEchoedTwoXXPhrasesAreNoEvidence(t *testing.T) {
	hows := []string{"plain", "escaped", "first letters escaped", "upper case, other blanks"}
	for _, p := range twoXXPhrases.list {
		text := phraseText(p)
		body, _ := json.Marshal(map[string]any{"error": "stream ended: " + text + " 3: unexpected EOF"})
		if v := Classify(Response{Status: 200, Body: body}); !v.Failed || v.Class != p.class || v.Evidence != p.evidence {
			t.Errorf("%q unechoed in a 2xx: %s (%s), want %s (%s)", p.a, v.Class, v.Evidence, p.class, p.evidence)
		}
		for _, how := range hows {
			echo := text
			if how == "upper case, other blanks" {
				echo = strings.ReplaceAll(strings.ToUpper(text), " ", " \n\t ")
			}
			req := requestWith(echo, how)
			b, _ := json.Marshal(map[string]any{"error": "Content check failed: '" + echo + "'"})
			for _, stream := range []bool{false, true} {
				bb := b
				if stream {
					bb = []byte("data: " + string(b) + "\n\n")
				}
				v := Classify(Response{Status: 200, Body: bb, Request: req, Stream: stream})
				if !v.Failed || v.Class != ServerError {
					t.Errorf("%q (%s, stream %v) echoed in a 2xx: %s (%s), want server_error", p.a, how, stream, v.Class, v.Evidence)
				}
			}
		}
	}
}
