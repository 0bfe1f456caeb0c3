package classify

import (
	"strings"
	"testing"
	"time"
)

// Review rev32j. 83e21bc made every relayed-status lead (sdkStatusLead,
// colonStatusLead, modelRelayedStatus) call namesClientURL, and wholeValue
// now starts urlAt at every '"' of the request. urlAt reads "%22" of the
// answer's URL as the request's '"', so one match runs across any number
// of the request's strings: for a request of many short strings and an
// answer URL that spells them percent-encoded, every quote starts a match
// as long as the URL (≈4 KiB, the classified body's cut). The work is
// (quotes in the request) × (length of the URL): seconds of CPU for one
// classification of one attempt. Before 83e21bc the same answer took
// ~12 ms (no status lead looked for URLs).
func TestClientURLMatchIsNotQuadratic_review32j(t *testing.T) {
	const unit = `"http://h/?q=",`
	var b strings.Builder
	b.WriteString(`{"model":"m","messages":[{"role":"user","content":"hi"}],"metadata":{"x":[`)
	for b.Len() < 4<<20 {
		b.WriteString(unit)
	}
	b.WriteString(`"end"]}}`)
	req := []byte(b.String())
	// The URL a Python fetcher prints (requests keeps %22 encoded); it
	// reads as the request's strings until its last byte.
	u := "http://h/?q=" + strings.Repeat("%22,%22http://h/?q=", 200) + "%22X"
	body := []byte(`{"detail":"401 Client Error: Unauthorized for url: ` + u + `"}`)
	if len(body) > MaxBody {
		t.Fatalf("body %d > MaxBody", len(body))
	}
	start := time.Now()
	v := Classify(Response{Status: 500, Body: body, Request: req, Model: "m"})
	took := time.Since(start)
	t.Logf("verdict %s (%s) in %v for a %d-byte request", v.Class, v.Evidence, took, len(req))
	// A guard against the quadratic walk (34 s under -race before the fix,
	// milliseconds after), not a speed measure: the bound is three orders
	// of magnitude above the linear cost, so a busy machine cannot trip it.
	if took > 10*time.Second {
		t.Errorf("one classification of a 4 KiB answer took %v: namesClientURL/wholeValue are (quotes × URL length)", took)
	}
}
