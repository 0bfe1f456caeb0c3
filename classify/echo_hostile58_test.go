package classify

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Hostile client, round 58: the echo check folded a few of NFKC's mappings
// (fullwidth ASCII, ligatures, review 45b) but not canonical composition
// (NFC: Hangul jamo, a kana and its combining voiced mark, the CJK
// compatibility ideographs such as U+F967 for 不) nor NFKC's other
// compatibility forms (Kangxi radicals, halfwidth katakana, mathematical
// letters). A server that normalises the client's text to NFC or NFKC
// before quoting it back writes a phrase the client never wrote as such;
// hostile 58 showed the echo check then found no echo and the phrase
// decided the class. Both sides are now read through every character's
// compatibility decomposition (echo_nfkd.go).
//
// Every case: the client's request holds raw (a role value, as
// TestEchoedThroughServerMappings), the upstream quotes form(raw) in
// OpenAI's older validator wording (lss233/kirara-ai#1028, as echoRole in
// e2e/echo_test.go). Hostile 58 showed every case but the controls read
// as quota.
func TestHostile58NormalisedEcho(t *testing.T) {
	nfc := norm.NFC.String
	nfkc := norm.NFKC.String
	for _, c := range []struct {
		name string
		raw  string
		form func(string) string
	}{
		{"control: fullwidth, NFKC", "Your credit balance is too ｌｏｗ", nfkc},
		{"control: as written", "余额不足", nfc},
		{"Korean written decomposed (NFD, a macOS file name), NFC", norm.NFD.String("잔액 부족"), nfc},
		{"Japanese voiced mark written apart (NFD), NFC", norm.NFD.String("残高が不足"), nfc},
		{"CJK compatibility ideograph U+F967 for 不, NFC", "余额\uF967足", nfc},
		{"CJK compatibility ideograph U+FA01 for 度, NFC", "额\uFA01不足", nfc},
		{"Kangxi radical U+2F9C for 足, NFKC", "余额不\u2F9C", nfkc},
		{"mathematical bold letters, NFKC", "Your credit balance is too \U0001D425\U0001D428\U0001D430", nfkc},
		{"circled letters, NFKC", "Your credit balance is too \u24DB\u24DE\u24E6", nfkc},
		{"halfwidth katakana (and a Kangxi radical), NFKC", "\uFF78\uFF6B\uFF70\uFF80が不\u2F9Cしています", nfkc},
	} {
		quoted := c.form(c.raw)
		req, _ := json.Marshal(map[string]any{"model": "m", "messages": []map[string]string{{"role": c.raw, "content": "hi"}}})
		msg, _ := json.Marshal("'" + quoted + "' is not one of ['system', 'assistant', 'user', 'function'] - 'messages.0.role'")
		body := `{"error":{"message":` + string(msg) + `,"type":"invalid_request_error","param":null,"code":null}}`
		v := Classify(Response{Status: 400, Body: []byte(body), Request: req, Model: "m"})
		t.Logf("%s: quoted %q -> %s (%s)", c.name, quoted, v.Class, v.Evidence)
		if v.Class == Quota || v.Class == Auth || v.Class == Forbidden || v.Class == RateLimited || v.Class == Unavailable {
			t.Errorf("%s: the client's own text, normalised by the server, decided the class: %s (%s)", c.name, v.Class, v.Evidence)
		}
	}
}

// TestHostile58NormalisedRetryHint: the retry hint a client wrote
// (TestRetryHintEchoedFromTheClientIsIgnored: "please try again in
// 900m0s" echoed is ignored), written in digits NFKC maps to ASCII
// (mathematical bold, superscript), quoted back normalised in a real 429.
// A wait of an hour or more turns the 429 into quota (evidence
// "retry-after>=1h"): the account cooled and the operator was paged
// (hostile 58), but for the control (fullwidth digits, folded).
func TestHostile58NormalisedRetryHint(t *testing.T) {
	for _, c := range []struct{ name, raw string }{
		{"control: fullwidth digits", "please try again in \uFF19\uFF10\uFF10m0s"},
		{"mathematical bold digits", "please try again in \U0001D7D7\U0001D7CE\U0001D7CEm\U0001D7CEs"},
		{"superscript digits", "please try again in \u2079\u2070\u2070m\u2070s"},
	} {
		quoted := norm.NFKC.String(c.raw)
		req, _ := json.Marshal(map[string]any{"messages": []map[string]string{{"role": "user", "content": c.raw}}})
		msg, _ := json.Marshal("Too many requests for prompt: " + quoted)
		v := Classify(Response{Status: 429, Body: []byte(`{"error":{"message":` + string(msg) + `}}`), Request: req})
		t.Logf("%s: quoted %q -> %s retry %v (%s)", c.name, quoted, v.Class, v.RetryAfter, v.Evidence)
		if v.Class == Quota || v.RetryAfter > time.Hour {
			t.Errorf("%s: the client's own retry hint, normalised by the server, decided: %s, wait %v (%s)", c.name, v.Class, v.RetryAfter, v.Evidence)
		}
	}
}

// TestHostile58RawQuoteOfAComposableTextStaysEchoed: the decomposition is
// read character by character, never composed, so a text an upstream
// quotes as written (not normalised) is found wherever it was found
// before: the client's "low" followed by a combining acute accent composes
// to "lẃ", and a composing reading would lose the echo of "… too low".
func TestHostile58RawQuoteOfAComposableTextStaysEchoed(t *testing.T) {
	for _, c := range []struct{ raw, quote string }{
		{"Your credit balance is too low\u0301", "Your credit balance is too low"},
		{"Your credit balance is too low\u0338 to access", "Your credit balance is too low"},
		{"\u0301Your credit balance is too low", "Your credit balance is too low"},
		{"余额不足\u3099", "余额不足"},
	} {
		req, _ := json.Marshal(map[string]any{"messages": []map[string]string{{"role": c.raw, "content": "hi"}}})
		if !echoed(req, []byte(c.quote)) {
			t.Errorf("%q: %q is the client's text, not found", c.raw, c.quote)
		}
	}
}

// TestHostile58SkipStopsAtEveryDecomposition: the echo search skips raw
// bytes that cannot begin its needle (skip); it must stop at every
// character whose reading (echo_nfkd.go, then foldRune) begins with an
// ASCII letter or digit — 𝐥, ⓛ, ¹, ℓ, ª — else a match beginning there is
// passed over.
func TestHostile58SkipStopsAtEveryDecomposition(t *testing.T) {
	for r := rune(0x80); r <= 0x2FFFF; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		b := utf8.AppendRune(nil, r)
		read := appendNorm(nil, b)
		if len(read) == 0 || read[0] >= utf8.RuneSelf || wordTab[read[0]] != 1 {
			continue
		}
		if !foldStart(b, 0) && !decomposesTo(b, 0, lowerTab[read[0]]) {
			t.Errorf("%U %q reads as %q: skip passes it", r, r, read)
		}
	}
}

// TestHostile58SentBodyKeepsRealAnswers: dispatch now reads an error
// answer's echoes against the body Detour sent the upstream as well
// (internal/dispatch Call.evidence), which holds the target's model name
// and Detour's fixed sentences. Neither may make a real answer read as an
// echo: every corpus answer keeps its class and evidence with such a body
// (its model, common model names, each of Detour's sentences) added to
// its evidence.
func TestHostile58SentBodyKeepsRealAnswers(t *testing.T) {
	models := []string{"gpt-4o", "gpt-4o-mini", "o3", "claude-sonnet-4-5", "claude-opus-4-1-20250805",
		"gemini-2.5-pro", "gemini-2.0-flash", "deepseek-chat", "qwen-max", "llama-3.3-70b-instruct"}
	sentences := []string{
		"Tool Read is loaded and can be called.", // the Messages door's tool_reference
		"Give arguments that match at least one of: city, zip; id given.",
		"Give arguments that match exactly one of: city, zip.", // the Claude schema note
		"Source: https://example.com/a",                        // a search result's source
		"Error: command failed",                                // an is_error tool result
	}
	n := 0
	for name, c := range loadCorpus(t) {
		base := c.response()
		want := Classify(base)
		if !want.Failed {
			continue
		}
		ms := models
		if c.Model != "" {
			ms = append([]string{c.Model}, models...)
		}
		msgs := []map[string]string{}
		for _, s := range sentences {
			msgs = append(msgs, map[string]string{"role": "user", "content": s})
		}
		for _, m := range ms {
			sent, _ := json.Marshal(map[string]any{"model": m, "max_tokens": 1024, "messages": msgs,
				"tools": []map[string]any{{"name": "Read", "description": sentences[1]}}})
			r := base
			r.Request = append(append(append([]byte(nil), base.Request...), '\n'), sent...)
			got := Classify(r)
			if got.Class != want.Class || got.Evidence != want.Evidence {
				t.Errorf("%s with a sent body for model %q: %s (%s), without it %s (%s)", name, m, got.Class, got.Evidence, want.Class, want.Evidence)
			}
			n++
		}
	}
	t.Log(fmt.Sprint(n, " corpus answers classified with a sent body"))
}
