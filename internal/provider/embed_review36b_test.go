package provider

import (
	"bytes"
	"encoding/json"
	"testing"
)

// oldParseEmbeddingsInput is the reading of "input" before ba835dd (decoded
// whole with encoding/json), which the walk in place was to keep.
func oldParseEmbeddingsInput(in []byte) (texts []string, tokens bool, ok bool) {
	var one string
	if json.Unmarshal(in, &one) == nil {
		return []string{one}, false, true
	}
	var many []json.RawMessage
	if err := json.Unmarshal(in, &many); err != nil || len(many) == 0 {
		return nil, false, false
	}
	for _, m := range many {
		m = bytes.TrimSpace(m)
		if len(m) > 0 && m[0] == '"' {
			var s string
			if json.Unmarshal(m, &s) != nil {
				return nil, false, false
			}
			texts = append(texts, s)
			continue
		}
		var n json.Number
		var toks []int
		if json.Unmarshal(m, &n) == nil || json.Unmarshal(m, &toks) == nil {
			tokens = true
			continue
		}
		return nil, false, false
	}
	if tokens && len(texts) > 0 {
		return nil, false, false
	}
	if tokens {
		texts = nil
	}
	return texts, tokens, true
}

// Review 36b: ParseEmbeddings walks "input" with rawjson now; it should
// accept and refuse what encoding/json's reading did.
func TestReview36bParseEmbeddingsReadsInputAsBefore(t *testing.T) {
	for _, in := range []string{
		`"a"`, `"\u00e9\n\"x\\"`, `"\ud800"`, "\"\xff\"", `["a", "b"]`, ` [ "a" , "b" ] `,
		`[1, 2]`, `[1.5]`, `[-0]`, `[1e3]`, `[[1,2],[3]]`, `[[]]`, `[[1.0]]`, `[[1e2]]`, `[[-1]]`,
		`[[9223372036854775807]]`, `[[123456789012345678]]`, `[[99999999999999999999]]`,
		`[null]`, `[[null]]`, `[[1,null]]`, `["a",null]`, `[true]`, `[{}]`, `[[[1]]]`, `[[1],"a"]`, `[]`,
		`{"a":1}`, `1`, `true`,
	} {
		body := []byte(`{"model":"m","input":` + in + `}`)
		wantTexts, wantTokens, wantOK := oldParseEmbeddingsInput(bytes.TrimSpace([]byte(in)))
		if bytes.Contains([]byte(in), []byte("null")) {
			// encoding/json let a null stand for a token (a no-op into an
			// int); it is no token, and OpenAI refuses it: refused now.
			wantOK = false
		}
		got, err := ParseEmbeddings(body)
		if (err == nil) != wantOK {
			t.Errorf("input %s: accepted %v (err %v), before %v", in, err == nil, err, wantOK)
			continue
		}
		if err != nil {
			continue
		}
		if got.Tokens != wantTokens || len(got.Texts) != len(wantTexts) {
			t.Errorf("input %s: %q tokens %v, before %q tokens %v", in, got.Texts, got.Tokens, wantTexts, wantTokens)
			continue
		}
		for i := range wantTexts {
			if got.Texts[i] != wantTexts[i] {
				t.Errorf("input %s: text %d %q, before %q", in, i, got.Texts[i], wantTexts[i])
			}
		}
	}
	// Duplicate and case-variant keys: encoding/json reads the last, folded.
	for body, want := range map[string]string{
		`{"input":"a","input":"b"}`: "b",
		`{"INPUT":"a"}`:             "a",
		`{"input":"a","Input":"b"}`: "b",
	} {
		got, err := ParseEmbeddings([]byte(body))
		if err != nil || len(got.Texts) != 1 || got.Texts[0] != want {
			t.Errorf("%s: %v %v, want %q", body, got, err, want)
		}
	}
}
