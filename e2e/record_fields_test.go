package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// The record fields the console and traces are built from: an unknown
// attempt carries the upstream's own message (bounded, the provider's key
// removed), every attempt its start after the request began, a plain answer
// its usage, and the request the label of the client key it used.
func TestRecordCarriesMessageStartUsageAndClient(t *testing.T) {
	long := strings.Repeat("padding words ", 40)
	unknownBody := `{"error":{"message":"The frobnicator refused key ` + secret + ` for request 7781. ` + long + `","type":"invalid_request_error"}}`
	fs := fakes(t, map[string]upstreamtest.Script{
		"odd": script(upstreamtest.Step{Status: 400, Body: unknownBody}),
		"up":  script(upstreamtest.Step{Body: upstreamtest.ChatJSON("model-b", "hi"), Delay: 20 * time.Millisecond}),
	})
	g := start(t, `
client_keys: [client-key-one, client-key-two]
providers:
  - {name: odd, dialect: openai, base_url: "{odd}", api_key: `+secret+`}
  - {name: up, dialect: openai, base_url: "{up}", api_key: `+secret+`}
targets:
  - {name: a, model: model-a, providers: [odd]}
  - {name: b, model: model-b, providers: [up]}
routes:
  - {name: r, targets: [a, b]}
`, fs)
	res := g.post(t, "r", "", "Authorization", "Bearer client-key-two")
	res.wantStatus(t, 200)
	d := g.recs.byID(t, res.Header.Get("X-Detour-Decision"))
	wantSteps(t, d, "a/odd unknown next_target", "b/up ok done")

	msg := d.Attempts[0].Message
	if !strings.HasPrefix(msg, "The frobnicator refused key [redacted] for request 7781.") || len(msg) > 300 {
		t.Errorf("unknown attempt's message: %q (%d bytes)", msg, len(msg))
	}
	if d.Attempts[1].Message != "" {
		t.Errorf("a successful attempt carries a message: %q", d.Attempts[1].Message)
	}
	raw, _ := json.Marshal(d)
	if strings.Contains(string(raw), secret) || strings.Contains(string(raw), "client-key-two") {
		t.Fatalf("a key leaked into the record: %s", raw)
	}

	a0, a1 := d.Attempts[0], d.Attempts[1]
	if a0.StartMS < 0 || a1.StartMS < a0.StartMS+a0.MS || a1.StartMS+a1.MS > d.MS+1 {
		t.Errorf("attempt starts out of order: first %.3f+%.3f, second %.3f+%.3f, request %.3f", a0.StartMS, a0.MS, a1.StartMS, a1.MS, d.MS)
	}

	if u := a1.Usage; u == nil || u.TotalTokens == 0 {
		t.Errorf("plain answer's attempt has no usage: %+v", u)
	}

	sum := sha256.Sum256([]byte("client-key-two"))
	if want := "key:" + hex.EncodeToString(sum[:4]); d.Client != want {
		t.Errorf("client = %q, want %q", d.Client, want)
	}
}

// Each attempt's record keeps the id its upstream gave the answer, failed or
// served, so an operator can open a ticket with the vendor; the client sees
// Detour's decision id under the same names instead.
func TestRecordKeepsTheUpstreamRequestID(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": script(upstreamtest.Step{Status: 500, Body: `{"error":{"message":"The server had an error","type":"server_error"}}`,
			Header: map[string]string{"x-request-id": "req_first500"}}),
		"q": script(upstreamtest.Step{Body: upstreamtest.ChatJSON("model-b", "b"), Header: map[string]string{"x-request-id": "req_served"}}),
		"s": script(ok("model-c", "c")),
	})
	g := start(t, threeCfg("{name: r, targets: [a, b]}"), fs)
	r := g.post(t, "r", "")
	r.wantStatus(t, 200)
	d := g.recs.wait(t, 1)
	var ids []string
	for _, a := range d.Attempts {
		ids = append(ids, a.UpstreamRequestID)
	}
	if strings.Join(ids, " ") != "req_first500 req_first500 req_served" { // a's 500 is retried once
		t.Errorf("upstream request ids %q", ids)
	}
	if r.Header.Get("X-Request-Id") != d.ID || r.Header.Get("Request-Id") != d.ID {
		t.Errorf("the client's request id headers %q %q, want the decision id %q", r.Header.Get("X-Request-Id"), r.Header.Get("Request-Id"), d.ID)
	}
}
