package classify

import (
	"bytes"
	"encoding/json"
	"strconv"
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
