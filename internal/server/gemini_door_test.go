package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// The Gemini door (docs/doors.md, "Google Gemini"): one gateway over an
// OpenAI, an Anthropic and a Gemini upstream, each route's answer in
// Google's shape.

const geminiDoorCfg = `
client_keys:
  - {name: app, key: [gk-one, gk-two]}
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: sk-openai}
  - {name: an, dialect: anthropic, base_url: "{an}", api_key: sk-ant}
  - {name: g, dialect: gemini, base_url: "{g}", api_key: sk-gem}
  - {name: down, dialect: openai, base_url: "{down}", api_key: sk-down}
targets:
  - {name: gpt, model: gpt-4o-mini, providers: [p]}
  - {name: claude, model: claude-sonnet-4-5, providers: [an]}
  - {name: gem, model: gemini-2.0-flash, providers: [g]}
  - {name: broken, model: gpt-4o-mini, providers: [down]}
routes:
  - {name: to-gpt, targets: [gpt]}
  - {name: to-claude, targets: [claude]}
  - {name: to-gem, targets: [gem]}
  - {name: fails-over, targets: [broken, gem]}
  - {name: gpt-then-gem, targets: [gpt, gem]}
`

const geminiAnswer = `{"candidates":[{"content":{"role":"model","parts":[{"text":"from gemini"}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":2,"totalTokenCount":6},"modelVersion":"gemini-2.0-flash-001","responseId":"resp-1"}`

type geminiGW struct {
	url            string
	p, an, g, down *upstreamtest.Server
	recs           *gatewaytest.Records
	log            *testutil.Buffer
}

func geminiGateway(t *testing.T) *geminiGW {
	t.Helper()
	gw := &geminiGW{}
	gw.p = upstreamtest.New(func(_ int, r upstreamtest.Request) upstreamtest.Step {
		if bytes.Contains(r.Body, []byte(`"stream":true`)) {
			return upstreamtest.Step{Events: upstreamtest.ChatStream("gpt-4o-mini", "Hel", "lo")}
		}
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o-mini", "from gpt")}
	})
	gw.an = upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step { return upstreamtest.Step{Body: claudeJSON()} })
	gw.g = upstreamtest.New(func(_ int, r upstreamtest.Request) upstreamtest.Step {
		switch {
		case strings.HasSuffix(r.Path, ":countTokens"):
			return upstreamtest.Step{Body: `{"totalTokens":42}`}
		case strings.Contains(r.Path, ":streamGenerateContent"):
			return upstreamtest.Step{Events: []string{
				`{"candidates":[{"content":{"role":"model","parts":[{"text":"str"}]},"index":0}],"modelVersion":"gemini-2.0-flash-001"}`,
				`{"candidates":[{"content":{"role":"model","parts":[{"text":"eamed"}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":2,"totalTokenCount":6},"modelVersion":"gemini-2.0-flash-001"}`}}
		}
		return upstreamtest.Step{Body: geminiAnswer}
	})
	gw.down = upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Status: 503, Body: `{"error":{"message":"overloaded","type":"server_error"}}`}
	})
	for _, s := range []*upstreamtest.Server{gw.p, gw.an, gw.g, gw.down} {
		t.Cleanup(s.Close)
	}
	gw.recs = gatewaytest.NewRecords()
	gw.log = &testutil.Buffer{}
	cfg := strings.NewReplacer("{p}", gw.p.URL, "{an}", gw.an.URL, "{g}", gw.g.URL, "{down}", gw.down.URL).Replace(geminiDoorCfg)
	gw.url, _ = gatewaytest.Start(t, gatewaytest.Config(t, cfg), app.Options{Decisions: gw.recs,
		Logger: slog.New(slog.NewJSONHandler(gw.log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	return gw
}

// geminiPost posts body to path with the client key in x-goog-api-key.
func geminiPost(t *testing.T, url, path, body string) (*http.Response, string) {
	t.Helper()
	return postWith(t, url, path, body, "X-Goog-Api-Key", "gk-one")
}

const geminiHello = `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"systemInstruction":{"parts":[{"text":"be terse"}]},
 "generationConfig":{"temperature":0.5,"maxOutputTokens":64,"stopSequences":["END"]},
 "safetySettings":[{"category":"HARM_CATEGORY_HARASSMENT","threshold":"BLOCK_NONE"}]}`

func TestGeminiDoorTranslatesForEveryDialect(t *testing.T) {
	gw := geminiGateway(t)
	for _, c := range []struct{ route, text string }{{"to-gpt", "from gpt"}, {"to-claude", "hi"}} {
		resp, body := geminiPost(t, gw.url, "/v1beta/models/"+c.route+":generateContent", geminiHello)
		var a struct {
			Candidates []struct {
				Content struct {
					Role  string
					Parts []struct{ Text string }
				}
				FinishReason string
			}
			UsageMetadata struct{ PromptTokenCount, CandidatesTokenCount, TotalTokenCount int }
			ModelVersion  string
		}
		if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &a) != nil || len(a.Candidates) != 1 ||
			a.Candidates[0].Content.Parts[0].Text != c.text || a.Candidates[0].FinishReason != "STOP" || a.Candidates[0].Content.Role != "model" ||
			a.ModelVersion != c.route || a.UsageMetadata.TotalTokenCount == 0 {
			t.Errorf("%s: %d %s", c.route, resp.StatusCode, body)
		}
	}
	got := gw.p.Requests()
	if len(got) != 1 {
		t.Fatalf("OpenAI got %d requests", len(got))
	}
	for _, want := range []string{`"role":"system","content":"be terse"`, `"role":"user","content":"hi"`, `"max_tokens":64`, `"stop":["END"]`, `"temperature":0.5`} {
		if !strings.Contains(string(got[0].Body), want) {
			t.Errorf("OpenAI's request %s lacks %s", got[0].Body, want)
		}
	}
	if strings.Contains(string(got[0].Body), "HARASSMENT") {
		t.Errorf("safetySettings reached OpenAI: %s", got[0].Body)
	}
	d := gw.recs.Wait(t, 1)
	if d.API != "gemini" || d.Client != "app" || d.ClientKey != 1 {
		t.Errorf("record: api %q client %q key %d, want gemini, app, 1", d.API, d.Client, d.ClientKey)
	}
}

func TestGeminiDoorPassesThroughToGemini(t *testing.T) {
	gw := geminiGateway(t)
	resp, body := geminiPost(t, gw.url, "/v1beta/models/to-gem:generateContent", geminiHello)
	if resp.StatusCode != 200 || body != geminiAnswer {
		t.Fatalf("native: %d %s", resp.StatusCode, body)
	}
	got := gw.g.Requests()
	if len(got) != 1 || got[0].Path != "/v1beta/models/gemini-2.0-flash:generateContent" || string(got[0].Body) != geminiHello ||
		got[0].Header.Get("X-Goog-Api-Key") != "sk-gem" {
		t.Fatalf("Gemini got %+v", got)
	}
	// Streamed: each event as it came.
	resp, body = geminiPost(t, gw.url, "/v1beta/models/to-gem:streamGenerateContent?alt=sse", geminiHello)
	if resp.StatusCode != 200 || !strings.Contains(body, `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"eamed"}]}`) ||
		resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("native stream: %d %s", resp.StatusCode, body)
	}
	if got := gw.g.Requests(); got[1].Path != "/v1beta/models/gemini-2.0-flash:streamGenerateContent" || got[1].Query != "alt=sse" {
		t.Errorf("stream went to %s?%s", got[1].Path, got[1].Query)
	}
	// A failing first target: the walk fails over to Gemini, which still
	// gets the client's body as sent.
	resp, body = geminiPost(t, gw.url, "/v1beta/models/fails-over:generateContent", geminiHello)
	if resp.StatusCode != 200 || body != geminiAnswer || resp.Header.Get("X-Detour-Target") != "gem" {
		t.Errorf("failover: %d %s (target %s)", resp.StatusCode, body, resp.Header.Get("X-Detour-Target"))
	}
}

func TestGeminiDoorStreamsTranslated(t *testing.T) {
	gw := geminiGateway(t)
	resp, body := geminiPost(t, gw.url, "/v1/models/to-gpt:streamGenerateContent?alt=sse", geminiHello)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	frames := strings.Split(strings.TrimSpace(body), "\r\n\r\n")
	if len(frames) != 2 || !strings.Contains(frames[0], `"text":"Hel"`) || !strings.Contains(frames[1], `"text":"lo"`) ||
		!strings.Contains(frames[1], `"finishReason":"STOP"`) || !strings.Contains(frames[1], `"totalTokenCount":7`) {
		t.Errorf("frames %q", frames)
	}
	// Without alt=sse: a 400 in Google's envelope.
	resp, body = geminiPost(t, gw.url, "/v1beta/models/to-gpt:streamGenerateContent", geminiHello)
	if resp.StatusCode != 400 || !strings.Contains(body, `"status":"INVALID_ARGUMENT"`) || !strings.Contains(body, "alt=sse") {
		t.Errorf("no alt=sse: %d %s", resp.StatusCode, body)
	}
}

func TestGeminiDoorErrorsInGooglesEnvelope(t *testing.T) {
	gw := geminiGateway(t)
	for _, c := range []struct {
		path, body, key string
		status          int
		want            string
	}{
		{"/v1beta/models/nope:generateContent", geminiHello, "gk-one", 404, `"status":"NOT_FOUND"`},
		{"/v1beta/models/to-gpt:generateContent", geminiHello, "wrong", 401, `"status":"UNAUTHENTICATED"`},
		{"/v1beta/models/to-gpt:generateContent", `{"contents":[],"Contents":[]}`, "gk-one", 400, `"status":"INVALID_ARGUMENT"`},
		{"/v1beta/models/to-gpt:generateContent", `{"contents":[{"role":"user","parts":[{"text":"a"}]}],"generationConfig":{"candidateCount":2}}`, "gk-one", 400, "candidateCount"},
		{"/v1beta/models/to-gpt:generateContent", `{"contents":[{"role":"user","parts":[{"text":"a"}]}],"tools":[{"googleSearch":{}}]}`, "gk-one", 400, "googleSearch"},
		{"/v1beta/models/to-gpt:predict", `{}`, "gk-one", 404, `"status":"NOT_FOUND"`},
	} {
		resp, body := postWith(t, gw.url, c.path, c.body, "X-Goog-Api-Key", c.key)
		if resp.StatusCode != c.status || !strings.Contains(body, c.want) || !strings.Contains(body, `"code":`) {
			t.Errorf("%s %s: %d %s, want %d with %s", c.path, c.body, resp.StatusCode, body, c.status, c.want)
		}
	}
	// A request only Gemini serves goes to the route's Gemini target.
	resp, body := geminiPost(t, gw.url, "/v1beta/models/gpt-then-gem:generateContent", `{"contents":[{"role":"user","parts":[{"text":"a"}]}],"tools":[{"googleSearch":{}}]}`)
	if resp.StatusCode != 200 || body != geminiAnswer {
		t.Errorf("googleSearch on [gpt, gem]: %d %s", resp.StatusCode, body)
	}
}

func TestGeminiDoorKeyInTheURLIsNeverKept(t *testing.T) {
	gw := geminiGateway(t)
	resp, body := postWith(t, gw.url, "/v1beta/models/to-gem:generateContent?key=gk-two", geminiHello)
	if resp.StatusCode != 200 {
		t.Fatalf("?key=: %d %s", resp.StatusCode, body)
	}
	resp, _ = postWith(t, gw.url, "/v1beta/models/nope:generateContent?key=gk-two", geminiHello) // refused at the front: logged at debug
	if resp.StatusCode != 404 {
		t.Errorf("unknown model: %d", resp.StatusCode)
	}
	resp, _ = postWith(t, gw.url, "/v1beta/nowhere?key=gk-two", `{}`)
	if resp.StatusCode != 404 {
		t.Errorf("unknown path: %d", resp.StatusCode)
	}
	d := gw.recs.Wait(t, 1)
	rec, _ := json.Marshal(d)
	h, err := http.Get(gw.url + "/v1/health")
	if err != nil {
		t.Fatal(err)
	}
	health, _ := io.ReadAll(h.Body)
	h.Body.Close()
	time.Sleep(50 * time.Millisecond)
	for what, b := range map[string]string{"record": string(rec), "log": gw.log.String(), "health": string(health)} {
		if strings.Contains(b, "gk-two") {
			t.Errorf("the ?key= key is in the %s: %s", what, b)
		}
	}
	if d.ClientKey != 2 {
		t.Errorf("record names key %d, want 2 (?key=)", d.ClientKey)
	}
	for _, r := range gw.g.Requests() {
		if strings.Contains(r.Query, "gk-two") || r.Header.Get("X-Goog-Api-Key") != "sk-gem" {
			t.Errorf("upstream request %s?%s key %q", r.Path, r.Query, r.Header.Get("X-Goog-Api-Key"))
		}
	}
}

func TestGeminiDoorCountsAndLists(t *testing.T) {
	gw := geminiGateway(t)
	count := `{"contents":[{"role":"user","parts":[{"text":"12345678"}]}]}`
	resp, body := geminiPost(t, gw.url, "/v1beta/models/to-gem:countTokens", count)
	if resp.StatusCode != 200 || body != `{"totalTokens":42}` {
		t.Errorf("native count: %d %s", resp.StatusCode, body)
	}
	resp, body = geminiPost(t, gw.url, "/v1beta/models/to-gpt:countTokens", count)
	if resp.StatusCode != 200 || body != `{"totalTokens":2}` {
		t.Errorf("estimate: %d %s", resp.StatusCode, body)
	}
	req, _ := http.NewRequest(http.MethodGet, gw.url+"/v1beta/models", nil)
	req.Header.Set("X-Goog-Api-Key", "gk-one")
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != 200 || !strings.Contains(string(b), `"name":"models/to-gem"`) || !strings.Contains(string(b), `"supportedGenerationMethods":["generateContent"`) {
		t.Errorf("list: %d %s", r.StatusCode, b)
	}
	req, _ = http.NewRequest(http.MethodGet, gw.url+"/v1/models/to-gpt", nil) // apiVersion v1, by its key header
	req.Header.Set("X-Goog-Api-Key", "gk-one")
	if r, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != 200 || !strings.HasPrefix(string(b), `{"name":"models/to-gpt"`) {
		t.Errorf("get: %d %s", r.StatusCode, b)
	}
}
