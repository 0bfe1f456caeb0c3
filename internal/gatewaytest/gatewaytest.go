package gatewaytest

import (
	"context"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/config"
)

// grace is how long cleanup lets requests still in flight finish.
const grace = 2 * time.Second

// Config parses yaml as a configuration file, with no environment: a
// ${VAR} in it is unset.
func Config(t testing.TB, yaml string) *config.Config {
	t.Helper()
	cfg, err := config.Parse("test.yaml", []byte(yaml), nil)
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	return cfg
}

// Start serves cfg with opt on a loopback port until the test ends and
// returns its base URL ("http://127.0.0.1:port") and the app. A nil
// opt.Logger discards the log.
func Start(t testing.TB, cfg *config.Config, opt app.Options) (url string, a *app.App) {
	t.Helper()
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	a, err := app.New(cfg, opt)
	if err != nil {
		t.Fatalf("app: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		a.Close(context.Background())
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Serve(ctx, ln, grace); close(done) }()
	t.Cleanup(func() { cancel(); <-done; a.Close(context.Background()) })
	return "http://" + ln.Addr().String(), a
}
