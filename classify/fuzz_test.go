package classify

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// FuzzClassify: never panics, always yields a valid class with evidence for a
// failure, never modifies the body or the request, and reads at most MaxBody
// bytes of the body: a body of 4 KiB or more gives the same verdict as its
// first 4 KiB followed by anything at all. The request (the client's body,
// for the echo check) is anything at all too.
func FuzzClassify(f *testing.F) {
	for _, c := range loadCorpus(f) {
		f.Add(c.Status, []byte(c.Body), c.Stream, []byte(nil))
	}
	f.Add(200, []byte(`{"choices":[{"finish_reason":"content_filter"}]}`), false, []byte(nil))
	f.Add(200, []byte("event: error\ndata: {\"error\":{\"code\":429}}\n\n"), true, []byte(nil))
	f.Add(429, []byte(`{"error":{"message":"Limit 1, Requested 2"}}`), false, []byte(`Limit 1, Requested 2`))
	f.Add(400, append([]byte(`{"error":{"message":"`), bytes.Repeat([]byte("a "), MaxBody)...), false, []byte(nil))
	f.Add(400, []byte(`{"error":{"message":"Invalid value: 'insufficient funds'","param":"messages[0].role"}}`), false,
		[]byte(`{"messages":[{"role":"\u0069nsufficient\nfunds"}]}`))
	f.Add(500, []byte(`{"error":{"message":"prompt is too long: 'prompt is too long'"}}`), false, []byte(`\ud83d\u`))
	f.Add(400, []byte(`{"error":{"message":"Provider returned error","metadata":{"raw":"{\"error\":{\"code\":\"insufficient_quota\"}} tail"}}}`), false, []byte(nil))
	f.Add(500, []byte(`{"detail":"litellm.APIError: XException - Error code: 429 - {\"error\":{\"message\":\"\\u00e9\"}}"}`), false, []byte(`{\"error\"`))
	f.Add(429, []byte(`{"error":{"message":"Request quota exceeded for all models: 60/60 requests in 1m0s window","type":"quota_exceeded"}}`), false, []byte(`in 1m window`))
	f.Add(429, []byte(`{"error":{"message":"5 requests in a 60-second window; 9 tokens in 999999999d window"}}`), false, []byte(nil))
	f.Add(500, []byte(`{"error":{"message":"ValueError: {'error': {'code': 'insufficient_quota', 'n': 1.0}}","code":400}}`), false, []byte(`{"p":{"error":{"n":1e0,"code":"insufficient_quota"}}}`))
	f.Add(503, []byte(`{"error":{"message":"litellm.BadRequestError: XException BadRequestError - {\"error\": {\"a\": ,\"code\":500}}"}}`), false, []byte(`{"a":1}`))
	garbage := bytes.Repeat([]byte(`credit balance is too low"}}]`), 300)
	f.Fuzz(func(t *testing.T, status int, body []byte, stream bool, req []byte) {
		orig, origReq := bytes.Clone(body), bytes.Clone(req)
		v := Classify(Response{Status: status, Body: body, Stream: stream, Request: req})
		if !bytes.Equal(orig, body) || !bytes.Equal(origReq, req) {
			t.Fatal("body or request modified")
		}
		if !v.Class.Valid() {
			t.Fatalf("invalid class %d", v.Class)
		}
		if v.Failed && v.Evidence == "" {
			t.Fatalf("failure without evidence: %+v", v)
		}
		if !v.Failed && (v.Class != Unknown || v.Evidence != "") {
			t.Fatalf("success carries a class: %+v", v)
		}
		if len(body) >= MaxBody {
			long := append(bytes.Clone(body[:MaxBody]), garbage...)
			if w := Classify(Response{Status: status, Body: long, Stream: stream, Request: req}); w != v {
				t.Fatalf("bytes past MaxBody changed the verdict: %+v vs %+v", w, v)
			}
		}
		_ = Message(body)
		_ = Transport(nil)
	})
}

// FuzzEchoed checks the echo search against a plain reference: the request
// is a JSON string (escaped as encoding/json writes it), decoded (its quotes
// kept: the search reads the JSON text, syntax included), ASCII lower-cased
// and its blank runs folded, then searched with strings.Contains; where the
// request escapes a backslash the search may find more (the deeper
// reading), never less.
func FuzzEchoed(f *testing.F) {
	f.Add("You exceeded your current quota", "exceeded your  current quota")
	f.Add("a\n\tb <&> é😀", "A B")
	f.Add("aaab", "aab")
	f.Add("quota", "")
	f.Add("doesn’t", "DOESN'T")
	f.Add("doesn't", "doesn‘t")
	f.Fuzz(func(t *testing.T, req, text string) {
		// No backslash and no line break in the text: echoedLines, which
		// reads pieces between line breaks, is tested on its own.
		// Nor a cut ("...", an ellipsis), read the same way.
		text = strings.NewReplacer(`\`, "", "\n", "", "\r", "", "...", "", "\u2026", "").Replace(text)
		enc, _ := json.Marshal(req)
		var dec string
		if err := json.Unmarshal(enc, &dec); err != nil {
			t.Fatal(err)
		}
		fold := func(s string) string {
			// A byte that is not UTF-8 reads as U+FFFD (as json.Marshal
			// writes the request's); a non-ASCII character as foldRune
			// maps it (a typographic single quote an apostrophe, a
			// Unicode blank a blank, …: TestEchoedThroughServerMappings),
			// any other as its compatibility decomposition (NFKD), each
			// of whose characters is read so in turn (hostile 58).
			var dec strings.Builder
			for _, r := range s {
				if r >= utf8.RuneSelf && r != utf8.RuneError && expandRune(r) == "" && foldRune(r) == r {
					dec.WriteString(norm.NFKD.String(string(r)))
					continue
				}
				dec.WriteRune(r)
			}
			s = dec.String()
			var v strings.Builder
			for len(s) > 0 {
				r, w := utf8.DecodeRuneInString(s)
				s = s[w:]
				if x := expandRune(r); x != "" {
					v.WriteString(x)
					continue
				}
				if r >= utf8.RuneSelf {
					if r = foldRune(r); r == dropRune {
						continue
					}
				}
				v.WriteRune(r)
			}
			s = v.String()
			var b strings.Builder
			blank := false
			for i := 0; i < len(s); i++ {
				c := s[i]
				switch c {
				case ' ', '\t', '\n', '\r', '\b', '\f':
					if !blank {
						b.WriteByte(' ')
					}
					blank = true
					continue
				}
				blank = false
				b.WriteByte(lowerTab[c])
			}
			return b.String()
		}
		needle := strings.Trim(fold(text), " ")
		want := needle != "" && strings.Contains(fold(`"`+dec+`"`), needle)
		got := echoed(enc, []byte(text))
		// A request that escapes a backslash is also read one level deeper
		// (unescapeDeepAt), and one holding '%' or '+' also as a URL is
		// decoded (echoedInURL): more is the client's there, never less.
		deep := strings.Contains(string(enc), `\\`)
		inURL := needle != "" && strings.Contains(fold(urlDecoded(`"`+dec+`"`)), needle)
		if got != want && !(got && (deep || inURL)) {
			t.Fatalf("echoed(%s, %q) = %v, want %v", enc, text, got, want)
		}
	})
}

// urlDecoded is the fuzz reference's URL reading of s: "%XX" of an ASCII
// byte is that byte, '+' a blank; anything else is kept.
func urlDecoded(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '+':
			b.WriteByte(' ')
		case c == '%' && i+2 < len(s):
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil && v > 0 && v < utf8.RuneSelf {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
			// The UTF-8 sequence of one rune, each byte a "%XX".
			var seq []byte
			for j := i; len(seq) < utf8.UTFMax && j+2 < len(s) && s[j] == '%'; j += 3 {
				v, err := strconv.ParseUint(s[j+1:j+3], 16, 8)
				if err != nil || v < utf8.RuneSelf {
					break
				}
				seq = append(seq, byte(v))
			}
			if r, w := utf8.DecodeRune(seq); r != utf8.RuneError && w > 1 {
				b.Write(seq[:w])
				i += 3*w - 1
				continue
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
