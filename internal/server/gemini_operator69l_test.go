package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Operator review 69l: a team's Gemini CLI users behind Detour, each with a
// client key and a monthly budget.

const op69lCfg = `
client_keys:
  - {name: dev, key: gk-dev, budget: {usd_per_month: 0.0001}}
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: sk-openai}
  - {name: lim, dialect: openai, base_url: "{lim}", api_key: sk-lim}
targets:
  - {name: gpt, model: gpt-4o-mini, providers: [p], price: {input: 100, output: 100}}
  - {name: limited, model: gpt-4o-mini, providers: [lim]}
routes:
  - {name: gemini-3.8-flash, targets: [gpt]}
  - {name: gemini-3.5-flash-lite, targets: [limited]}
`

func op69lGateway(t *testing.T) (url string) {
	t.Helper()
	p := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o-mini", "hi")}
	})
	lim := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Status: 429, Header: map[string]string{"Retry-After": "120"},
			Body: `{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}`}
	})
	t.Cleanup(p.Close)
	t.Cleanup(lim.Close)
	cfg := strings.NewReplacer("{p}", p.URL, "{lim}", lim.URL).Replace(op69lCfg)
	url, _ = gatewaytest.Start(t, gatewaytest.Config(t, cfg), app.Options{Decisions: gatewaytest.NewRecords()})
	return url
}

// retryDelay is the RetryInfo detail's retryDelay of a Google error body, or "".
func retryDelay(t *testing.T, body string) string {
	t.Helper()
	var e struct {
		Error struct {
			Details []struct {
				Type       string `json:"@type"`
				RetryDelay string `json:"retryDelay"`
			}
		}
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		t.Fatalf("not Google's envelope: %v: %s", err, body)
	}
	for _, d := range e.Error.Details {
		if d.Type == "type.googleapis.com/google.rpc.RetryInfo" {
			return d.RetryDelay
		}
	}
	return ""
}

// A 429 of the Gemini door that names its wait in Retry-After says it in
// the body too, as Google's RetryInfo: the Gemini CLI reads only that (and
// a "Please retry in …" in the message), and without it retried a key's
// spent monthly budget ten times over three minutes before it gave up
// (0.61.0, classifyGoogleError: a RetryInfo past 300 s ends the turn at
// once). An upstream's rate limit with a Retry-After says its wait the same
// way.
func TestOperator69lGeminiDoor429SaysItsWaitAsRetryInfo(t *testing.T) {
	url := op69lGateway(t)
	const hello = `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`
	// The first request spends the budget (its price is $100 a million tokens).
	if resp, body := postWith(t, url, "/v1beta/models/gemini-3.8-flash:generateContent", hello, "X-Goog-Api-Key", "gk-dev"); resp.StatusCode != 200 {
		t.Fatalf("first request: %d %s", resp.StatusCode, body)
	}
	resp, body := postWith(t, url, "/v1beta/models/gemini-3.8-flash:generateContent", hello, "X-Goog-Api-Key", "gk-dev")
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("over budget: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if got, want := retryDelay(t, body), resp.Header.Get("Retry-After")+"s"; got != want {
		t.Errorf("budget refusal's RetryInfo retryDelay %q, want %q (the Retry-After): %s", got, want, body)
	}
}

func TestOperator69lGeminiDoorUpstreamRateLimitSaysItsWait(t *testing.T) {
	url := op69lGateway(t)
	resp, body := postWith(t, url, "/v1beta/models/gemini-3.5-flash-lite:generateContent",
		`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`, "Authorization", "Bearer gk-dev")
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("rate limited: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	if got, want := retryDelay(t, body), resp.Header.Get("Retry-After")+"s"; got != want {
		t.Errorf("upstream rate limit's RetryInfo retryDelay %q, want %q: %s", got, want, body)
	}
}

// The Gemini door's own refusals are counted under door "gemini" (and its
// countTokens and embeddings fronts under their names), as every other
// door's under its own: they were all "other", so a Gemini CLI user whose
// key was refused (a spent budget, a side call's model name no route has)
// could not be told apart from a stray client on the dashboards.
func TestOperator69lGeminiDoorRefusalsAreCountedAsGemini(t *testing.T) {
	url := op69lGateway(t)
	const hello = `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`
	for _, c := range []struct{ path, key string }{
		{"/v1beta/models/gemini-3.1-pro-preview:generateContent", "gk-dev"},         // model_not_found
		{"/v1beta/models/gemini-3.8-flash:streamGenerateContent?alt=sse", "gk-bad"}, // invalid_api_key
		{"/v1beta/models/gemini-3.8-flash:countTokens", "gk-bad"},
		{"/v1beta/models/gemini-3.8-flash:embedContent", "gk-bad"},
	} {
		if resp, body := postWith(t, url, c.path, hello, "X-Goog-Api-Key", c.key); resp.StatusCode < 400 {
			t.Fatalf("%s: %d %s", c.path, resp.StatusCode, body)
		}
	}
	_, m := r48bDo(t, url, http.MethodGet, "/metrics", "")
	var got []string
	for _, l := range strings.Split(m, "\n") {
		if strings.HasPrefix(l, "detour_front_refusals_total") {
			got = append(got, l)
		}
	}
	for _, want := range []string{
		`detour_front_refusals_total{code="model_not_found",door="gemini"} 1`,
		`detour_front_refusals_total{code="invalid_api_key",door="gemini"} 1`,
		`detour_front_refusals_total{code="invalid_api_key",door="gemini_count_tokens"} 1`,
		`detour_front_refusals_total{code="invalid_api_key",door="gemini_embeddings"} 1`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %s; have %q", want, got)
		}
	}
}
