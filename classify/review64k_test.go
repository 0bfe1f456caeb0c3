package classify

import (
	"bytes"
	"strings"
	"testing"
)

// Review 64k, on round 64's deeper echo check. Its first form read the
// answer's side deep from the start, while the request's side is read deep
// only where its bytes hold an escaped backslash `\\`. A client that wrote
// its backslash as `\u005c` had a request with no `\\`: the upstream
// quoting its words writes that backslash as `\\`, the answer's side
// decoded `\\t` to a tab (a blank), the request's side kept `\t`
// (backslash, t), and the two no longer met: the client's words read as
// the upstream's own. Now the first reading is as before and the deeper
// one only adds to it (deeperEchoed).
func TestReview64kEchoU005cBackslash(t *testing.T) {
	for _, c := range []struct {
		name, reqText, raw string
	}{
		{"tab escape", `Authorization header x\u005ctmissing`, `Authorization header x\\tmissing`},
		{"newline escape", `Authorization header x\u005cnmissing`, `Authorization header x\\nmissing`},
		{"escaped u", `Authorization header \u005cu0020 missing`, `Authorization header \\u0020 missing`},
		{"control: as \\\\", `Authorization header x\\tmissing`, `Authorization header x\\tmissing`},
	} {
		req := []byte(`{"model":"m","messages":[{"role":"user","content":"` + c.reqText + `"}]}`)
		if !echoed(req, []byte(c.raw)) {
			t.Errorf("%s: the client's own words %s, quoted back as %s, are not echoed", c.name, c.reqText, c.raw)
		}
	}
}

// A2. Whole answers: a 400 quoting the client's prompt with its backslash
// (OpenAI-style "Invalid value: '…'"), and LiteLLM's own-request phrase.
func TestReview64kEchoU005cWholeAnswer(t *testing.T) {
	words := `Authorization header x\u005ctmissing`
	req := `{"model":"m","messages":[{"role":"user","content":"` + words + `"}]}`
	body := `{"error":{"message":"Invalid prompt: 'Authorization header x\\tmissing'","type":"invalid_request_error"}}`
	ctrl := `{"model":"m","messages":[{"role":"user","content":"Authorization header x\\tmissing"}]}`
	for _, st := range []int{400, 403, 500} {
		v := classify56(st, body, req, false)
		vc := classify56(st, body, ctrl, false)
		t.Logf("status %d: \\u005c request: %s (%s); same words with \\\\: %s (%s)", st, v.Class, v.Evidence, vc.Class, vc.Evidence)
		if v.Class != vc.Class {
			t.Errorf("status %d: the client's words steer the class: %s (%s), with the backslash written \\\\ %s (%s)", st, v.Class, v.Evidence, vc.Class, vc.Evidence)
		}
	}
	// The refused key made the request's (bad_request): the 64i harm, back.
	words2 := `ExceededBudget: End User=x\u005cty over budget`
	req2 := `{"model":"m","messages":[{"role":"user","content":"` + words2 + `"}]}`
	body2 := `{"error":{"message":"Authentication Error, Invalid key for prompt 'ExceededBudget: End User=x\\ty over budget'","type":"auth_error","param":"None","code":401}}`
	if v := classify56(401, body2, req2, false); v.Class != Auth {
		t.Errorf("a refused key's 401 quoting the client's budget words (backslash as \\u005c): %s (%s), want auth", v.Class, v.Evidence)
	}
}

// B. Can the deeper reading of the answer make a real provider phrase
// read as echoed where the request does not hold it? The needle always
// holds the phrase's own words, so the request must too; we check a
// lossy decoding does not make a short needle.
func TestReview64kEchoDeeperRealAnswer(t *testing.T) {
	// OpenRouter's metadata.raw, two levels: the upstream's own words.
	body := `{"error":{"message":"Provider returned error","code":401,"metadata":{"raw":"{\"error\":{\"message\":\"Authorization header is\\\\tmissing\"}}"}}}`
	req := `{"model":"m","messages":[{"role":"user","content":"hello"}]}`
	v := classify56(401, body, req, false)
	t.Logf("401 metadata.raw: %s (%s)", v.Class, v.Evidence)
	if strings.Contains(v.Evidence, "echo") {
		t.Errorf("a real answer read as echoed: %s (%s)", v.Class, v.Evidence)
	}
	// A needle that deep-decodes to nothing but blanks and invisible marks.
	for _, raw := range []string{`\\\\\\\\u200b`, `\\\\\\\\t\\\\\\\\n`, `\\u00ad\\u200b`} {
		if echoed([]byte(`{"x":"a"}`), []byte(raw)) {
			t.Errorf("%s read as echoed in a request that does not hold it", raw)
		}
	}
}

// D. Allocation: a needle with backslashes, longer than maxNeedle and not.
func TestReview64kEchoAllocs(t *testing.T) {
	req := []byte(`{"model":"m","messages":[{"role":"user","content":"C:\\\\new and x\\ty"}]}`)
	for _, raw := range [][]byte{
		[]byte(`Authorization header x\\\\\\\\tmissing`),
		append(bytes.Repeat([]byte(`ab\\\\`), 100), 'z'),
	} {
		n := testing.AllocsPerRun(50, func() { echoed(req, raw) })
		t.Logf("%d bytes: %v allocs", len(raw), n)
		if len(raw) <= maxNeedle && n > 0 {
			t.Errorf("a short needle with backslashes allocates %v", n)
		}
	}
}
