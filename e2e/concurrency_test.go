package e2e

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// heldUpstream answers every request only once release is closed (a stream
// after its first event); arrived gets one value per request as it comes.
func heldUpstream(t *testing.T) (url string, arrived chan struct{}, release chan struct{}) {
	arrived, release = make(chan struct{}, 16), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		arrived <- struct{}{}
		if strings.Contains(string(b), `"stream":true`) {
			w.Header().Set("Content-Type", "text/event-stream")
			evs := upstreamtest.ChatStream("gpt-4o", "hel", "lo")
			io.WriteString(w, "data: "+evs[0]+"\n\ndata: "+evs[1]+"\n\n")
			w.(http.Flusher).Flush()
			<-release
			for _, e := range evs[2:] {
				io.WriteString(w, "data: "+e+"\n\n")
			}
			return
		}
		<-release
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, upstreamtest.ChatJSON("gpt-4o", "hello"))
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	return srv.URL, arrived, release
}

func waitArrivals(t *testing.T, arrived chan struct{}, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		select {
		case <-arrived:
		case <-time.After(10 * time.Second):
			t.Fatalf("%d of %d requests reached the upstream", i, n)
		}
	}
}

// A client key's max_concurrent caps its requests in progress: one more is
// refused at once with 429 (Retry-After 1) before any upstream is called,
// other keys are not affected, and a slot comes back when its request ends —
// a stream's when the stream ends.
func TestClientKeyMaxConcurrent(t *testing.T) {
	up, arrived, release := heldUpstream(t)
	yaml := `client_keys:
  - {name: ci, key: key-ci, max_concurrent: 2}
  - key-admin
providers: [{name: p, dialect: openai, base_url: "` + up + `", api_key: sk-x}]
targets: [{name: gpt, model: gpt-4o, providers: [p]}]
`
	url, a := gatewaytest.Start(t, gatewaytest.Config(t, yaml), app.Options{})
	g := &gateway{URL: url, app: a}
	ci := []string{"Authorization", "Bearer key-ci"}

	var wg sync.WaitGroup
	got := make([]reply, 3)
	for i, stream := range []string{"", `,"stream":true`} {
		wg.Go(func() { got[i] = g.post(t, "gpt", stream, ci...) })
	}
	waitArrivals(t, arrived, 2)

	r := g.post(t, "gpt", "", ci...)
	if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") != "1" ||
		!strings.Contains(string(r.Body), `"client_concurrency_limit_exceeded"`) || !strings.Contains(r.errMessage(t), "max_concurrent 2") {
		t.Fatalf("third request of ci: %d %s (Retry-After %q)", r.Status, r.Body, r.Header.Get("Retry-After"))
	}
	// Another key is not held by ci's requests.
	wg.Go(func() { got[2] = g.post(t, "gpt", "", "Authorization", "Bearer key-admin") })
	waitArrivals(t, arrived, 1)
	select {
	case <-arrived:
		t.Fatal("the refused request reached the upstream")
	default:
	}

	close(release)
	wg.Wait()
	for i, r := range got {
		if r.Status != http.StatusOK {
			t.Errorf("request %d: %d %s", i, r.Status, r.Body)
		}
	}
	if !strings.HasSuffix(strings.TrimSpace(string(got[1].Body)), "[DONE]") {
		t.Errorf("the stream did not end: %s", got[1].Body)
	}
	// Both slots are back.
	for i := range 2 {
		if r := g.post(t, "gpt", "", ci...); r.Status != http.StatusOK {
			t.Fatalf("after the release, request %d: %d %s", i, r.Status, r.Body)
		}
		<-arrived
	}
	if v := metricValue(t, g, `detour_limit_refusals_total{client="ci",limit="max_concurrent"}`); v != "1" {
		t.Errorf("refusals metric %q, want 1", v)
	}
}
