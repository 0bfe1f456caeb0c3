package bench

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

const (
	model = "gpt-4o-mini"
	// chatBody is the client's request: a short chat, as most are.
	chatBody   = `{"model":"gpt","messages":[{"role":"system","content":"You are terse."},{"role":"user","content":"Say hello in five words."}]}`
	streamBody = `{"model":"gpt","stream":true,"messages":[{"role":"system","content":"You are terse."},{"role":"user","content":"Say hello in five words."}]}`
)

// answer is the fake's fixed non-stream answer.
var answer = upstreamtest.ChatJSON(model, "Hello there, nice to meet.")

// parts returns n short content parts for a streamed answer.
func parts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("word%d ", i)
	}
	return out
}

// fake starts a provider that always answers with st.
func fake(tb testing.TB, st upstreamtest.Step) *upstreamtest.Server {
	tb.Helper()
	s := upstreamtest.New(upstreamtest.Steps(st))
	tb.Cleanup(s.Close)
	return s
}

// gatewayYAML is the configuration served: one openai-dialect provider (the
// fake), one target, named directly by the client.
func gatewayYAML(fakeURL string) string {
	return `
providers:
  - {name: fake, dialect: openai, base_url: "` + fakeURL + `", api_key: sk-bench}
targets:
  - {name: gpt, model: ` + model + `, providers: [fake]}
`
}

// gateway starts Detour in-process in front of fakeURL and returns its base URL.
func gateway(tb testing.TB, fakeURL string) string {
	tb.Helper()
	url, _ := gatewaytest.Start(tb, gatewaytest.Config(tb, gatewayYAML(fakeURL)), app.Options{Decisions: decision.Discard})
	return url
}

// client is a keep-alive client able to hold conns connections per host.
func client(conns int) *http.Client {
	return &http.Client{Transport: &http.Transport{
		MaxIdleConns: 2 * conns, MaxIdleConnsPerHost: 2 * conns, IdleConnTimeout: time.Minute,
	}}
}

// endpoints are the URLs the same request is sent to: the fake itself,
// Detour in front of it and a plain reverse proxy in front of it.
type endpoints struct{ direct, gateway, plain string }

func setup(tb testing.TB, st upstreamtest.Step) endpoints {
	f := fake(tb, st)
	return endpoints{direct: f.URL + "/chat/completions", gateway: gateway(tb, f.URL) + "/v1/chat/completions",
		plain: plainProxy(tb, f.URL) + "/chat/completions"}
}

// plainProxy starts an httputil.ReverseProxy in front of fakeURL (flushing
// every write, as a streaming proxy must; a keep-alive transport like
// Detour's) and returns its base URL.
func plainProxy(tb testing.TB, fakeURL string) string {
	tb.Helper()
	u, err := url.Parse(fakeURL)
	if err != nil {
		tb.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1
	rp.Transport = &http.Transport{MaxIdleConns: 1000, MaxIdleConnsPerHost: 1000, IdleConnTimeout: time.Minute}
	s := httptest.NewServer(rp)
	tb.Cleanup(s.Close)
	return s.URL
}

// post sends body to url and reads the whole answer; it fails on anything
// but a 200.
func post(c *http.Client, url, body string) ([]byte, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d: %.200s", resp.StatusCode, b)
	}
	return b, nil
}

var done = []byte("data: [DONE]\n\n")

// TestSetup checks that the benchmarks measure successful answers (it is
// not a timing test).
func TestSetup(t *testing.T) {
	e := setup(t, upstreamtest.Step{Body: answer})
	c := client(1)
	for _, url := range []string{e.direct, e.gateway} {
		b, err := post(c, url, chatBody)
		if err != nil || !bytes.Contains(b, []byte("nice to meet")) {
			t.Fatalf("%s: %v %s", url, err, b)
		}
	}
	s := setup(t, upstreamtest.Step{Events: upstreamtest.ChatStream(model, parts(20)...)})
	for _, url := range []string{s.direct, s.gateway} {
		b, err := post(c, url, streamBody)
		if err != nil || !bytes.HasSuffix(b, done) || !bytes.Contains(b, []byte("word19")) {
			t.Fatalf("%s: %v %s", url, err, b)
		}
	}
}
