package process

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// A reload reads the environment detour started with: a file that now
// names a variable set since (in the operator's shell, where `detour check`
// passed) is refused, and the log says why the two differ (operator review
// 61f: "environment variable "ADMIN_KEY" is not set" alone, after a green
// check).
func TestReloadOfANewVariableSaysItNeedsARestart_op61(t *testing.T) {
	t.Parallel()
	up := fake(t, ok("gpt-4o"))
	v1 := render(`
providers:
  - {name: openai, dialect: openai, base_url: "{up}", api_key: sk-test}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai]}
routes:
  - {name: first, targets: [gpt]}
`, map[string]string{"up": up.URL})
	g := startGateway(t, "G", v1)
	g.postOK("first")
	g.writeConfig(`admin_keys: ["${DETOUR_OP61_NEW_ADMIN_KEY}"]` + "\n" + v1)
	g.signal(syscall.SIGHUP)
	poll(t, 30*time.Second, "the failed reload to be logged", func() bool {
		return strings.Contains(g.stderr.String(), "config reload failed")
	})
	var line string
	for _, l := range strings.Split(g.stderr.String(), "\n") {
		if strings.Contains(l, "config reload failed") {
			line = l
		}
	}
	if !strings.Contains(line, "DETOUR_OP61_NEW_ADMIN_KEY") || !strings.Contains(line, "a variable set since needs a restart") {
		t.Errorf("the refused reload does not say a new variable needs a restart: %s", line)
	}
	g.postOK("first")
}
