package redact

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"
)

// Whatever an upstream or a client sends, the scrubber does not panic, and
// no 8-byte window of a configured secret survives it for the operator; in
// client text nothing that Reveals a secret survives but what the client
// sent itself, window by window (as written, or JSON escapes decoded).
func FuzzScrub(f *testing.F) {
	s := New(testRules())
	for _, seed := range []string{
		"Incorrect API key provided: " + oaiKey,
		`Post "http://10.0.0.5:8000/v1/chat/completions": dial tcp 10.0.0.5:8000: connect: connection refused`,
		"read tcp 127.0.0.1:5555->10.1.2.3:443: read: connection reset by peer",
		"lookup internal-host on 127.0.0.53:53: no such host",
		"Authorization: Bearer " + antKey + " x-api-key: " + gemKey[3:14] + "?key=abc&sig=",
		"http://", "https://[fd00::7]:9000", "bearer", "dial tcp ", "lookup x on ", "key=",
	} {
		f.Add(seed, oaiKey[:9])
	}
	secrets := []string{oaiKey, antKey, gemKey}
	f.Fuzz(func(t *testing.T, msg, sent string) {
		sentAs := func(w string) bool {
			return strings.Contains(sent, w) || strings.Contains(string(unescapeJSON([]byte(sent))), w)
		}
		for mode, got := range map[string]string{"operator": s.String(msg), "client": s.ForClient(msg, []byte(sent))} {
			for _, k := range secrets {
				for _, w := range windows8(k) {
					if strings.Contains(got, w) && !strings.Contains(msg, w) {
						t.Fatalf("%s: the scrubber made %q: %q -> %q", mode, w, msg, got)
					}
					if strings.Contains(got, w) && mode == "operator" {
						t.Fatalf("%s: %q survived: %q -> %q", mode, w, msg, got)
					}
				}
				if f := Reveals(got, k); mode == "client" && f != "" {
					for _, w := range windows8(f) {
						if !sentAs(w) {
							t.Fatalf("%s: %q survived: %q -> %q", mode, f, msg, got)
						}
					}
				}
			}
		}
	})
}

// unescapeJSON reads a JSON string's escapes as encoding/json does: for any
// text, quoted by json.Marshal (its escapes: \u003c, \ufffd, \n, …) or
// with every character written as a \u escape (a surrogate pair above
// U+FFFF), it gives back what json.Unmarshal reads.
func FuzzUnescapeJSON(f *testing.F) {
	for _, seed := range []string{"sk-proj-abc", "caf\u00e9 \"q\"", "\xff\xfe", "😀 <&>", `\u0050`, `\ud83d`, "\U0001F600"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var want string
		quoted, _ := json.Marshal(text)
		if err := json.Unmarshal(quoted, &want); err != nil {
			t.Fatal(err)
		}
		var all strings.Builder
		all.WriteByte('"')
		for _, r := range want {
			for _, u := range utf16.Encode([]rune{r}) {
				fmt.Fprintf(&all, "\\u%04x", u)
			}
		}
		all.WriteByte('"')
		for _, enc := range [][]byte{quoted, []byte(all.String())} {
			got := unescapeJSON(enc)
			if got == nil {
				got = enc
			}
			if string(got) != `"`+want+`"` {
				t.Fatalf("%q: got %q, want %q", enc, got, `"`+want+`"`)
			}
		}
	})
}
