package e2e

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Hostile 55c: attacks on round 55's gzip decoding (dispatch/coding.go).

// A stream gzip-coded and flushed per event (what a gzip middleware with
// flush does): the client gets the first content while the upstream is
// still writing, as with an uncoded stream. The upstream holds the rest
// until the client has read it: a decoder that waited for more bytes
// before its first (hostile 55c: a 512-byte peek) never lets it come.
func TestH55cFlushedGzipStreamIsRelayedAsItComes(t *testing.T) {
	evs := upstreamtest.ChatStream("model-a", "zip", "ped")
	release := make(chan struct{})
	g := start(t, twoTargets, h55Fakes(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		for i, ev := range evs {
			io.WriteString(zw, "data: "+ev+"\n\n")
			zw.Flush()
			w.(http.Flusher).Flush()
			if i == 1 {
				select {
				case <-release:
				case <-time.After(30 * time.Second): // a failure guard
				}
			}
		}
		io.WriteString(zw, "data: [DONE]\n\n")
		zw.Close()
	}))
	body := `{"model":"r","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	resp, err := http.Post(g.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	first := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "zip") {
				first <- true
				return
			}
		}
		first <- false
	}()
	select {
	case ok := <-first:
		if !ok {
			t.Error("the stream ended without its first content")
		}
	case <-time.After(20 * time.Second): // the upstream holds the rest until then
		t.Error("the first content never reached the client while the upstream held the rest: the flushed gzip stream was held")
	}
	close(release)
}

// TestH55cGzipWithoutTrailerIsReadNotPaidAgain: a gzip answer whose
// deflate data is whole (the final block came: the whole chat.completion
// decodes) but whose 8-byte trailer (CRC-32, size) is missing — a server
// or middleware that flushed and never closed its gzip writer. Node's
// fetch (undici lib/web/fetch/index.js, what the OpenAI and Anthropic JS
// SDKs call) decodes gzip with finishFlush Z_SYNC_FLUSH "Be less strict
// when decoding compressed responses … Always using Z_SYNC_FLUSH is what
// cURL does" and hands the client this answer. Detour failed it as
// server_error transport:eof, billable, asked the same endpoint again
// (billable) and then the next target: three paid calls, the answer
// thrown away twice. Same for a stream whose last event and [DONE] came.
func TestH55cGzipWithoutTrailerIsReadNotPaidAgain(t *testing.T) {
	var sse strings.Builder
	for _, ev := range upstreamtest.ChatStream("model-a", "zip", "ped") {
		sse.WriteString("data: " + ev + "\n\n")
	}
	sse.WriteString("data: [DONE]\n\n")
	for _, c := range []struct{ name, ctype, body, extra string }{
		{"whole", "application/json", upstreamtest.ChatJSON("model-a", "zipped"), ""},
		{"stream", "text/event-stream", sse.String(), stream},
	} {
		t.Run(c.name, func(t *testing.T) {
			z := h55Gzip(c.body)
			g := start(t, twoTargets, h55Fakes(t, codedAnswer(c.ctype, "gzip", 200, z[:len(z)-8])))
			r := g.post(t, "r", c.extra)
			paid := paidAttempts(t, g)
			if r.Status != 200 || !strings.Contains(string(r.Body), "zip") || paid != 1 || strings.Contains(string(r.Body), "event: error") {
				t.Errorf("client %d %.300s; %d billable attempts; want a's answer, whole in hand, paid once", r.Status, r.Body, paid)
			}
		})
	}
}

// TestH55cGzipListedTwiceKeepsItsClass: "Content-Encoding: gzip, gzip"
// (RFC 9110 §8.4: codings listed in the order applied; a proxy that adds
// its gzip label again produces it, yhirose/cpp-httplib#993 "the
// content-encoding header ends up with `gzip, gzip`"), on OpenAI's
// billing_not_active 429: the decoder matched the whole header value only,
// so the answer was read as sent: class rate_limited (status alone) instead
// of quota, and the client's message the compressed bytes — the very
// failure round 55 fixed for a single "gzip". Also two Content-Encoding
// lines (Header.Get reads only the first).
func TestH55cGzipListedTwiceKeepsItsClass(t *testing.T) {
	st := corpus(t, "openai-billing-not-active-429")
	once, twice := h55Gzip(st.Body), h55Gzip(string(h55Gzip(st.Body)))
	for _, c := range []struct {
		name   string
		labels []string
		body   []byte
	}{
		{"one header gzip, gzip; body coded twice", []string{"gzip, gzip"}, twice},
		{"one header gzip, gzip; body coded once (label repeated by a proxy)", []string{"gzip, gzip"}, once},
		{"two header lines gzip; body coded twice", []string{"gzip", "gzip"}, twice},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := start(t, twoTargets+"  - {name: alone, targets: [a]}\n", h55Fakes(t, func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/json")
				for _, l := range c.labels {
					w.Header().Add("Content-Encoding", l)
				}
				w.WriteHeader(st.Status)
				w.Write(c.body)
			}))
			r := g.post(t, "alone", "")
			d := g.recs.wait(t, 1)
			a := d.Attempts[0]
			if a.Class != "quota" || strings.ContainsAny(string(r.Body), "\x1f") || strings.Contains(string(r.Body), `\ufffd`) {
				t.Errorf("class %q evidence %q; client %d %.160s; want quota and the upstream's words, as for one gzip", a.Class, a.Evidence, r.Status, r.Body)
			}
		})
	}
}

// A stream gzip bomb: after the first content, one event whose data line
// never ends, ~100 MiB decoded from ~100 KB: the 16 MiB event bound holds.
func TestH55cGzipStreamBomb(t *testing.T) {
	evs := upstreamtest.ChatStream("model-a", "zip", "ped")
	bomb := gzipBomb("data: "+evs[0]+"\n\ndata: "+evs[1]+"\n\ndata: ", 'a', 100)
	g := start(t, twoTargets, h55Fakes(t, codedAnswer("text/event-stream", "gzip", 200, bomb)))
	r := g.post(t, "r", stream)
	paid := paidAttempts(t, g)
	if !strings.Contains(string(r.Body), "zip") || len(r.Body) > 64<<10 || paid != 1 {
		t.Errorf("client %d, %d bytes, paid %d: want the first content, none of the endless line, paid once", r.Status, len(r.Body), paid)
	}
}

// A gzip 4xx whose decoded body is 512 MiB: only classify.MaxBody is read,
// and the client's message is bounded by it.
func TestH55cHugeGzip4xx(t *testing.T) {
	bomb := gzipBomb(`{"error":{"message":"`, 'a', 512)
	g := start(t, twoTargets+"  - {name: alone, targets: [a]}\n", h55Fakes(t, codedAnswer("application/json", "gzip", 400, bomb)))
	r := g.post(t, "alone", "")
	paidAttempts(t, g)
	if r.Status != 400 || len(r.Body) > 64<<10 {
		t.Errorf("client %d, %d bytes: want the 400, its message bounded by what the classifier reads", r.Status, len(r.Body))
	}
}

// TestH55cRawDeflateKeepsItsClass: "Content-Encoding: deflate" with raw
// deflate data (RFC 1951, no zlib wrapper) — what old IIS and Apache sent,
// and what clients decode: node-fetch src/index.js "handle the infamous raw
// deflate response from old IIS and Apache servers" (zlib header sniffed,
// else createInflateRaw). coding.go decoded only zlib-wrapped deflate and
// otherwise read the bytes as sent: OpenAI's billing_not_active 429 was
// rate_limited and the client's message compressed bytes.
func TestH55cRawDeflateKeepsItsClass(t *testing.T) {
	st := corpus(t, "openai-billing-not-active-429")
	var b bytes.Buffer
	fw, _ := flate.NewWriter(&b, flate.DefaultCompression)
	io.WriteString(fw, st.Body)
	fw.Close()
	g := start(t, twoTargets+"  - {name: alone, targets: [a]}\n", h55Fakes(t, codedAnswer("application/json", "deflate", st.Status, b.Bytes())))
	r := g.post(t, "alone", "")
	a := g.recs.wait(t, 1).Attempts[0]
	if a.Class != "quota" || strings.Contains(string(r.Body), `\ufffd`) {
		t.Errorf("raw deflate: class %q evidence %q; client %d %.160s; want quota and the upstream's words", a.Class, a.Evidence, r.Status, r.Body)
	}
}
