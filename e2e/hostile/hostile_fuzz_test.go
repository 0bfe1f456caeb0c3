package hostile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/redact"
	"github.com/detour-llm/detour/internal/testutil"
)

// The hostile-input fuzz test of the HTTP front (docs/security.md): random
// client bodies and headers against random upstream answers, through a real
// gateway on loopback with one fake upstream per dialect. Whatever the
// input, these hold:
//
//   - the gateway answers (no panic, no dropped connection) and every answer
//     is a valid OpenAI error envelope, a JSON completion or an SSE stream
//     whose data lines are JSON or [DONE];
//   - no provider key, no 8-character fragment of one and no upstream host
//     appears in any text Detour writes: the headers, the decision record
//     or the log; nor in an error answer or an SSE error event a client
//     reads, where only what redact.Reveals counts (a shorter fragment that
//     does not end the key is left as the upstream wrote it: scrubbing it
//     would answer a client's guess); a model's own successful output
//     passes through untouched;
//   - a request-scoped class (bad_request, context_length, refusal,
//     overflow) never counts against health and never causes a transition;
//   - an upstream that merely echoes the client's text in a 400 never cools
//     anything (text the client supplied is no evidence).

// hostileKeys are the providers' keys: long enough that every 8-byte window
// is checked, distinct per dialect.
var hostileKeys = map[string]string{
	"openai":    "sk-proj-Q7xv9Lk2Wm4pZr8Tn3BcYh5Jd",
	"anthropic": "sk-ant-api03-Vb6Nq1Xs8Gf3Kt0Rw5Pm",
	"gemini":    "AIzaSyE4uH9jZ2cL7oD1wQ6yT3rM8nB5vK0",
}

// hostileAnswer is what every fake upstream answers next; "$KEY" in Body is
// replaced by the key the fake received, "$HOST" by its own host:port and
// "$ECHO" by the client's first message content (JSON-escaped, as an
// upstream that quotes the input would).
type hostileAnswer struct {
	Status int
	SSE    bool
	Body   string
}

type hostileUpstream struct {
	*httptest.Server
	answer *atomic.Pointer[hostileAnswer]
}

func newHostileUpstream(tb testing.TB, answer *atomic.Pointer[hostileAnswer]) *hostileUpstream {
	u := &hostileUpstream{answer: answer}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, _ := io.ReadAll(r.Body)
		a := u.answer.Load()
		key := r.Header.Get("x-api-key") + r.Header.Get("x-goog-api-key") +
			strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		body := strings.NewReplacer("$KEY", key, "$HOST", r.Host, "$ECHO", echoOf(req)).Replace(a.Body)
		if a.SSE {
			w.Header().Set("Content-Type", "text/event-stream")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(a.Status)
		io.WriteString(w, body)
	}))
	tb.Cleanup(u.Close)
	return u
}

// echoOf is the first message's content of a chat request (or the first
// contents/messages text of a translated one), JSON-escaped without quotes.
func echoOf(req []byte) string {
	var m struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Contents []struct {
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"contents"`
	}
	_ = json.Unmarshal(req, &m)
	var s string
	switch {
	case len(m.Messages) > 0:
		if json.Unmarshal(m.Messages[0].Content, &s) != nil {
			var parts []struct {
				Text string `json:"text"`
			}
			_ = json.Unmarshal(m.Messages[0].Content, &parts)
			if len(parts) > 0 {
				s = parts[0].Text
			}
		}
	case len(m.Contents) > 0 && len(m.Contents[0].Parts) > 0:
		s = m.Contents[0].Parts[0].Text
	}
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

type hostileRig struct {
	url     string
	recs    *gatewaytest.Records
	logs    *testutil.Buffer
	answer  *atomic.Pointer[hostileAnswer]
	secrets []string // keys, their 8-byte windows and the upstream hosts
	hosts   []string // the upstream hosts
}

func newHostileRig(tb testing.TB) *hostileRig {
	rig := &hostileRig{recs: gatewaytest.NewRecords(), logs: &testutil.Buffer{}, answer: &atomic.Pointer[hostileAnswer]{}}
	rig.answer.Store(&hostileAnswer{Status: 200})
	var provs strings.Builder
	for _, d := range []string{"openai", "anthropic", "gemini"} {
		u := newHostileUpstream(tb, rig.answer)
		key := hostileKeys[d]
		base := u.URL
		if d == "openai" {
			base += "/v1"
		}
		fmt.Fprintf(&provs, "  - {name: p%s, dialect: %s, base_url: %q, api_key: %q}\n", d, d, base, key)
		rig.secrets = append(rig.secrets, strings.TrimPrefix(u.URL, "http://"))
		rig.hosts = append(rig.hosts, strings.TrimPrefix(u.URL, "http://"))
		for i := 0; i+8 <= len(key); i++ {
			rig.secrets = append(rig.secrets, key[i:i+8])
		}
	}
	yaml := "retry: {max_wait: 0s}\nproviders:\n" + provs.String() + `targets:
  - {name: a, model: m-a, providers: [popenai]}
  - {name: b, model: m-b, providers: [panthropic]}
  - {name: c, model: m-c, providers: [pgemini]}
routes:
  - {name: all, strategy: ordered, targets: [a, b, c], fallback_on: [timeout, rate_limited, quota, server_error, unavailable, auth, forbidden, overflow, context_length, refusal, bad_request, unknown], max_attempts: 4}
`
	log := slog.New(slog.NewTextHandler(rig.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	rig.url, _ = gatewaytest.Start(tb, gatewaytest.Config(tb, yaml), app.Options{
		Logger: log, Decisions: rig.recs, Backoff: func() time.Duration { return 0 }})
	return rig
}

// hostileSeeds are starting points: real-looking and broken requests, real
// upstream error shapes with a key or host echoed, garbage streams.
var hostileSeeds = []struct {
	body   string
	hdr    uint8
	status uint16
	up     string
	sse    bool
}{
	{`{"model":"all","messages":[{"role":"user","content":"hi"}]}`, 0, 0, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`, false},
	{`hi`, 0x80, 201, `{"error":{"message":"Incorrect API key provided: $KEY. You can find your API key at https://$HOST/account/api-keys.","type":"invalid_request_error","code":"invalid_api_key"}}`, false},
	{`You exceeded your current quota, please check your plan and billing details.`, 0xC0, 200, ``, false},
	{`Your credit balance is too low to access the Anthropic API.`, 0xC0, 200, ``, false},
	{`{"model":"all","stream":true,"STREAM":false,"messages":[{"role":"user","content":"x"}]}`, 0, 0, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n", true},
	{`{"model":"all","messages":null}`, 0x01, 300, `dial tcp $HOST: connect: connection refused`, false},
	{`hello`, 0x81, 0, "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"$KEY\"}}]}\n\n", true},
	{`x`, 0x82, 799, `{"error":{"message":"upstream $HOST said $KEY"}}`, false},
	{`{"model":"all","messages":[{"role":"user","content":"hi"}],"stream":true}`, 0x04, 0, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"key $KEY\"}}\n\n", true},
	{`{"model":"all","messages":[{"role":"user","content":"hi"}]}`, 0x08, 200, `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key. $KEY","status":"INVALID_ARGUMENT"}}`, false},
}

func FuzzHostileFront(f *testing.F) {
	for _, s := range hostileSeeds {
		f.Add(s.body, s.hdr, s.status, s.up, s.sse)
	}
	rig := newHostileRig(f)
	f.Fuzz(func(t *testing.T, body string, hdr uint8, status uint16, up string, sse bool) {
		rig.run(t, body, hdr, status, up, sse)
	})
}

// run sends one hostile request against one hostile upstream answer and
// checks the invariants. hdr's bits choose: 0x80 wrap body as the content
// of a valid request (stream = sse), 0x40 the upstream echoes it in a 400,
// 0x01 text/plain, 0x02 an Origin, 0x04 Sec-Fetch-Site: cross-site, 0x08
// odd budget headers, 0x10 an Authorization header, 0x20 no Content-Type.
func (rig *hostileRig) run(t *testing.T, body string, hdr uint8, status uint16, up string, sse bool) {
	echo := hdr&0x40 != 0
	if hdr&0x80 != 0 || echo {
		b, _ := json.Marshal(map[string]any{"model": "all", "stream": sse,
			"messages": []map[string]any{{"role": "user", "content": body}}})
		body = string(b)
	}
	a := &hostileAnswer{Status: 200 + int(status)%800, SSE: sse, Body: up}
	if echo {
		a = &hostileAnswer{Status: http.StatusBadRequest, Body: `{"error":{"message":"Invalid value: '$ECHO'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.","type":"invalid_request_error","param":"messages[0].role","code":"invalid_value"}}`}
	}
	rig.answer.Store(a)

	req, err := http.NewRequest(http.MethodPost, rig.url+"/v1/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if hdr&0x01 != 0 {
		req.Header.Set("Content-Type", "text/plain")
	}
	if hdr&0x20 != 0 {
		req.Header.Del("Content-Type")
	}
	if hdr&0x02 != 0 {
		req.Header.Set("Origin", "https://evil.example")
	}
	if hdr&0x04 != 0 {
		req.Header.Set("Sec-Fetch-Site", "cross-site")
	}
	if hdr&0x08 != 0 {
		req.Header.Set("X-Detour-Max-Attempts", "-1")
		req.Header.Set("X-Detour-Max-Billable-Attempts", "99999999999999999999")
	}
	if hdr&0x10 != 0 {
		req.Header.Set("Authorization", "Bearer "+hostileKeys["openai"][:8])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("the gateway did not answer: %v", err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("answer cut: %v", err)
	}
	var headers strings.Builder
	resp.Header.Write(&headers)

	authored := checkAnswer(t, resp, got)
	var rec []byte
	if id := resp.Header.Get("X-Detour-Decision"); id != "" {
		d := rig.recs.ByID(t, id)
		rec, _ = json.Marshal(d)
		checkRecord(t, d, echo)
	}
	logs := rig.logs.Take()
	for _, s := range rig.secrets {
		for where, text := range map[string]string{"headers": headers.String(), "decision record": string(rec), "log": logs} {
			if strings.Contains(text, s) {
				t.Fatalf("%s leaks %q:\n%s", where, s, text)
			}
		}
	}
	// What the client reads may keep a short fragment of a key that does not
	// end it (redact.ForClient: scrubbing it would answer a client's guess).
	for _, key := range hostileKeys {
		if f := redact.Reveals(authored, key); f != "" {
			t.Fatalf("answer leaks %q of a key:\n%s", f, authored)
		}
	}
	for _, host := range rig.hosts {
		if strings.Contains(authored, host) {
			t.Fatalf("answer leaks %q:\n%s", host, authored)
		}
	}
}

// checkAnswer: a JSON completion, an OpenAI error envelope, or an SSE
// stream whose data lines parse. It returns the text Detour wrote itself
// (an error envelope, the stream's error events), where no secret may be.
func checkAnswer(t *testing.T, resp *http.Response, body []byte) string {
	t.Helper()
	ct := resp.Header.Get("Content-Type")
	if strings.HasPrefix(ct, "text/event-stream") && resp.StatusCode == http.StatusOK {
		var authored strings.Builder
		sc := bufio.NewScanner(bytes.NewReader(body))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok || data == "[DONE]" {
				continue
			}
			var ev struct {
				Error json.RawMessage `json:"error"`
			}
			if json.Unmarshal([]byte(data), &ev) != nil {
				t.Fatalf("stream data line is not JSON: %q", data)
			}
			if ev.Error != nil {
				authored.WriteString(data)
			}
		}
		return authored.String()
	}
	if !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("status %d with Content-Type %q: %q", resp.StatusCode, ct, body)
	}
	if resp.StatusCode < 400 {
		if !json.Valid(body) {
			t.Fatalf("a %d that is not JSON: %q", resp.StatusCode, body)
		}
		return "" // the upstream's own success, passed through
	}
	var env struct {
		Error *struct {
			Message *string `json:"message"`
			Type    string  `json:"type"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &env) != nil || env.Error == nil || env.Error.Message == nil || env.Error.Type == "" {
		t.Fatalf("a %d that is not an OpenAI error envelope: %q", resp.StatusCode, body)
	}
	if resp.StatusCode > 599 {
		t.Fatalf("status %d reached the client", resp.StatusCode)
	}
	return string(body)
}

// requestScoped classes describe the request; they never touch health.
var requestScoped = map[string]bool{"bad_request": true, "context_length": true, "refusal": true, "overflow": true}

func checkRecord(t *testing.T, d *decision.Decision, echo bool) {
	t.Helper()
	for _, a := range d.Attempts {
		if requestScoped[a.Class] && a.Counted {
			t.Fatalf("a %s attempt counted against health: %+v", a.Class, a)
		}
		if echo && a.Class != "" && a.Class != "bad_request" && a.Class != "unknown" {
			t.Fatalf("an upstream echoing the client's text made the verdict %s (%s)", a.Class, a.Evidence)
		}
	}
	for _, tr := range d.Transitions {
		// A cooldown ending is time's doing, announced by whichever request
		// next touches the record (an earlier iteration's server_error
		// ending while this one runs): no request made it.
		if tr.From == "cooling" && tr.To == "probing" && !requestScoped[tr.Class] {
			continue
		}
		if requestScoped[tr.Class] || echo {
			t.Fatalf("transition %+v caused by a request (echo=%v)", tr, echo)
		}
	}
}
