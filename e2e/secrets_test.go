package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/redact"
	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Trust under hostile input: an upstream's own message reaches the client,
// but never a provider key, a client key, or where a provider lives.

// The configured keys are deliberately not key-shaped (no sk-, no AIza), so
// only the configured-key rule can catch them.
const (
	openaiKey    = "opnQ7zXk2WvR9mLp4TsB8yNc"
	anthropicKey = "antH5dQw2E9rTy6UiO1pAs7Dz"
	geminiKey    = "gemJ8k3LzX6cVb9NmQ2wEr5Tq"
	clientKey    = "cliP7q4WzX1vBn8MkJ5hGf2Dy"
)

// echoKey is a fake provider of dialect that answers every request with an
// auth error echoing the credential it received — the full key, its first
// and last 9 characters — and the URL it was called at; a stream request
// gets one content event first and the error as an `event: error`.
func echoKey(dialect string, self *string) upstreamtest.Script {
	return func(_ int, r upstreamtest.Request) upstreamtest.Step {
		key := r.Header.Get("X-Api-Key") + r.Header.Get("X-Goog-Api-Key") + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		msg := fmt.Sprintf("Incorrect API key provided: %s (begins %s, ends %s); request to %s%s?key=%s refused", key, key[:9], key[len(key)-9:], *self, r.Path, key)
		m, _ := json.Marshal(msg)
		var errBody, content string
		switch dialect {
		case "openai":
			errBody = `{"error":{"message":` + string(m) + `,"type":"invalid_request_error","code":"invalid_api_key","param":null}}`
			content = upstreamtest.ChatStream("m", "Hel")[1]
		case "anthropic":
			errBody = `{"type":"error","error":{"type":"authentication_error","message":` + string(m) + `}}`
			content = "event: content_block_delta\ndata: " + `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}`
		case "gemini":
			errBody = `{"error":{"code":401,"message":` + string(m) + `,"status":"UNAUTHENTICATED"}}`
			content = `{"candidates":[{"content":{"parts":[{"text":"Hel"}],"role":"model"},"index":0}]}`
		}
		if !r.Streamed() {
			return upstreamtest.Step{Status: 401, Body: errBody}
		}
		var events []string
		if dialect == "anthropic" {
			events = append(events,
				"event: message_start\ndata: "+`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"usage":{"input_tokens":1,"output_tokens":0}}}`,
				"event: content_block_start\ndata: "+`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
		}
		events = append(events, content, "event: error\ndata: "+errBody)
		return upstreamtest.Step{Events: events}
	}
}

const secretsCfg = `
client_keys: [` + clientKey + `]
alerts: {webhook: "{hook}"}
providers:
  - {name: oai, dialect: openai, base_url: "{oai}/v1", api_key: ` + openaiKey + `}
  - {name: ant, dialect: anthropic, base_url: "{ant}", api_key: ` + anthropicKey + `}
  - {name: gem, dialect: gemini, base_url: "{gem}", api_key: ` + geminiKey + `}
  - {name: gone, dialect: openai, base_url: "{gone}/v1", api_key: ` + openaiKey + `}
targets:
  - {name: t-oai, model: gpt-4o, providers: [oai]}
  - {name: t-ant, model: claude-sonnet-4-5, providers: [ant]}
  - {name: t-gem, model: gemini-2.5-flash, providers: [gem]}
  - {name: t-gone, model: gpt-4o, providers: [gone]}
`

// hookRecorder is an alert webhook on loopback that keeps every body.
type hookRecorder struct {
	URL    string
	mu     sync.Mutex
	bodies []string
}

func startHook(t *testing.T) *hookRecorder {
	t.Helper()
	h := &hookRecorder{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.bodies = append(h.bodies, string(b))
		h.mu.Unlock()
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	h.URL = "http://" + ln.Addr().String() + "/hook"
	return h
}

func (h *hookRecorder) all() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.bodies...)
}

// leaks lists what of the secrets (each whole and every 8-byte window) and
// the places (as written) appears in text.
func leaks(text string, secrets, places []string) []string {
	var out []string
	for _, s := range secrets {
		for i := 0; i+8 <= len(s); i++ {
			if w := s[i : i+8]; strings.Contains(text, w) {
				out = append(out, fmt.Sprintf("fragment %q of secret %q", w, s))
				break
			}
		}
	}
	for _, p := range places {
		if strings.Contains(text, p) {
			out = append(out, fmt.Sprintf("place %q", p))
		}
	}
	return out
}

// clientLeaks is leaks for text a client reads, where a fragment of a key
// shorter than redact.ClientStretch that does not end it is left as the
// upstream wrote it (redact.ForClient: scrubbing it would answer a
// client's guess): what of each secret redact.Reveals, and the places.
func clientLeaks(text string, secrets, places []string) []string {
	var out []string
	for _, s := range secrets {
		if f := redact.Reveals(text, s); f != "" {
			out = append(out, fmt.Sprintf("fragment %q of secret %q", f, s))
		}
	}
	for _, p := range places {
		if strings.Contains(text, p) {
			out = append(out, fmt.Sprintf("place %q", p))
		}
	}
	return out
}

func TestUpstreamTextNeverCarriesSecretsOut(t *testing.T) {
	hook := startHook(t)
	var urls = map[string]*string{"oai": new(string), "ant": new(string), "gem": new(string)}
	fs := fakes(t, map[string]upstreamtest.Script{
		"oai": echoKey("openai", urls["oai"]),
		"ant": echoKey("anthropic", urls["ant"]),
		"gem": echoKey("gemini", urls["gem"]),
	})
	for name, u := range urls {
		*u = fs[name].URL
	}
	// A closed loopback port: the connection is refused.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	goneAddr := ln.Addr().String()
	ln.Close()

	yaml := strings.NewReplacer("{hook}", hook.URL, "{gone}", "http://"+goneAddr,
		"{oai}", fs["oai"].URL, "{ant}", fs["ant"].URL, "{gem}", fs["gem"].URL).Replace(secretsCfg)
	logs := &testutil.Buffer{}
	recs := gatewaytest.NewRecords()
	url, _ := gatewaytest.Start(t, gatewaytest.Config(t, yaml), app.Options{
		Logger:    slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Decisions: recs, Backoff: func() time.Duration { return time.Millisecond }})
	g := &gateway{URL: url, recs: records{recs}}

	secrets := []string{openaiKey, anthropicKey, geminiKey, clientKey}
	var places []string
	for _, s := range fs {
		places = append(places, s.URL, strings.TrimPrefix(s.URL, "http://"))
	}
	places = append(places, "http://"+goneAddr, goneAddr)
	check := func(where, text string) {
		t.Helper()
		if l := leaks(text, secrets, places); len(l) > 0 {
			t.Errorf("%s leaks %s:\n%s", where, strings.Join(l, "; "), text)
		}
	}
	checkClient := func(where, text string) {
		t.Helper()
		if l := clientLeaks(text, secrets, places); len(l) > 0 {
			t.Errorf("%s leaks %s:\n%s", where, strings.Join(l, "; "), text)
		}
	}
	auth := []string{"Authorization", "Bearer " + clientKey}

	for _, target := range []string{"t-oai", "t-ant", "t-gem"} {
		r := g.post(t, target, "", auth...)
		r.wantStatus(t, 401)
		msg := r.errMessage(t)
		if !strings.Contains(msg, "Incorrect API key provided") {
			t.Errorf("%s: the upstream's own message did not reach the client: %q", target, msg)
		}
		checkClient(target+": client body", string(r.Body))
		check(target+": decision record", recordJSON(t, g.recs.byID(t, r.Header.Get("X-Detour-Decision"))))

		s := g.post(t, target, stream, auth...)
		s.wantStatus(t, 200)
		if _, _, errEv := s.streamed(t); !errEv {
			t.Errorf("%s: stream without an error event:\n%s", target, s.Body)
		}
		if !strings.Contains(string(s.Body), "Incorrect API key provided") {
			t.Errorf("%s: the upstream's own message did not reach the stream's error event:\n%s", target, s.Body)
		}
		checkClient(target+": SSE error event", string(s.Body))
		check(target+": stream decision record", recordJSON(t, g.recs.byID(t, s.Header.Get("X-Detour-Decision"))))
	}

	for _, extra := range []string{"", stream} {
		r := g.post(t, "t-gone", extra, auth...)
		r.wantStatus(t, 502)
		if msg := r.errMessage(t); !strings.Contains(msg, "connection refused") {
			t.Errorf("transport error: the cause is not named: %q", msg)
		}
		checkClient("transport error: client body", string(r.Body))
		check("transport error: decision record", recordJSON(t, g.recs.byID(t, r.Header.Get("X-Detour-Decision"))))
	}

	// Auth pages the operator: one alert per provider that answered.
	deadline := time.Now().Add(30 * time.Second) // a failure guard
	for len(hook.all()) < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	alerts := hook.all()
	if len(alerts) < 3 {
		t.Fatalf("%d alerts, want one per provider (3)", len(alerts))
	}
	for _, a := range alerts {
		check("alert webhook payload", a)
	}
	check("log", logs.String())
}

func recordJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A client cannot use scrubbing as an oracle: an upstream that echoes the
// request (as OpenAI does with an invalid role) gives the client back what
// it wrote, whether or not it is part of a key, so the client cannot tell
// which of its guesses are right. The key the upstream adds by itself is
// still scrubbed.
func TestEchoedClientTextIsNoKeyOracle(t *testing.T) {
	echo := func(_ int, r upstreamtest.Request) upstreamtest.Step {
		var req struct {
			Messages []struct {
				Role string `json:"role"`
			} `json:"messages"`
		}
		_ = json.Unmarshal(r.Body, &req)
		m, _ := json.Marshal("Invalid value: '" + req.Messages[0].Role + "'. Supported values are: 'system', 'user'. Your key: " + openaiKey)
		return upstreamtest.Step{Status: 400, Body: `{"error":{"message":` + string(m) + `,"type":"invalid_request_error","param":"messages.[0].role","code":"invalid_value"}}`}
	}
	fs := fakes(t, map[string]upstreamtest.Script{"oai": echo})
	g := start(t, `
providers:
  - {name: oai, dialect: openai, base_url: "{oai}", api_key: `+openaiKey+`}
targets:
  - {name: t, model: gpt-4o, providers: [oai]}
`, fs)
	right, wrong := openaiKey[:12], openaiKey[:11]+"#"
	for _, guess := range []string{right, wrong} {
		// As written, and with its first byte a JSON escape, which the
		// upstream decodes before it echoes the guess.
		for _, sent := range []string{guess, fmt.Sprintf(`\u%04x`, guess[0]) + guess[1:]} {
			r := g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"t","messages":[{"role":"`+sent+`","content":"hi"}]}`)
			r.wantStatus(t, 400)
			want := "Invalid value: '" + guess + "'. Supported values are: 'system', 'user'. Your key: [redacted]"
			if msg := r.errMessage(t); msg != want {
				t.Errorf("guess sent as %q:\n got  %q\n want %q", sent, msg, want)
			}
		}
	}
}

// A reload that rotates the key scrubs the new key at once, and keeps
// scrubbing the old one (it may still be valid; requests may still use it).
func TestReloadScrubsRotatedKeys(t *testing.T) {
	const oldKey, newKey = "oldK3yQ7zXk2WvR9mLp4TsB", "newK3yJ8k3LzX6cVb9NmQ2w"
	echo := func(_ int, r upstreamtest.Request) upstreamtest.Step {
		k := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		return upstreamtest.Step{Status: 401, Body: `{"error":{"message":"bad key ` + k + `; the last one was ` + oldKey + `"}}`}
	}
	fs := fakes(t, map[string]upstreamtest.Script{"oai": echo})
	cfg := func(key string) string {
		return strings.ReplaceAll(`
providers:
  - {name: oai, dialect: openai, base_url: "`+fs["oai"].URL+`", api_key: KEY}
targets:
  - {name: t, model: gpt-4o, providers: [oai]}
`, "KEY", key)
	}
	g := start(t, cfg(oldKey), fs)
	if err := g.app.Reload(gatewaytest.Config(t, cfg(newKey))); err != nil {
		t.Fatal(err)
	}
	r := g.post(t, "t", "")
	r.wantStatus(t, 401)
	if msg := r.errMessage(t); !strings.HasSuffix(msg, "(not the client's key): bad key [redacted]; the last one was [redacted]") {
		t.Errorf("message %q", msg)
	}
}
