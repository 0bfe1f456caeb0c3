package app_test

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/testutil"
)

// A key that needs a restart is compared with what runs, at every reload
// (docs/deploy.md, "Reloading"): a second reload of a file that still
// changes it warns again, and a file put back to what runs warns nothing.
// Before (operator review 48), the value a reload had ignored became the
// reference, so the second reload was silent and the restore warned.
func TestRestartKeysComparedWithWhatRuns(t *testing.T) {
	dir := t.TempDir()
	cfg := func(decisions string) string {
		return fmt.Sprintf(`
decisions: {path: %q}
providers:
  - {name: p, dialect: openai, base_url: "http://127.0.0.1:1", api_key: sk-reload-abcdefgh}
targets:
  - {name: t, model: m, providers: [p]}
routes:
  - {name: r, targets: [t]}
`, filepath.Join(dir, decisions))
	}
	log := &testutil.Buffer{}
	_, a := gatewaytest.Start(t, gatewaytest.Config(t, cfg("a.jsonl")), app.Options{Logger: slog.New(slog.NewTextHandler(log, nil))})
	for i, step := range []struct {
		file string
		warn bool
	}{{"b.jsonl", true}, {"b.jsonl", true}, {"a.jsonl", false}, {"a.jsonl", false}} {
		log.Take()
		if err := a.Reload(gatewaytest.Config(t, cfg(step.file))); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(log.Take(), "key=decisions"); got != step.warn {
			t.Errorf("reload %d (decisions %s, running a.jsonl): warned %v, want %v", i+1, step.file, got, step.warn)
		}
	}
}

// Two replicas on one host are told apart on the console's pages: its
// name is the host name and the listen port (operator review 48b).
func TestReplicaNameHoldsThePort(t *testing.T) {
	h, _ := os.Hostname()
	for listen, want := range map[string]string{"127.0.0.1:8080": h + ":8080", ":9090": h + ":9090", "": h} {
		if got := app.ReplicaName(listen); got != want {
			t.Errorf("%q: %q, want %q", listen, got, want)
		}
	}
}
