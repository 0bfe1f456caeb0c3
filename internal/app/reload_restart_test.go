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

// A reload whose file only moved the decisions line (a client key added
// above it, the commonest edit) changes nothing that needs a restart: the
// line kept for file:line errors is not part of the setting (operator
// review 52; before, every such reload warned "key=decisions").
func TestMovedDecisionsLineIsNoRestartChange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.jsonl")
	cfg := func(above string) string {
		return fmt.Sprintf(`%s
decisions: {path: %q}
providers:
  - {name: p, dialect: openai, base_url: "http://127.0.0.1:1", api_key: sk-reload-abcdefgh}
targets:
  - {name: t, model: m, providers: [p]}
routes:
  - {name: r, targets: [t]}
`, above, path)
	}
	log := &testutil.Buffer{}
	_, a := gatewaytest.Start(t, gatewaytest.Config(t, cfg("")), app.Options{Logger: slog.New(slog.NewTextHandler(log, nil))})
	log.Take()
	if err := a.Reload(gatewaytest.Config(t, cfg("client_keys:\n  - sk-added-key-0001\n  - sk-added-key-0002"))); err != nil {
		t.Fatal(err)
	}
	if got := log.Take(); strings.Contains(got, "needs a restart") {
		t.Errorf("a reload that moved the decisions line warned: %s", got)
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
