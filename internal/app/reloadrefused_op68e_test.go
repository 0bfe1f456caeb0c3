package app_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/testutil"
)

// Operator review 68e: the console says a reload was refused, when, and
// why, in the log's words. What it shows is what the log line says,
// scrubbed as the log is (a key of the configuration served, were an error
// ever to quote one, is [redacted]), its invisible characters written as
// escapes, at most 20 lines with a count of the rest; a reload applied
// takes it away (/ui/api/meta's config).
func TestReloadRefusedReachesTheConsoleAsTheLogSaysIt_op68e(t *testing.T) {
	const key = "sk-op68e-running-key-0000000001"
	yaml := `providers:
  - {name: p, dialect: openai, base_url: "http://127.0.0.1:9/v1", api_key: ` + key + `}
targets:
  - {name: t, model: m, providers: [p]}
`
	var logs testutil.Buffer
	url, a := gatewaytest.Start(t, gatewaytest.Config(t, yaml), app.Options{Logger: logs.Logger()})
	type meta struct {
		Config struct {
			LoadedAt      string `json:"loaded_at"`
			ReloadRefused *struct {
				At     string   `json:"at"`
				Errors []string `json:"errors"`
				More   int      `json:"more"`
				Hint   string   `json:"hint"`
			} `json:"reload_refused"`
		} `json:"config"`
	}
	read := func() meta {
		t.Helper()
		resp, err := http.Get(url + "/ui/api/meta")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var m meta
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%v: %s", err, b)
		}
		return m
	}
	if m := read(); m.Config.LoadedAt == "" || m.Config.ReloadRefused != nil {
		t.Fatalf("at start: %+v", m.Config)
	}
	lines := []string{"detour.yaml:3: the key " + key + " is odd", "detour.yaml:4: a bidi override \u202e here"}
	for i := range 25 {
		lines = append(lines, fmt.Sprintf("detour.yaml:%d: problem %d", 10+i, i))
	}
	logs.Take()
	err := a.ReloadWith(func() (*config.Config, error) { return nil, errors.New(strings.Join(lines, "\n")) })
	if err == nil {
		t.Fatal("refused reload returned nil")
	}
	logged := logs.Take()
	m := read().Config
	r := m.ReloadRefused
	if r == nil || r.At == "" || len(r.Errors) != 20 || r.More != 7 {
		t.Fatalf("after a refused reload: %+v", m)
	}
	if r.Errors[0] != "detour.yaml:3: the key [redacted] is odd" || strings.Contains(logged, key) {
		t.Errorf("the key in the refusal: console %q; log:\n%s", r.Errors[0], logged)
	}
	if r.Errors[1] != `detour.yaml:4: a bidi override \u202E here` {
		t.Errorf("an invisible character: %q", r.Errors[1])
	}
	if !strings.Contains(logged, "config reload failed; keeping the running configuration") {
		t.Errorf("the log:\n%s", logged)
	}
	// The environment's hint, as the log gives it.
	a.ReloadWith(func() (*config.Config, error) {
		return nil, errors.New(`detour.yaml:2: environment variable "OPENAI_KEY" is not set`)
	})
	if r := read().Config.ReloadRefused; r == nil || len(r.Errors) != 1 || !strings.Contains(r.Hint, "environment detour started with") {
		t.Errorf("an unset variable: %+v", r)
	}
	if err := a.ReloadWith(func() (*config.Config, error) { return gatewaytest.Config(t, yaml), nil }); err != nil {
		t.Fatal(err)
	}
	m2 := read().Config
	before, _ := time.Parse(time.RFC3339Nano, m.LoadedAt)
	if after, err := time.Parse(time.RFC3339Nano, m2.LoadedAt); m2.ReloadRefused != nil || err != nil || !after.After(before) {
		t.Errorf("after a good reload: %+v (before %s)", m2, m.LoadedAt)
	}
}
