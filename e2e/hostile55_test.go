package e2e

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Hostile review 55: the HTTP layer between Detour and an upstream. Detour
// asks for identity, yet servers that ignore the ask send gzip: each test
// below failed before the answer was decoded (dispatch/coding.go).

// h55Server wraps a handler as an upstream the configuration names.
func h55Server(t *testing.T, h http.HandlerFunc) *upstreamtest.Server {
	t.Helper()
	s := httptest.NewServer(h)
	t.Cleanup(s.Close)
	return &upstreamtest.Server{Server: s}
}

// h55Fakes is twoTargets' upstreams: p served by h, q answering.
func h55Fakes(t *testing.T, p http.HandlerFunc) map[string]*upstreamtest.Server {
	t.Helper()
	fs := fakes(t, map[string]upstreamtest.Script{"q": script(ok("model-b", "from b"), ok("model-b", "from b"), ok("model-b", "from b"))})
	fs["p"] = h55Server(t, p)
	return fs
}

func h55Gzip(body string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	io.WriteString(zw, body)
	zw.Close()
	return b.Bytes()
}

// codedAnswer answers every request with status and z as it is, of
// content type ctype, labelled Content-Encoding coding.
func codedAnswer(ctype, coding string, status int, z []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("Content-Encoding", coding)
		w.WriteHeader(status)
		w.Write(z)
	}
}

// gzipBomb is the gzip of prefix and then mib MiB of fill: ~1 KB a MiB.
func gzipBomb(prefix string, fill byte, mib int) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	io.WriteString(zw, prefix)
	chunk := bytes.Repeat([]byte{fill}, 1<<20)
	for range mib {
		zw.Write(chunk)
	}
	zw.Close()
	return b.Bytes()
}

// paidAttempts logs the attempts of the one request's record and counts
// the billable ones.
func paidAttempts(t *testing.T, g *gateway) (paid int) {
	t.Helper()
	for _, a := range g.recs.wait(t, 1).Attempts {
		if a.Billable {
			paid++
		}
		t.Logf("attempt %s/%s status %d class %q evidence %q billable %v msg %.120q", a.Target, a.Provider, a.Status, a.Class, a.Evidence, a.Billable, a.Message)
	}
	return paid
}

// gzipAnswer answers every request with status and body, gzip-coded and
// labelled so (Content-Encoding: gzip), whatever Accept-Encoding asked:
// what servers do that ignore "Accept-Encoding: identity"
// (metabase/metabase#35858: "using Accept-encoding: Identity … returns a
// response with content-encoding gzip set"; 18F/18f.gsa.gov#1796;
// ArchiveTeam/wpull#14 "Sometimes web servers are naughty and return
// content-encoding: gzip even if we didn't request it").
func gzipAnswer(status int, body string) http.HandlerFunc {
	return codedAnswer("application/json", "gzip", status, h55Gzip(body))
}

// TestH55GzipErrorAnswerKeepsItsClass: an error answer whose body comes
// gzip-coded (Content-Encoding: gzip, a coding net/http and every client
// SDK decode) is judged by its status alone: Detour sends Accept-Encoding:
// identity (attempt.go, review 51b) and then reads whatever comes as if
// it were identity. OpenAI's billing_not_active 429 (quota, a corpus case)
// becomes rate_limited, retried soon and cooled briefly; the 400 "string
// too long" (overflow) becomes unknown; and the client is handed the
// compressed bytes as the upstream's message ("\u001f\ufffd\b\u0000…").
// RFC 9110 §8.4: a recipient must decode the content codings listed to
// get the representation; a body Detour cannot decode is no text for a
// client either.
func TestH55GzipErrorAnswerKeepsItsClass(t *testing.T) {
	for _, name := range []string{"openai-billing-not-active-429", "openai-chat-messages-content-string-above-max-length-400"} {
		t.Run(name, func(t *testing.T) {
			st := corpus(t, name)
			plain := start(t, twoTargets+"  - {name: alone, targets: [a]}\n", fakes(t, map[string]upstreamtest.Script{"p": script(st), "q": script()}))
			plain.post(t, "alone", "")
			want := plain.recs.wait(t, 1).Attempts[0].Class

			g := start(t, twoTargets+"  - {name: alone, targets: [a]}\n", h55Fakes(t, gzipAnswer(st.Status, st.Body)))
			r := g.post(t, "alone", "")
			d := g.recs.wait(t, 1)
			got := d.Attempts[0].Class
			var m struct{ Error struct{ Message string } }
			_ = json.Unmarshal(r.Body, &m)
			t.Logf("plain body: class %s; gzip-coded: class %s, client %d message %q", want, got, r.Status, m.Error.Message)
			if got != want {
				t.Errorf("the gzip-coded answer is class %q, the same answer uncoded %q", got, want)
			}
			if strings.ContainsAny(m.Error.Message, "\x1f\ufffd\x00") {
				t.Errorf("the client is handed the compressed bytes as the upstream's message: %q", m.Error.Message)
			}
		})
	}
}

// TestH55GzipAnswerIsReadNotPaidAgain: a 200 whose whole chat.completion
// comes gzip-coded is failed as server_error "decode" (invalid character
// '\x1f'), billable, retried at the same endpoint (billable again) and
// then sent to the next target: three paid calls for one answer that was
// there to read.
func TestH55GzipAnswerIsReadNotPaidAgain(t *testing.T) {
	g := start(t, twoTargets, h55Fakes(t, gzipAnswer(200, upstreamtest.ChatJSON("model-a", "zipped"))))
	r := g.post(t, "r", "")
	paid := paidAttempts(t, g)
	if r.Status != 200 || !strings.Contains(string(r.Body), "zipped") || paid != 1 {
		t.Errorf("client %d %s; %d billable attempts, want the gzip-coded answer of a, paid once", r.Status, r.Body, paid)
	}
}

// TestH55GzipStreamIsReadNotPaidAgain: the same for a stream: an
// event-stream whose events come gzip-coded is failed as server_error
// "stream:ended before content", billable, retried at the same endpoint
// and sent on: three paid calls for one stream that was there to read.
func TestH55GzipStreamIsReadNotPaidAgain(t *testing.T) {
	var sse strings.Builder
	for _, ev := range upstreamtest.ChatStream("model-a", "zip", "ped") {
		sse.WriteString("data: " + ev + "\n\n")
	}
	g := start(t, twoTargets, h55Fakes(t, codedAnswer("text/event-stream", "gzip", 200, h55Gzip(sse.String()))))
	r := g.post(t, "r", stream)
	paid := paidAttempts(t, g)
	if r.Status != 200 || !strings.Contains(string(r.Body), "zip") || paid != 1 {
		t.Errorf("client %d %.300s; %d billable attempts, want the gzip-coded stream of a, paid once", r.Status, r.Body, paid)
	}
}

// TestH55MislabelledGzipIsStillRead pins the decoder's fallback: a body labelled Content-Encoding: gzip that
// is plain JSON (jolibrain/deepdetect#176: "declare a Content-Encoding:
// gzip header … compress the data if and only if Accept-Encoding has a
// value of exactly gzip") is read as it came, today by accident; a
// decoder must fall back to the bytes as sent rather than fail it.
func TestH55MislabelledGzipIsStillRead(t *testing.T) {
	st := corpus(t, "openai-billing-not-active-429")
	g := start(t, twoTargets+"  - {name: alone, targets: [a]}\n", h55Fakes(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		w.WriteHeader(st.Status)
		io.WriteString(w, st.Body)
	}))
	g.post(t, "alone", "")
	if c := g.recs.wait(t, 1).Attempts[0].Class; c != "quota" {
		t.Errorf("a plain body mislabelled gzip: class %q, want quota (its body's)", c)
	}
}

// A small gzip bomb (100 MiB of zeros in ~100 KB) decodes no further than
// 256 times its coded size past 8 MiB (before, to the 64 MiB any whole
// answer is held to, ~300 MiB of heap: hostile 55c), after which it is
// failed as a bomb, and the next target answers.
func TestH55GzipBombStopsAtTheAnswerLimit(t *testing.T) {
	bomb := gzipBomb(`{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"`, 0, 100)
	g := start(t, twoTargets, h55Fakes(t, codedAnswer("application/json", "gzip", 200, bomb)))
	r := g.post(t, "r", "")
	if r.Status != 200 || !strings.Contains(string(r.Body), "from b") {
		t.Fatalf("client %d %.300s; want the bomb failed and b's answer", r.Status, r.Body)
	}
	d := g.recs.wait(t, 1)
	if a := d.Attempts[0]; a.Class != "server_error" || !strings.Contains(a.Message, "compression bomb") {
		t.Errorf("the bomb's attempt: class %q, message %q; want failed as a compression bomb", a.Class, a.Message)
	}
}
