package dispatch_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/dispatch"
	"github.com/detour-llm/detour/internal/health"
)

// TestHostile57cShutdownEndsALeftWholeAnswer: a client with a limited
// key (Metered) sends a non-streaming request and leaves once it was sent;
// since fc7cbe9 the attempt goes on under context.WithoutCancel, "within
// the provider's timeouts; shutdown still ends it" (attempt.go,
// attemptContext). The shutdown grace period then ends (Options.Stop). The
// walk's base context was already canceled by the client, so the member's
// cancel(errShutdown) changes nothing: context.Cause stays
// context.Canceled, w.shuttingDown() stays false, and the AfterFunc that
// checked it had already run. The attempt is held until the provider's
// timeout (here 30s, the default is 60s per phase, headers then body): a
// shutdown waits on it.
func TestHostile57cShutdownEndsALeftWholeAnswer(t *testing.T) {
	sent := make(chan struct{}, 1)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // read: net/http notices a closed connection only then
		select {
		case sent <- struct{}{}:
		default:
		}
		select { // an upstream still generating (or holding the answer back)
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	}))
	defer up.Close()
	yaml := `providers:
  - {name: p, dialect: openai, base_url: "` + up.URL + `/v1", api_key: sk-test, timeout: 30s}
targets:
  - {name: t, model: m, providers: [p]}
routes:
  - {name: r, targets: [t], deadline: 60s}
`
	cfg, err := config.Parse("t.yaml", []byte(yaml), nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := health.New(health.NewMemory(), health.Settings{FailureThreshold: 1000, Cooldown: cfg.Health.Cooldown, MaxCooldown: cfg.Health.MaxCooldown},
		[]health.Key{{Target: "t", Provider: "p"}}, nil)
	stop, shut := context.WithCancel(context.Background())
	defer shut()
	d, err := dispatch.New(dispatch.Options{Config: cfg, Health: tr, Classifier: &classify.Classifier{Rules: cfg.Rules}, Stop: stop})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx, leave := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.Run(ctx, &dispatch.Call{Model: "r", Metered: true, Out: &client{}, ID: "id",
			Body: []byte(`{"model":"r","messages":[{"role":"user","content":"write a long essay"}]}`)})
	}()
	select {
	case <-sent:
	case <-time.After(5 * time.Second):
		t.Fatal("the request never reached the upstream")
	}
	time.Sleep(100 * time.Millisecond)
	leave()                            // the client leaves
	time.Sleep(200 * time.Millisecond) // the gateway keeps reading its answer (fc7cbe9)
	shut()                             // the grace period is over: every request in flight ends
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		t.Errorf("the shutdown grace period ended 3s ago and the request the client left is still held on its upstream (until the provider's 30s timeout): shutdown hangs on it")
		<-done
	}
}
