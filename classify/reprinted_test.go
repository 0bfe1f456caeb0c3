package classify

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// An upstream that parsed the client's JSON (a tool's schema, metadata) and
// printed it again, spaced or compact, as JSON or as a Python repr, after
// an exception's name, quotes the client: what it prints is no answer of
// a provider (docs/design.md, "Quoted answers"). Before, the echo check
// compared the bytes only, so a client that wrote its object compactly,
// printed back spaced or as a repr, had its 400 read as quota (the account
// cooled, the operator paged).
func TestReprintedClientJSONIsNoQuotedAnswer(t *testing.T) {
	obj := map[string]string{
		"compact": `{"error":{"code":"insufficient_quota","type":"insufficient_quota","message":"x"}}`,
		"spaced":  `{"error": {"code": "insufficient_quota", "type": "insufficient_quota", "message": "x"}}`,
		"pretty":  "{\n  \"error\": {\n    \"code\": \"Insufficient_Quota\",\n    \"type\": \"insufficient_quota\",\n    \"message\": \"x\"\n  }\n}",
	}
	printed := map[string]string{
		"spaced JSON":    `{"error":{"message":"ValueError: {\"error\": {\"code\": \"insufficient_quota\", \"type\": \"insufficient_quota\", \"message\": \"x\"}}"}}`,
		"compact JSON":   `{"error":{"message":"ValueError: {\"error\":{\"code\":\"insufficient_quota\",\"type\":\"insufficient_quota\",\"message\":\"x\"}}"}}`,
		"repr":           `{"error":{"message":"ValueError: {'error': {'code': 'insufficient_quota', 'type': 'insufficient_quota', 'message': 'x'}}"}}`,
		"repr, sdk lead": `{"detail":"Error code: 400 - {'error': {'code': 'insufficient_quota', 'type': 'insufficient_quota', 'message': 'x'}}"}`,
	}
	for on, o := range obj {
		for _, req := range []string{
			`{"model":"m","tools":[{"type":"function","function":{"name":"f","parameters":` + o + `}}]}`,
			`{"model":"m","metadata":` + o + `}`,
		} {
			for pn, body := range printed {
				for _, st := range []int{400, 500, 503} {
					v := Classify(Response{Status: st, Body: []byte(body), Request: []byte(req), Model: "m"})
					if v.Class == Quota {
						t.Errorf("%s object printed as %s, %d: %s (%s)", on, pn, st, v.Class, v.Evidence)
					}
				}
			}
		}
	}
	// A request that holds other JSON leaves the relayed answer read.
	req := `{"model":"m","metadata":{"error":"none","code":"other"}}`
	if v := Classify(Response{Status: 500, Body: []byte(printed["repr, sdk lead"]), Request: []byte(req), Model: "m"}); v.Class != Quota {
		t.Errorf("the relay's own answer: %s (%s), want quota", v.Class, v.Evidence)
	}
}

// FuzzSqueezedEchoed: the one-pass search finds what decoding the
// request's \u escapes, squeezing both and searching finds.
func FuzzSqueezedEchoed(f *testing.F) {
	f.Add([]byte(`{"a": {"b": "aab"}}`), []byte(`{"a":{"b":"aab"}}`))
	f.Add([]byte(`aaab aaab aaaab`), []byte(`aaaab`))
	f.Add([]byte(`{"\u0065rror": "it\u0027s"}`), []byte(`{"error":"it's"}`))
	f.Fuzz(func(t *testing.T, req, probe []byte) {
		probe = probe[:min(len(probe), quotedProbe)]
		var dec []byte
		for i := 0; i < len(req); i++ {
			if req[i] == '\\' && i+1 < len(req) && req[i+1] == 'u' {
				if r, w, ok := escapedRune(req, i, `\`); ok {
					dec = utf8.AppendRune(dec, r)
					i += w - 1
					continue
				}
			}
			dec = append(dec, req[i])
		}
		n := squeeze(nil, probe)
		want := len(n) > 0 && bytes.Contains(squeeze(nil, dec), n)
		if got := squeezedEchoed(req, probe); got != want {
			t.Fatalf("squeezedEchoed(%q, %q) = %t, want %t", req, probe, got, want)
		}
	})
}

// The member that decided a quoted object's class, found in the request's
// own JSON, holds the object as the client's whatever order or spelling
// the upstream printed it in; the same member as text inside one of the
// request's strings (a conversation quoting an earlier failure) does not,
// and a number counts only where it is named as a code is.
func TestMemberEchoed(t *testing.T) {
	for _, c := range []struct {
		req, ev string
		want    bool
	}{
		{`{"tools":[{"parameters":{"error":{"type":"x","code":"insufficient_quota"}}}]}`, "code:insufficient_quota", true},
		{`{"metadata":{"c" : "INSUFFICIENT_QUOT\u0041"}}`, "code:insufficient_quota", true},
		{`{"m":{"code":"insufficient_quota_error"}}`, "code:insufficient_quota", true}, // read as the scanner reads it: the stem
		{`{"messages":[{"content":"{\"error\":{\"code\":\"insufficient_quota\"}}"}]}`, "code:insufficient_quota", false},
		{`{"messages":[{"content":"Error code: 429 - {'error': {'code': 'insufficient_quota'}}"}]}`, "code:insufficient_quota", false},
		{`{"m":{"code":"rate_limit_exceeded"}}`, "code:insufficient_quota", false},
		{`{"m":{"code": 429}}`, "code:429", true},
		{`{"max_tokens": 429}`, "code:429", false},
		{`{"m":{"code":"429"}}`, "code:429", false},
		{`{"m":{"reason":"API_KEY_INVALID"}}`, "gemini:reason=API_KEY_INVALID", true},
		{`{"m":{"base_resp":{"status_code":1008}}}`, "minimax:base_resp=1008", true},
		{`{"m":{"code":"insufficient_quota"}}`, "phrase:exceeded your current quota", false},
		{`{"m":"unterminated`, "code:insufficient_quota", false},
	} {
		if got := memberEchoed([]byte(c.req), c.ev); got != c.want {
			t.Errorf("memberEchoed(%s, %s) = %t, want %t", c.req, c.ev, got, c.want)
		}
	}
}

// A client's messages printed back by an upstream after an exception's
// name, its keys in the upstream's order, are no relayed answer: the
// code the client wrote into a message is its own.
func TestReprintedMessagesNotRead(t *testing.T) {
	req := `{"model":"m","messages":[{"role":"user","content":"hi","error":{"code":"insufficient_quota"}}]}`
	m, _ := json.Marshal(`litellm.APIError: APIError: XException - [{"role": "user", "error": {"code": "insufficient_quota"}, "content": "hi"}]`)
	for _, st := range []int{400, 500} {
		v := Classify(Response{Status: st, Body: []byte(`{"error":{"message":` + string(m) + `,"type":null,"param":null,"code":"` + strconv.Itoa(st) + `"}}`), Request: []byte(req), Model: "m"})
		if v.Class == Quota {
			t.Errorf("%d: %s (%s)", st, v.Class, v.Evidence)
		}
	}
}

// Every scalar member of a quoted object found among the request's own
// members, whatever the order, escapes and number spelling, makes it the
// client's; one member it lacks, or the members only as text inside a
// string, does not.
func TestPairsEchoed(t *testing.T) {
	obj := `{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"retryDelay":"86400s"}]}}`
	for _, c := range []struct {
		req  string
		want bool
	}{
		{`{"tools":[{"parameters":{"error":{"details":[{"retryDelay":"86400s"}],"status":"RESOURCE_EXHAUSTED","code":429}}}]}`, true},
		{`{"p":{"status":"resource_exhausted","retry\u0044elay":"86400s","code":4.29e2}}`, true},
		{`{"p":{"status":"RESOURCE_EXHAUSTED","retryDelay":"86400s","code":430}}`, false},
		{`{"p":{"status":"RESOURCE_EXHAUSTED","retryDelay":"86400s","code":"429"}}`, false},
		{`{"p":{"status":"RESOURCE_EXHAUSTED","code":429}}`, false},
		{`{"messages":[{"content":"{\"error\":{\"code\":429,\"status\":\"RESOURCE_EXHAUSTED\",\"details\":[{\"retryDelay\":\"86400s\"}]}}"}]}`, false},
		{`{"p":{"status":"RESOURCE_EXHAUSTED","retryDelay":"86400s","code":429`, true}, // cut: the members it holds still count
	} {
		if got := pairsEchoed([]byte(c.req), []byte(obj)); got != c.want {
			t.Errorf("pairsEchoed(%s) = %t, want %t", c.req, got, c.want)
		}
	}
	if pairsEchoed([]byte(`{"a":{}}`), []byte(`{"a":{}}`)) {
		t.Error("an object with no scalar member read as echoed")
	}
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"1", "1.0", true}, {"1e0", "1.0", true}, {"10e-1", "1", true}, {"0.05", "5E-2", true},
		{"100", "1e2", true}, {"-0", "0.0", true}, {"-1", "1", false}, {"1", "1.5", false},
		{"12", "21", false}, {".", "0", false}, {"1e", "1", false}, {"-", "0", false},
	} {
		if got := numberEq([]byte(c.a), []byte(c.b)); got != c.want {
			t.Errorf("numberEq(%s, %s) = %t, want %t", c.a, c.b, got, c.want)
		}
	}
}

// review46a: a client's Gemini-shaped error object (a daily quotaId, a
// day's retryDelay) or a long AWS type, printed back by an upstream with
// its keys in another order, is no answer of the provider's.
func TestReprintedStructuredDetails(t *testing.T) {
	for _, c := range []struct{ name, schema, printed string }{
		{"quotaId",
			`{"error":{"status":"RESOURCE_EXHAUSTED","message":"x","code":429,"details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerDayPerProjectPerModel-FreeTier"}]}]}}`,
			`{'error': {'code': 429, 'details': [{'@type': 'type.googleapis.com/google.rpc.QuotaFailure', 'violations': [{'quotaId': 'GenerateRequestsPerDayPerProjectPerModel-FreeTier'}]}], 'message': 'x', 'status': 'RESOURCE_EXHAUSTED'}}`},
		{"retryDelay",
			`{"error":{"status":"RESOURCE_EXHAUSTED","message":"x","code":429,"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"86400s"}]}}`,
			`{'error': {'code': 429, 'details': [{'@type': 'type.googleapis.com/google.rpc.RetryInfo', 'retryDelay': '86400s'}], 'message': 'x', 'status': 'RESOURCE_EXHAUSTED'}}`},
		{"a long AWS type",
			`{"message":"x","__type":"ThrottlingException:` + strings.Repeat("a", 72) + `"}`,
			`{'__type': 'ThrottlingException:` + strings.Repeat("a", 72) + `', 'message': 'x'}`},
	} {
		req := `{"model":"m","tools":[{"type":"function","function":{"name":"f","parameters":` + c.schema + `}}]}`
		q, _ := json.Marshal("ValueError: " + c.printed)
		for _, body := range []string{`{"error":{"message":` + string(q) + `,"type":"BadRequestError","code":400}}`, "Error code: 400 - " + c.printed} {
			for _, st := range []int{400, 500} {
				v := Classify(Response{Status: st, Body: []byte(body), Request: []byte(req), Model: "m"})
				if v.Class == Quota || v.Class == RateLimited {
					t.Errorf("%s, %d %.40q: %s (%s)", c.name, st, body, v.Class, v.Evidence)
				}
			}
		}
	}
}

// The reprint checks allocate nothing: a quoted answer checked against a
// request that holds its members in another order.
func TestReprintChecksAllocateNothing(t *testing.T) {
	req := []byte(`{"model":"m","tools":[{"type":"function","function":{"name":"f","parameters":{"error":{"type":"insufficient_quota","n":1e0,"message":"x","code":"insufficient_quota"}}}}]}`)
	q, _ := json.Marshal("ValueError: {'error': {'code': 'insufficient_quota', 'message': 'x', 'n': 1.0, 'type': 'insufficient_quota'}}")
	r := Response{Status: 500, Body: []byte(`{"error":{"message":` + string(q) + `,"type":"BadRequestError","code":400}}`), Request: req, Model: "m"}
	if v := Classify(r); v.Class == Quota {
		t.Fatalf("%s (%s)", v.Class, v.Evidence)
	}
	if n := testing.AllocsPerRun(50, func() { Classify(r) }); n != 0 {
		t.Errorf("%v allocations", n)
	}
	obj := []byte(`{"error":{"code":429,"n":1.0,"status":"RESOURCE_EXHAUSTED"}}`)
	if n := testing.AllocsPerRun(50, func() { pairsEchoed(req, obj); memberEchoed(req, "code:insufficient_quota") }); n != 0 {
		t.Errorf("pairsEchoed, memberEchoed: %v allocations", n)
	}
}

// FuzzReprintChecks: the reprint checks read any bytes, as an upstream or
// a client may send them, without a panic, and an object is always echoed
// by a request that is itself.
func FuzzReprintChecks(f *testing.F) {
	f.Add([]byte(`{"a": ,"b":1}`), []byte(`{"a":1}`), "code:insufficient_quota")
	f.Add([]byte(`{"error":{"code":429,"n":1.0}}`), []byte(`{"x":{"n":1e0,"code":429}}`), "code:429")
	f.Add([]byte(`{"__type":"ThrottlingException:x"}`), []byte(`{"__type":"ThrottlingException:y"}`), "bedrock:throttlingexception")
	f.Fuzz(func(t *testing.T, obj, req []byte, ev string) {
		pairsEchoed(req, obj)
		memberEchoed(req, ev)
		n := 0
		forMembers(obj, func(_, v []byte, str bool) bool {
			if !str && v[0] != '{' && v[0] != '[' {
				n++
			}
			return true
		})
		if n > 0 && !pairsEchoed(obj, obj) {
			t.Fatalf("pairsEchoed(%q, itself) = false", obj)
		}
	})
}
