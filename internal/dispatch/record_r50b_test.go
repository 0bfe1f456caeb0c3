package dispatch

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/suggest"
)

// openaiTooLong is OpenAI's 400 for a conversation past the window (the
// wording classify/contextcounts.go reads; vLLM and DeepSeek write it too).
const openaiTooLong = "This model's maximum context length is 128000 tokens. However, your messages resulted in 2097152 tokens. Please reduce the length of the messages."

// bigRequest is an 8 MiB-class chat request whose text holds an escaped
// backslash, a '%' and a '+' (as code, paths and URLs in an agent's history
// do), so every echo check reads it three ways.
func bigRequest() []byte {
	return []byte(`{"model":"r","messages":[{"role":"user","content":"` +
		strings.Repeat(`t\\h%2e+ 的 `, 8<<20/15) + `"}]}`)
}

// TestRecordWordsLargeRequestReads_r50b: recordWords runs for every failed
// attempt, on the walk's own goroutine before the next attempt starts, and
// each of its up to 24 checks reads the whole request (several ways). A
// request of max_body_bytes that overflows the window fails at every
// target, the commonest failure of a large request: each attempt's record
// costs ~20 reads of 8 MiB, about a second of CPU (measured 1.0 s here),
// added to the failover's latency. Before a4bbda1 the record read the
// request 0 times; health's causeWords reads it once per cooldown.
func TestRecordWordsLargeRequestReads_r50b(t *testing.T) {
	req := bigRequest()
	read := 0
	old := echoedIn
	echoedIn = func(r []byte, s string) bool { read += len(r); return old(r, s) }
	defer func() { echoedIn = old }()
	start := time.Now()
	got := recordWords(openaiTooLong, req)
	t.Logf("%d-byte request: %v, %d bytes read, %q", len(req), time.Since(start), read, got)
	if read > 4*len(req) {
		t.Errorf("one failed attempt's record read %d MiB of a %d MiB request (%.0f reads)", read>>20, len(req)>>20, float64(read)/float64(len(req)))
	}
}

// TestRecordWordsSuggestRuleMatches_r50b: `detour classify --suggest`
// builds a rule from an unknown attempt's recorded message, a regexp
// for the raw body. recordWords marks what it masked, and where it cut,
// with a bare "…", which suggest.Parse reads as a literal character: the
// suggested rule then requires "…" in the upstream's body and never
// matches the answer it was made from. An unknown's message is therefore
// recorded as before (attemptMessage), quoted values alone masked. Vertex's candidateCount 400
// (classify corpus vertex-candidate-count-must-be-1-400, genkit#546)
// names the member the client sent, so its word is masked.
func TestRecordWordsSuggestRuleMatches_r50b(t *testing.T) {
	raw, err := os.ReadFile("../../classify/testdata/corpus/vertex-candidate-count-must-be-1-400.json")
	if err != nil {
		t.Fatal(err)
	}
	body := corpusBody(t, raw)
	req := []byte(`{"contents":[{"role":"user","parts":[{"text":"Write a haiku."}]}],"generationConfig":{"candidateCount":3}}`)
	rec := attemptMessage(classify.Unknown, classify.Message(body), req)
	re := suggest.Parse(rec).Regexp()
	if !regexp.MustCompile(re).Match(body) {
		t.Errorf("recorded %q; suggested %q never matches the answer", rec, re)
	}
}

func corpusBody(t *testing.T, raw []byte) []byte {
	t.Helper()
	var c struct{ Body string }
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	return []byte(c.Body)
}

// TestRecordWordsUnspacedNotEchoed_r50b: in a word of a script written
// without blanks, maskUnspaced makes one check per character, and
// recordWords' budget of 24 is spent after about 23: every later run
// counts as echoed and is masked although the client sent none of it.
// Zhipu's 1301 refusal (classify corpus zhipu-1301-sensitive-content-400)
// loses its end to a prompt in English, and the record gains a bare "…"
// that --suggest reads as a literal (finding 2).
func TestRecordWordsUnspacedNotEchoed_r50b(t *testing.T) {
	raw, err := os.ReadFile("../../classify/testdata/corpus/zhipu-1301-sensitive-content-400.json")
	if err != nil {
		t.Fatal(err)
	}
	msg := classify.Message(corpusBody(t, raw))
	req := []byte(`{"model":"glm-4","messages":[{"role":"user","content":"Tell me a story."}]}`)
	if got := recordWords(msg, req); strings.Contains(got, "…") {
		t.Errorf("nothing echoed, yet recorded %q for %q", got, msg)
	}
}
