package classify

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// A server's Unicode mappings, its URL decoding and its cut of a long
// value turn the client's text into a phrase's ASCII; the echo check reads
// the request through the same mappings, so the quoted phrase stays the
// client's (hostile review 45b). The controls are text the request does
// not hold in any form.
func TestEchoedThroughServerMappings(t *testing.T) {
	for _, c := range []struct {
		name, req, text string
		want            bool
	}{
		{"upper-cased long s", `{"role":"Your credit balance i\u017f too low"}`, "CREDIT BALANCE IS TOO LOW", true},
		{"upper-cased long s, raw", `{"role":"Your credit balance iſ too low"}`, "CREDIT BALANCE IS TOO LOW", true},
		{"lower-cased Kelvin sign", `{"role":"You didn't provide an API \u212Aey."}`, "you didn't provide an api key", true},
		{"lower-cased Kelvin sign, raw", "{\"role\":\"You didn't provide an API \u212Aey.\"}", "you didn't provide an api key", true},
		{"dotless i upper-cased", `{"role":"ınsufficient balance"}`, "INSUFFICIENT BALANCE", true},
		{"upper-cased sharp s", `{"role":"Your credit balance is too low, Straße"}`, "CREDIT BALANCE IS TOO LOW, STRASSE", true},
		{"upper-cased ligature", "{\"role\":\"insu\ufb03cient balance\"}", "INSUFFICIENT BALANCE", true},
		{"NFKC ligature, escaped", `{"role":"insu\ufb03cient balance"}`, "insufficient balance", true},
		{"NFKC fullwidth", `{"role":"Your credit balance is too ｌｏｗ"}`, "credit balance is too low", true},
		{"no-break spaces split", "{\"role\":\"Your credit\u00a0balance\u00a0is\u00a0too\u00a0low\"}", "credit balance is too low", true},
		{"ideographic space split", "{\"role\":\"credit\u3000balance is too low\"}", "credit balance is too low", true},
		{"zero-width space stripped", "{\"role\":\"credit balance is too l\u200bow\"}", "credit balance is too low", true},
		{"zero-width space escaped", `{"role":"credit balance is too l\u200bow"}`, "credit balance is too low", true},
		{"percent-encoded typographic quote", `{"url":"file:///You%20didn%E2%80%99t%20provide%20an%20API%20key.png"}`, "You didn't provide an API key", true},
		{"percent-encoded Chinese", `{"url":"file:///%E4%BD%99%E9%A2%9D%E4%B8%8D%E8%B6%B3.png"}`, "余额不足", true},
		{"percent-encoded, lower-case hex", `{"url":"file:///%e6%ac%a0%e8%b4%b9.png"}`, "欠费", true},
		{"pydantic's cut joins head and tail", `{"s":"xxxxxxxxxxxxxxxxxx daily pad pad pad pad limit reached xxxxxxxx"}`, "daily...limit", true},
		{"an ellipsis cut", `{"s":"a daily pad pad pad pad limit reached"}`, "daily\u2026limit", true},
		{"an escaped ellipsis cut", `{"s":"a daily pad pad pad pad limit reached"}`, `daily\u2026limit`, true},
		{"a cut with four dots", `{"s":"a daily pad pad pad pad limit reached"}`, "daily....limit", true},
		// controls
		{"a piece the request lacks", `{"s":"a daily pad pad pad pad"}`, "daily...limit", false},
		{"a short piece", `{"s":"a daily pad pad pad pad lim"}`, "daily...lim", false},
		{"another Chinese phrase", `{"url":"file:///%E4%BD%99%E9%A2%9D.png"}`, "余额不足", false},
		{"a broken percent sequence", `{"url":"file:///%E4%BD%E9%A2%9D.png"}`, "余额", false},
		{"a different letter", `{"role":"credit balance iѕ too low"}`, "credit balance is too low", false}, // Cyrillic ѕ: no mapping makes it s
	} {
		if got := echoed([]byte(c.req), []byte(c.text)); got != c.want {
			t.Errorf("%s: echoed(%s, %q) = %t, want %t", c.name, c.req, c.text, got, c.want)
		}
	}
}

// End to end through the classifier: vLLM quotes a file:// path decoded
// (its url2pathname), so a client's percent-encoded file name is no
// evidence about the account (hostile review 45b).
func TestPercentEncodedFileNameIsNoEvidence(t *testing.T) {
	for _, name := range []string{
		"You%20didn%E2%80%99t%20provide%20an%20API%20key",
		"%E4%BD%99%E9%A2%9D%E4%B8%8D%E8%B6%B3",
		"%E6%AC%A0%E8%B4%B9",
	} {
		req := `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"file:///` + name + `.png"}}]}]}`
		path := strings.NewReplacer("%20", " ", "%E2%80%99", "\u2019", "%E4%BD%99%E9%A2%9D%E4%B8%8D%E8%B6%B3", "余额不足", "%E6%AC%A0%E8%B4%B9", "欠费").Replace(name)
		msg, _ := json.Marshal("The file path /" + path + ".png must be a subpath of `--allowed-local-media-path` ''.")
		body := `{"object":"error","message":` + string(msg) + `,"type":"BadRequestError","param":null,"code":400}`
		v := Classify(Response{Status: 400, Body: []byte(body), Request: []byte(req), Model: "m"})
		if v.Class == Auth || v.Class == Quota || v.Class == Forbidden {
			t.Errorf("%s: %s (%s)", name, v.Class, v.Evidence)
		}
	}
}

// foldStart stops the skip at every rune the echo check reads as an ASCII
// letter or digit, and at no other: the skip would otherwise pass the start
// of a match.
func TestFoldStartMatchesFolds(t *testing.T) {
	for r := rune(0x80); r <= 0x2FFFF; r++ {
		b := utf8.AppendRune(nil, r)
		f := foldRune(r)
		want := expandRune(r) != "" || f >= 0 && f < utf8.RuneSelf && wordTab[byte(f)] == 1
		if got := foldStart(b, 0); got != want {
			t.Errorf("foldStart(%U %q) = %t, want %t", r, r, got, want)
		}
	}
}

// Nothing between U+3000 and the ligatures folds: the echo check reads
// those runes as themselves without asking (emit's shortcut).
func TestNothingFoldsBetweenIdeographicSpaceAndLigatures(t *testing.T) {
	for r := rune(0x3001); r < 0xFB00; r++ {
		if foldRune(r) != r || expandRune(r) != "" {
			t.Fatalf("%U folds", r)
		}
	}
}
