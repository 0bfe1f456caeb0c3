package openai

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/rawjson"
)

// FuzzSentParam (fuzz 69f): a member of the body FitDescriptions made from
// canonical is mapped back (SentParam) to the member of canonical that
// body holds byte for byte at that place, or to "" for the note it added;
// a body it leaves as is maps every param to itself.
func FuzzSentParam(f *testing.F) {
	long := strings.Repeat("Launch a new agent to handle complex, multi-step tasks. ", 20)
	msgs := `"messages":[{"role":"system","content":"You are Claude Code."},{"role":"developer","content":"Be brief."},{"role":"user","content":"hi"},{"role":"system","content":"mid"}]`
	f.Add([]byte(`{"model":"m",`+msgs+`,"tools":[`+fitTool("Agent", long)+`,`+fitTool("Read", "short")+`]}`), "messages[2].content")
	f.Add([]byte(`{"tools":[`+fitTool("Agent", long)+`],"messages":[{"role":"user","content":"a"}],"messages":[{"role":"system"},{"role":"user"}]}`), "messages.1")
	f.Add([]byte(`{"model":"m",`+msgs+`,"tools":[`+fitTool("f", strings.Repeat("日", 1030))+`]}`), "messages.[3].role")
	f.Add([]byte(`{"model":"m",`+msgs+`}`), "messages[0]")
	f.Fuzz(func(t *testing.T, canonical []byte, p string) {
		sent := FitDescriptions(canonical)
		if bytes.Equal(sent, canonical) {
			if q := SentParam(canonical, p); q != p {
				t.Fatalf("a body not fitted: %q told as %q", p, q)
			}
			return
		}
		cm, sm := messagesOf(canonical), messagesOf(sent)
		if len(sm) != len(cm)+1 {
			t.Fatalf("%d messages sent for %d", len(sm), len(cm))
		}
		notes := 0
		for i := range sm {
			if i > 40 && i < len(sm)-3 {
				continue // SentParam reads the body each time: the first and the last messages
			}
			for _, tail := range []string{"", ".content", ".content[0].text"} {
				for _, spell := range []string{"messages[" + strconv.Itoa(i) + "]", "messages." + strconv.Itoa(i), "messages.[" + strconv.Itoa(i) + "]"} {
					q := SentParam(canonical, spell+tail)
					if q == "" {
						if !bytes.Contains(sm[i], []byte(fullDescriptions)) {
							t.Fatalf("%s: no member named, for %s", spell+tail, sm[i])
						}
						if tail == "" && spell[len("messages")] == '[' {
							notes++
						}
						continue
					}
					rest, ok := strings.CutPrefix(q, "messages")
					j, qtail, ok2 := rawjson.PathIndex(rest)
					if !ok || !ok2 || qtail != tail {
						t.Fatalf("%s told as %q", spell+tail, q)
					}
					if j < 0 || j >= len(cm) || !bytes.Equal(cm[j], sm[i]) {
						t.Fatalf("%s told as %q: sent %s", spell+tail, q, sm[i])
					}
				}
			}
		}
		if notes != 1 {
			t.Fatalf("%d messages named none", notes)
		}
		if !strings.HasPrefix(p, "messages") {
			if q := SentParam(canonical, p); q != p {
				t.Fatalf("%q told as %q", p, q)
			}
		}
	})
}

// messagesOf is each element of body's messages member, as rawjson reads it.
func messagesOf(body []byte) [][]byte {
	ms, me, _ := rawjson.MemberSpan(body, "messages")
	if ms < 0 {
		return nil
	}
	s, ok := rawjson.ScanArray(body[ms:me])
	if !ok {
		return nil
	}
	var out [][]byte
	for {
		_, m, more := s.Next()
		if !more {
			return out
		}
		out = append(out, m)
	}
}
