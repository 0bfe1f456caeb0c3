package browser

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Operator review 57, on the console. A slow burn: provider
// alpha's time to first token climbs to 2 s while its headers and its role-only first chunk
// still come at once (a streaming OpenAI-compatible server; chunks are upstreamtest.ChatStream's,
// OpenAI's chat.completion.chunk shape). beta answers its headers in 150 ms and its tokens at
// once. The operator opens the Health page to find out which provider is slow: before round 57
// "Latency (first byte)" said alpha ~1 ms, beta ~150 ms — the slow provider shown as the fast
// one, and the `fastest` route kept sending it every stream. "Latency (first token)" now.
func TestConsoleHealthShowsWhichProviderIsSlowToAnswer_op57(t *testing.T) {
	b := newBrowser(t)
	var alphaTTFT atomic.Int64
	alphaTTFT.Store(int64(50 * time.Millisecond))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	alpha := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		evs := upstreamtest.ChatStream("alpha-large", "Hel", "lo")
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		fmt.Fprintf(w, "data: %s\n\n", evs[0])
		http.NewResponseController(w).Flush()
		select {
		case <-time.After(time.Duration(alphaTTFT.Load())):
		case <-r.Context().Done():
			return
		}
		for _, ev := range evs[1:] {
			fmt.Fprintf(w, "data: %s\n\n", ev)
		}
	})}
	go alpha.Serve(ln)
	t.Cleanup(func() { alpha.Close() })
	fakes := map[string]*upstreamtest.Server{
		"beta": upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Delay: 150 * time.Millisecond, Events: upstreamtest.ChatStream("beta-large", "Hel", "lo")})),
	}
	t.Cleanup(fakes["beta"].Close)
	g := startGateway(t, `
providers:
  - {name: alpha, dialect: openai, base_url: "http://`+ln.Addr().String()+`", api_key: sk-a, first_token_timeout: 5s}
  - {name: beta, dialect: openai, base_url: "{beta}", api_key: sk-b, first_token_timeout: 5s}
targets:
  - {name: a, model: alpha-large, providers: [alpha]}
  - {name: b, model: beta-large, providers: [beta]}
routes:
  - {name: live, strategy: fastest, targets: [a, b]}
`, fakes)
	stream := func() (target string, wait time.Duration) {
		start := time.Now()
		resp, err := http.Post(g.URL+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"live","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if wait == 0 && strings.Contains(sc.Text(), `"content":"Hel"`) {
				wait = time.Since(start)
			}
		}
		return resp.Header.Get("X-Detour-Target"), wait
	}
	for range 3 {
		stream()
	}
	alphaTTFT.Store(int64(2 * time.Second)) // the burn
	var served []string
	for range 3 {
		tg, w := stream()
		served = append(served, fmt.Sprintf("%s after %v", tg, w.Round(10*time.Millisecond)))
	}
	b.do(t, chromedp.EmulateViewport(1400, 900), chromedp.Navigate(g.URL+"/ui/health"))
	row := func(target string) string {
		return `[...document.querySelectorAll('#endpoints tbody tr')].find(r => r.cells[0].textContent === '` + target + `')`
	}
	b.mustWait(t, "endpoints a and b show", `!!(`+row("a")+`) && !!(`+row("b")+`)`)
	b.screenshot(t, "op57-slowburn-health")
	ra := strings.Join(strings.Fields(eval[string](t, b, row("a")+`.innerText`)), " ")
	rb := strings.Join(strings.Fields(eval[string](t, b, row("b")+`.innerText`)), " ")
	t.Logf("streams during the burn: %v\nHealth row a: %q\nHealth row b: %q", served, ra, rb)
	la := eval[float64](t, b, `(()=>{const s=`+row("a")+`.lastElementChild.textContent; return parseFloat(s) * (s.includes(' s') && !s.includes('ms') ? 1000 : 1)})()`)
	lb := eval[float64](t, b, `(()=>{const s=`+row("b")+`.lastElementChild.textContent; return parseFloat(s) * (s.includes(' s') && !s.includes('ms') ? 1000 : 1)})()`)
	if la < lb {
		t.Errorf("the Health page says alpha answers in %v ms and beta in %v ms, while alpha's clients wait 2 s for their first token and beta's 150 ms (streams %v): "+
			"an operator reading it is told the slow provider is the fast one", la, lb, served)
	}
}
