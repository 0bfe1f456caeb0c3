package app

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/redistest"
)

// state.timeout reaches both the Redis client (each read) and the store
// (each operation, here a transaction of several round trips): behind a
// Redis that answers 600ms late, a replica with the default timeout (500ms)
// serves from local state, and one with timeout: 10s keeps sharing.
func TestStateTimeoutReachesTheStore(t *testing.T) {
	srv := redistest.Start(t)
	slow := redistest.StartProxy(t, srv.Addr())
	slow.Slow(600 * time.Millisecond)
	for _, c := range []struct {
		timeout string
		shared  bool
	}{{"", false}, {", timeout: 10s", true}} {
		yaml := `state: {store: redis, url: "` + slow.URL() + `"` + c.timeout + `}
decisions: {path: "` + filepath.Join(t.TempDir(), "d.jsonl") + `"}
providers:
  - {name: p, dialect: openai, base_url: "http://127.0.0.1:1/v1", api_key: sk-test}
targets:
  - {name: t, model: m, providers: [p]}
`
		cfg, err := config.Parse("t.yaml", []byte(yaml), nil)
		if err != nil {
			t.Fatal(err)
		}
		a, err := New(cfg, Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		rs := a.store.(*health.RedisStore)
		_ = rs.Update(context.Background(), "{p}:ep:t", func(r *health.Record) { r.Failures++ }, nil)
		if rs.Shared() != c.shared {
			t.Errorf("state%s: shared %v after one update through a Redis 600ms slow, want %v", c.timeout, rs.Shared(), c.shared)
		}
		a.Close(context.Background())
	}
}
