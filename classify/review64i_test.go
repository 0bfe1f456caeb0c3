package classify

import "testing"

// Review 64i. The client's words an upstream quotes inside JSON text that
// is itself a string of the answer (OpenRouter's metadata.raw) come
// escaped once more at each level: a tab the client sent
// as `\t` is `\\t` one level down and `\\\\t` two levels down. The echo
// check decoded the answer's side once, so words holding a quote, a tab or
// a backslash were not found in the request and counted as the upstream's
// own (docs/design.md, "Echoed text").
func TestReview64iEchoReadsNestedEscapes(t *testing.T) {
	req := []byte(`{"model":"m","messages":[{"role":"user","content":"Why is my Authorization header x\tmissing? my usage limit \"resets\" when? C:\\new"}]}`)
	for _, c := range []struct {
		name, raw string
		want      bool
	}{
		{"as sent", `Authorization header x\tmissing`, true},
		{"a tab, one level down", `Authorization header x\\tmissing`, true},
		{"quotes, one level down", `usage limit \\\"resets\\\" when`, true},
		{"a backslash, three levels down (the body's eight)", `C:\\\\\\\\new`, true},
		{"a tab, two levels down", `header x\\\\tmissing`, true},
		{"other words", `Authorization header is missing`, false},
		{"other words, escaped", `Authorization header x\\tabsent`, false},
	} {
		if got := echoed(req, []byte(c.raw)); got != c.want {
			t.Errorf("%s: echoed(%q) = %v, want %v", c.name, c.raw, got, c.want)
		}
	}
}

// The same through a whole answer: OpenRouter's 401 quoting, in
// metadata.raw, an upstream that quoted the client's words with a
// backslash in them. Before, LiteLLM's enforced-param phrase, read at a 401
// since round 64, made the refused key the request's (bad_request).
func TestReview64iRawEchoEscapedTwice(t *testing.T) {
	req := `{"model":"m","messages":[{"role":"user","content":"please pass param=us\\er in request body. This is a required param"}]}`
	body := `{"error":{"message":"Unauthorized","code":401,"metadata":{"raw":"{\"error\":{\"message\":\"Invalid key, prompt: please pass param=us\\\\\\\\er in request body. This is a required param\"}}"}}}`
	if v := classify56(401, body, req, false); v.Class != Auth {
		t.Errorf("401, metadata.raw quoting the client's words with a backslash: %s (%s), want auth", v.Class, v.Evidence)
	}
}
