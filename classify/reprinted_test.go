package classify

import (
	"bytes"
	"testing"
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

// FuzzSqueezedEchoed: the one-pass search finds what squeezing both and
// searching finds.
func FuzzSqueezedEchoed(f *testing.F) {
	f.Add([]byte(`{"a": {"b": "aab"}}`), []byte(`{'a':{'b':'aab'}}`))
	f.Add([]byte(`aaab aaab aaaab`), []byte(`aaaab`))
	f.Fuzz(func(t *testing.T, req, probe []byte) {
		probe = probe[:min(len(probe), quotedProbe)]
		n := squeeze(nil, probe)
		want := len(n) > 0 && bytes.Contains(squeeze(nil, req), n)
		if got := squeezedEchoed(req, probe); got != want {
			t.Fatalf("squeezedEchoed(%q, %q) = %t, want %t", req, probe, got, want)
		}
	})
}
