package browser

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Round 65, as an operator reads it: a /v1/completions request on a route
// whose first target serves chat only reads "not sent" with Detour's
// reason, then the completions target's answer; an embeddings request a
// vLLM refused for base64 says the refusal was answered by sending again
// without encoding_format (resent_without), and the Unknowns page does not
// list that refusal.
func TestConsoleShowsCompletionsAndAResend_review65(t *testing.T) {
	b := newBrowser(t)
	vllm := func(_ int, r upstreamtest.Request) upstreamtest.Step {
		switch {
		case strings.HasSuffix(r.Path, "/embeddings") && bytes.Contains(r.Body, []byte("encoding_format")):
			return upstreamtest.Step{Status: 400, Body: `{"object":"error","message":"base64 encoding is not currently supported","type":"BadRequestError","param":null,"code":400}`}
		case strings.HasSuffix(r.Path, "/embeddings"):
			return upstreamtest.Step{Body: `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[1,1.25,1.5]}],"model":"bge-m3","usage":{"prompt_tokens":2,"total_tokens":2}}`}
		}
		return upstreamtest.Step{Body: `{"id":"cmpl-1","object":"text_completion","created":1767225600,"model":"qwen-coder","choices":[{"text":"return a + b","index":0,"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":6,"completion_tokens":4,"total_tokens":10}}`}
	}
	fakes := map[string]*upstreamtest.Server{
		"chatonly": upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Body: `{"never":"called"}`})),
		"vllm":     upstreamtest.New(vllm),
	}
	for _, f := range fakes {
		t.Cleanup(f.Close)
	}
	g := startGateway(t, `
providers:
  - {name: chatonly, dialect: openai, base_url: "{chatonly}", api_key: `+secret+`}
  - {name: vllm, dialect: openai, base_url: "{vllm}", api_key: `+secret+`, completions: true}
targets:
  - {name: chat, model: llama-3, providers: [chatonly]}
  - {name: coder, model: qwen-coder, providers: [vllm]}
  - {name: bge, model: bge-m3, providers: [vllm], dimensions: 3}
routes:
  - {name: autocomplete, targets: [chat, coder]}
  - {name: vectors, targets: [bge]}
`, fakes)
	post := func(path, body string) string {
		t.Helper()
		resp, err := http.Post(g.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		id := resp.Header.Get("X-Detour-Decision")
		if resp.StatusCode != 200 || id == "" {
			t.Fatalf("%s: client got %d, decision %q", path, resp.StatusCode, id)
		}
		return id
	}
	completion := post("/v1/completions", `{"model":"autocomplete","prompt":"def add(a, b):\n    ","suffix":"\n","max_tokens":16}`)
	vectors := post("/v1/embeddings", `{"model":"vectors","input":["alpha"],"encoding_format":"base64"}`)

	steps := `document.querySelectorAll('#detail li.step')`
	open := func(id string) {
		t.Helper()
		b.do(t, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(g.URL+"/ui/decisions?id="+id))
		b.mustWait(t, "the detail", `!document.querySelector('#detail').hidden && `+steps+`.length === 2`)
	}
	open(completion)
	if got := eval[string](t, b, steps+`[0].querySelector('.verdict').textContent`); !strings.HasPrefix(got, "not sent") {
		t.Errorf("the chat-only target's attempt reads %q, want not sent", got)
	}
	if got := eval[string](t, b, steps+`[0].querySelector('blockquote').textContent`); !strings.Contains(got, "completions: true") {
		t.Errorf("its reason reads %q, want the option that serves the API", got)
	}
	if got := eval[string](t, b, steps+`[1].querySelector('.verdict').textContent`); !strings.HasPrefix(got, "HTTP 200") {
		t.Errorf("the completions target's attempt reads %q", got)
	}
	b.screenshot(t, "decision-completions")

	open(vectors)
	if got := eval[string](t, b, steps+`[0].querySelector('.flags').textContent`); !strings.Contains(got, "refused encoding_format: sent again without it") {
		t.Errorf("the refused attempt's flags read %q, want the resend said", got)
	}
	b.screenshot(t, "decision-resent-without")

	b.do(t, chromedp.Navigate(g.URL+"/ui/unknowns"))
	// The page has loaded its groups when it says it has none or shows one.
	b.mustWait(t, "the unknowns loaded", `!document.querySelector('#empty').hidden || !!document.querySelector('article.group')`)
	if n := eval[int](t, b, `document.querySelectorAll('article.group').length`); n != 0 {
		t.Errorf("the Unknowns page lists %d groups, want none: the one refusal was answered by a resend", n)
	}
	b.screenshot(t, "unknowns-after-resend")
}
