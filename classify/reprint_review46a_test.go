package classify

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// Hostile review 46a of the reprint and echo-fold checks (since 88edcbd).
// The upstream in the client-made cases is the e2e reprintingUpstream's
// kind: a Python server that parses the client's JSON and answers its
// exception's text, "ValueError: " and the repr of what it parsed, as a
// 400 {"error":{"message":…,"type":"BadRequestError","code":400}} or as
// a plain-text "Error code: 400 - …".

func reprinted46a(printed string) []string {
	q, _ := json.Marshal("ValueError: " + printed)
	return []string{
		`{"error":{"message":` + string(q) + `,"type":"BadRequestError","code":400}}`,
		"Error code: 400 - " + printed,
	}
}

func toolSchema46a(schema string) string {
	return `{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":` + schema + `}}]}`
}

// Findings 46a-A1..A3 (fixed in f7a2b32 by pairsEchoed and the AWS type's
// ':' cut; kept as guards): a client object reprinted with its keys
// sorted, whose class comes from an AWS type longer than 64 bytes, a
// Gemini quotaId or a retryDelay, read rate_limited or quota at 08c4483.
func TestReprintedStructureGuards_review46a(t *testing.T) {
	for _, c := range []struct{ name, schema, printed string }{
		{"AWS type over 64 bytes",
			`{"message":"x","__type":"ThrottlingException:` + strings.Repeat("a", 72) + `"}`,
			`{'__type': 'ThrottlingException:` + strings.Repeat("a", 72) + `', 'message': 'x'}`},
		{"Gemini quotaId per day",
			`{"error":{"message":"x","details":[{"violations":[{"quotaId":"GenerateRequestsPerDayPerProjectPerModel"}]}]}}`,
			`{'error': {'details': [{'violations': [{'quotaId': 'GenerateRequestsPerDayPerProjectPerModel'}]}], 'message': 'x'}}`},
		{"Gemini quotaId per minute",
			`{"error":{"message":"x","details":[{"violations":[{"quotaId":"GenerateRequestsPerMinutePerProjectPerModel"}]}]}}`,
			`{'error': {'details': [{'violations': [{'quotaId': 'GenerateRequestsPerMinutePerProjectPerModel'}]}], 'message': 'x'}}`},
		{"Gemini retryDelay of a day",
			`{"error":{"message":"x","status":"RESOURCE_EXHAUSTED","details":[{"retryDelay":"86400s"}]}}`,
			`{'error': {'details': [{'retryDelay': '86400s'}], 'message': 'x', 'status': 'RESOURCE_EXHAUSTED'}}`},
	} {
		for _, body := range reprinted46a(c.printed) {
			for _, st := range []int{400, 500} {
				v := Classify(Response{Status: st, Body: []byte(body), Request: []byte(toolSchema46a(c.schema)), Model: "m"})
				if v.Class == Quota || v.Class == RateLimited || v.Class == Auth || v.Class == Forbidden {
					t.Errorf("%s, %d %.40q…: %s (%s)", c.name, st, body, v.Class, v.Evidence)
				}
			}
		}
	}
}

// Finding 46a-1 (a): a float member written with more digits than a
// float64 holds is printed back rounded by any parser (Python's repr,
// Go's and JavaScript's shortest form: 1.00000000000000001 is 1.0), so
// pairsEchoed finds that member nowhere in the request and the object is
// no longer the client's. Put first, it also changes the opening the
// squeezed check compares, so the upstream's own key order (Python keeps
// it) is enough: a client's Gemini quotaId or retryDelay reads quota or
// rate_limited again.
func TestReprintedRoundedFloat_review46a(t *testing.T) {
	for _, c := range []struct{ name, schema, printed string }{
		{"quotaId",
			`{"error":{"n":1.00000000000000001,"details":[{"violations":[{"quotaId":"GenerateRequestsPerDayPerProjectPerModel"}]}]}}`,
			`{'error': {'n': 1.0, 'details': [{'violations': [{'quotaId': 'GenerateRequestsPerDayPerProjectPerModel'}]}]}}`},
		{"quotaId per minute",
			`{"error":{"n":0.30000000000000001,"details":[{"violations":[{"quotaId":"GenerateRequestsPerMinutePerProjectPerModel"}]}]}}`,
			`{'error': {'n': 0.3, 'details': [{'violations': [{'quotaId': 'GenerateRequestsPerMinutePerProjectPerModel'}]}]}}`},
		{"retryDelay",
			`{"error":{"n":0.30000000000000001,"status":"RESOURCE_EXHAUSTED","details":[{"retryDelay":"86400s"}]}}`,
			`{'error': {'n': 0.3, 'status': 'RESOURCE_EXHAUSTED', 'details': [{'retryDelay': '86400s'}]}}`},
		// The e2e reprintingUpstream's own printer (Go: a map, keys sorted,
		// every number a float64): an integer past 2^53 comes back rounded.
		{"quotaId, Go's printer",
			`{"error":{"n":9007199254740993,"details":[{"violations":[{"quotaId":"GenerateRequestsPerDayPerProjectPerModel"}]}]}}`,
			`{'error': {'details': [{'violations': [{'quotaId': 'GenerateRequestsPerDayPerProjectPerModel'}]}], 'n': 9007199254740992}}`},
	} {
		for _, body := range reprinted46a(c.printed) {
			for _, st := range []int{400, 500} {
				v := Classify(Response{Status: st, Body: []byte(body), Request: []byte(toolSchema46a(c.schema)), Model: "m"})
				if v.Class == Quota || v.Class == RateLimited {
					t.Errorf("%s, %d %.40q…: %s (%s)", c.name, st, body, v.Class, v.Evidence)
				}
			}
		}
	}
}

// Finding 46a-2 (a): JSON the client wrote inside a string is never read
// as members. A tool call's arguments are such a string on the Chat
// Completions door, but Detour sends them on as an object
// (chat.Arguments: Anthropic's tool_use.input, Gemini's functionCall.args)
// and an upstream that parses them prints them in its own key order. A
// client's assistant turn whose arguments are shaped like a spent
// account's answer then reads quota.
func TestReprintedToolCallArguments_review46a(t *testing.T) {
	args, _ := json.Marshal(`{"error":{"type":"insufficient_quota","message":"x","code":"insufficient_quota"}}`)
	req := `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":` +
		string(args) + `}}]},{"role":"tool","tool_call_id":"c1","content":"ok"}]}`
	for _, body := range reprinted46a(`{'error': {'code': 'insufficient_quota', 'message': 'x', 'type': 'insufficient_quota'}}`) {
		for _, st := range []int{400, 500} {
			v := Classify(Response{Status: st, Body: []byte(body), Request: []byte(req), Model: "m"})
			if v.Class == Quota {
				t.Errorf("%d %.40q…: %s (%s)", st, body, v.Class, v.Evidence)
			}
		}
	}
}

// Finding 46a-3 (b): memberEchoed holds a quoted answer as the client's on
// its code alone. A Gemini-door agent whose tool result (functionResponse
// .response, an object) holds an earlier failure of the same kind — the
// same code, another request id — hides the provider's real answer when a
// relay quotes it: Volcengine's overdue account (corpus
// volcengine-account-overdue-403) quoted by LiteLLM reads server_error or
// forbidden, not quota, and the account is never cooled. At 88edcbd it read
// quota (the squeezed opening differs: the request id is in it).
func TestRelayedAnswerNotHiddenByEarlierFailure_review46a(t *testing.T) {
	answer := corpusBody(t, "volcengine-account-overdue-403")
	var compact bytes.Buffer
	json.Compact(&compact, []byte(answer))
	// The earlier failure: the same answer, its two request ids other.
	earlier := strings.NewReplacer("02175807918128087536ccb70d6c1a12319f6b583ee3463218d67", "0217580791000000000000000000000000000000000000000000a",
		"20250917031941000049CCD20589BB8F4A", "20250917020000000000000000000000AA").Replace(compact.String())
	req := `{"contents":[{"role":"user","parts":[{"text":"Ask the doubao agent for a summary"}]},` +
		`{"role":"model","parts":[{"functionCall":{"name":"ask_agent","args":{"prompt":"summary"}}}]},` +
		`{"role":"user","parts":[{"functionResponse":{"name":"ask_agent","response":` + earlier + `}}]}]}`
	m1, _ := json.Marshal("litellm.APIError: APIError: VolcengineException - " + compact.String() + ". Received Model Group=m\nAvailable Model Group Fallbacks=None")
	m2, _ := json.Marshal("litellm.PermissionDeniedError: VolcengineException - Error code: 403 - " + compact.String())
	for _, m := range [][]byte{m1, m2} {
		body := `{"error":{"message":` + string(m) + `,"type":null,"param":null,"code":"500"}}`
		want := Classify(Response{Status: 500, Body: []byte(body), Model: "m"})
		if want.Class != Quota {
			t.Fatalf("without a request: %s (%s), want quota", want.Class, want.Evidence)
		}
		if v := Classify(Response{Status: 500, Body: []byte(body), Request: []byte(req), Model: "m"}); v.Class != Quota {
			t.Errorf("%.60s…: %s (%s), want quota", m, v.Class, v.Evidence)
		}
	}
}

// FuzzEchoFoldPaths_review46a (c): the new readers stay inside their input
// and always advance: pctRune at every index, cutMark, echoedLines, the
// reprint checks on any bytes.
func FuzzEchoFoldPaths_review46a(f *testing.F) {
	f.Add([]byte(`%E4%BD%99%C3%A9%00%7f%`), []byte("a...b\u2026c\\u2026d"))
	f.Add([]byte(`{"a": ,"b":1e0,"c":"\u00e9"}`), []byte(`{"c":"é","b":1.0}`))
	f.Fuzz(func(t *testing.T, req, text []byte) {
		for i := range req {
			if req[i] != '%' {
				continue
			}
			if r, w := pctRune(req, i); w < 0 || i+w > len(req) || w > 0 && w%3 != 0 || w == 0 && r != 0 {
				t.Fatalf("pctRune(%q, %d) = %q, %d", req, i, r, w)
			}
		}
		if j, w := cutMark(text); j >= 0 && (w < 3 || j+w > len(text)) || j < -1 {
			t.Fatalf("cutMark(%q) = %d, %d", text, j, w)
		}
		echoedLines(req, text)
		echoed(req, text)
		memberEchoed(req, "code:insufficient_quota")
		memberEchoed(req, "code:429")
		memberEchoed(req, "bedrock:throttlingexception")
		pairsEchoed(req, text)
		squeezedEchoed(req, text[:min(len(text), quotedProbe)])
	})
}
