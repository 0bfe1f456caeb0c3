package e2e

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 32a: client text that reaches the classifier transformed.
//
// clientImageHost is the client's own image host on loopback: it answers
// every fetch with status (a 401 asks for the client's credentials, a 402
// is a paywall of the client's site): nothing the gateway's provider
// account has anything to do with.
func clientImageHost(t *testing.T, status int) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, http.StatusText(status), status)
	}))
	t.Cleanup(s.Close)
	return s
}

// imageURLOf decodes the request as any JSON reader does (escapes
// decoded) and returns its first image_url.
func imageURLOf(body []byte) string {
	var req struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(body, &req)
	for _, m := range req.Messages {
		var parts []struct {
			ImageURL struct {
				URL string `json:"url"`
			} `json:"image_url"`
		}
		_ = json.Unmarshal(m.Content, &parts)
		for _, p := range parts {
			if p.ImageURL.URL != "" {
				return p.ImageURL.URL
			}
		}
	}
	return ""
}

// fetchingUpstream is an OpenAI-compatible server that downloads the
// client's image before it runs the model and, when the download fails,
// answers status with message(url, downloadStatus) in the OpenAI envelope.
func fetchingUpstream(model string, status int, message func(url string, got int) string) upstreamtest.Script {
	return func(_ int, r upstreamtest.Request) upstreamtest.Step {
		u := imageURLOf(r.Body)
		if u == "" {
			return ok(model, "hi")
		}
		resp, err := http.Get(u)
		if err != nil {
			return upstreamtest.Step{Status: 500, Body: `{"error":{"message":"fetch failed"}}`}
		}
		resp.Body.Close()
		if resp.StatusCode == 200 {
			return ok(model, "hi")
		}
		b, _ := json.Marshal(map[string]any{"error": map[string]any{
			"message": message(u, resp.StatusCode), "type": "invalid_request_error", "param": nil, "code": nil}})
		return upstreamtest.Step{Status: status, Body: string(b)}
	}
}

// wantNothingCooledNorPaged checks the first record's attempt at p, the
// account's health and the webhook after a request whose failure was the
// client's own image host.
func wantNothingCooledNorPaged(t *testing.T, g *gateway, h *hook, what string) {
	t.Helper()
	d := g.recs.wait(t, 1)
	if len(d.Attempts) == 0 {
		t.Fatalf("no attempt recorded: %+v", d)
	}
	a := d.Attempts[0]
	if a.Provider != "p" {
		t.Fatalf("first attempt at %s, want p: %+v", a.Provider, a)
	}
	// A 5xx stays the server's own failure (server_error, counted toward
	// failure_threshold like any 5xx): what must not happen is a class
	// that cools the account, pages, or cools the endpoint at once.
	switch a.Class {
	case "auth", "quota", "forbidden", "unavailable", "rate_limited":
		t.Errorf("%s: the client's image host decided p's attempt: %s (%s)", what, a.Class, a.Evidence)
	}
	hl := g.health(t)
	for _, acc := range hl.Accounts {
		if acc.Name == "p" && acc.State != "healthy" {
			t.Errorf("%s: account p is %s (last class %s)", what, acc.State, acc.LastClass)
		}
	}
	if ep, ok := hl.Endpoint("a", "p"); ok && ep.State != "healthy" {
		t.Errorf("%s: endpoint a/p is %s (last class %s)", what, ep.State, ep.LastClass)
	}
	wantOnlyControlAlert(t, g, h, "", what)
}

// TestEscapedClientURLIsStillTheClients: the notClient phrases ("Please
// re-authenticate" after a failed download) are no evidence where the
// answer names a URL the client's request holds (clienturl.go). The
// request is compared byte for byte: the same URL written with a JSON
// escape ("\u0068ttps", "\u002f"), which every upstream decodes, is not
// recognised, and the client's own 401 pages the operator and cools the
// provider account. Wording as in classify's review27c case 5 (the
// mechanism the notClient rule was written for).
func TestEscapedClientURLIsStillTheClients(t *testing.T) {
	for _, tc := range []struct{ name, write string }{
		{"plain", "%s"},
		{"escaped h", `\u0068%s`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			host := clientImageHost(t, 401)
			h := newHook(t)
			fs := fakes(t, map[string]upstreamtest.Script{
				"p": fetchingUpstream("model-a", 400, func(u string, got int) string {
					return "Failed to download file from " + u + ": " + itoa(got) + " Unauthorized. Please re-authenticate."
				}),
				"p2": script(corpus(t, "openai-insufficient-quota-429")),
				"q":  script(ok("model-b", "q")),
			})
			g := startEcho(t, h.URL, fs)
			u := host.URL + "/share/1abc.png" // http://127.0.0.1:PORT/…
			written := strings.Replace(tc.write, "%s", u, 1)
			if strings.HasPrefix(tc.write, `\u0068`) {
				written = `\u0068` + u[1:]
			}
			g.raw(t, http.MethodPost, "/v1/chat/completions",
				`{"model":"r","messages":[{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"image_url","image_url":{"url":"`+written+`"}}]}]}`)
			wantNothingCooledNorPaged(t, g, h, "escaped client URL")
		})
	}
}

// TestClientImageHostStatusIsNoRelayedStatus: a Python server that
// downloads the client's image with requests and raise_for_status() (the
// pattern of vllm/utils/mm_utils.py encode_base64_content_from_url, LMDeploy's
// and SGLang's load_image) and answers the exception's text in a 500 says
// "<status> Client Error: <Reason> for url: <url>" (requests/models.py,
// Response.raise_for_status). classify reads "401 Client…" at the head of
// a 5xx as a relay's status (relay.go, sdkStatusLead: the Node SDK's
// "<status> <Message>"): the client's image host answering 401 (or 402)
// is taken for the provider's, the provider account is cooled for
// account_cooldown and the operator paged. The URL is a whole value of
// the client's request, written plainly.
func TestClientImageHostStatusIsNoRelayedStatus(t *testing.T) {
	for _, tc := range []struct {
		status int
		reason string
	}{{401, "Unauthorized"}, {402, "Payment Required"}, {429, "Too Many Requests"}} {
		t.Run(tc.reason, func(t *testing.T) {
			host := clientImageHost(t, tc.status)
			h := newHook(t)
			fs := fakes(t, map[string]upstreamtest.Script{
				"p": fetchingUpstream("model-a", 500, func(u string, got int) string {
					return itoa(got) + " Client Error: " + http.StatusText(got) + " for url: " + u
				}),
				"p2": script(corpus(t, "openai-insufficient-quota-429")),
				"q":  script(ok("model-b", "q")),
			})
			g := startEcho(t, h.URL, fs)
			g.raw(t, http.MethodPost, "/v1/chat/completions",
				`{"model":"r","messages":[{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"image_url","image_url":{"url":"`+host.URL+`/cat.png"}}]}]}`)
			wantNothingCooledNorPaged(t, g, h, "client image host "+tc.reason)
		})
	}
}

// TestEchoedBetaHeaderInA2xxError: dispatch reads a 2xx answer against the
// client's body only (call.go, evidence(false): "a success against the body
// alone"), but the classifier finds failures inside 2xx answers too (an
// error object in a 200, as relays send it). The anthropic-beta value the
// client chose, quoted back by such an answer, is then evidence: the
// provider account is cooled for account_cooldown and the operator paged.
// The same answer as a 400, or as an SSE error event, is read against the
// header (TestEchoedBetaHeaderIsNoEvidence).
func TestEchoedBetaHeaderInA2xxError(t *testing.T) {
	const beta = "insufficient_quota"
	h := newHook(t)
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			v := r.Header.Get("Anthropic-Beta")
			return upstreamtest.Step{Status: 200, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"Unexpected value(s) ` +
				"`" + v + "`" + ` for the ` + "`anthropic-beta`" + ` header. Please consult our documentation at docs.anthropic.com or try again without the header."}}`}
		},
	})
	g := start(t, strings.ReplaceAll(`
alerts: {webhook: "{hook}", min_interval: 1h}
providers:
  - {name: p, dialect: anthropic, base_url: "{p}", api_key: `+secret+`}
targets:
  - {name: a, model: claude-x, providers: [p]}
`, "{hook}", h.URL), fs)
	g.raw(t, http.MethodPost, "/v1/messages", `{"model":"a","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}`,
		"anthropic-version", "2023-06-01", "anthropic-beta", beta)
	a := g.recs.wait(t, 1).Attempts[0]
	if a.Class == "quota" || a.Class == "auth" {
		t.Errorf("the client's header value decided the attempt: %s (%s)", a.Class, a.Evidence)
	}
	for _, acc := range g.health(t).Accounts {
		if acc.Name == "p" && acc.State != "healthy" {
			t.Errorf("account p is %s (last class %s) after an echoed header", acc.State, acc.LastClass)
		}
	}
}
