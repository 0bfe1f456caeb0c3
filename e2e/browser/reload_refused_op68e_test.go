package browser

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Operator review 68e. An operator edits detour.yaml with typos (a key
// misspelt, a duration without its unit, a key and its value run together,
// a provider misspelt in a target) — the file adds a provider with a new
// key — and reloads: the reload is refused, and the console, where the
// operator watches the gateway, said nothing: it went on showing the old
// configuration as if the edit had taken. Now every page says, above its
// title, that the last reload was refused, when, why (the log's
// "file:line: message" lines, none holding a key) and that the gateway runs
// on the configuration loaded at its start; a good reload takes the notice
// away. The reload is the one SIGHUP runs (App.ReloadWith: load the file,
// apply it, or refuse it and log why).
func TestConsoleSaysTheLastReloadWasRefused_op68e(t *testing.T) {
	b := newBrowser(t)
	up := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o", "Hello.")}
	})
	t.Cleanup(up.Close)
	const (
		admin     = "adm-console-68e-abcdefgh"
		running   = "sk-oai-running-68e-0000000001"
		newKey    = "sk-proj-N3wBackupKey68eQz7XwVu5TsRp"
		pastedKey = "sk-proj-Th1rdKey68eAbCdEfGhIjKlMn"
	)
	good := `
admin_keys: [` + admin + `]
providers:
  - {name: oai, dialect: openai, base_url: "` + up.URL + `", api_key: ` + running + `}
targets:
  - {name: gpt, model: gpt-4o, providers: [oai]}
routes:
  - {name: r, targets: [gpt]}
`
	// Lines 7, 8, 10 and 12 are wrong.
	bad := `
admin_keys: [` + admin + `]
providers:
  - {name: oai, dialect: openai, base_url: "` + up.URL + `", api_key: ` + running + `}
  - name: backup
    dialect: openai
    api_kye: ` + newKey + `
    timeout: 30
    base_url: "` + up.URL + `"
  - {name: third, dialect: openai, base_url: "` + up.URL + `", api_key ` + pastedKey + `}
targets:
  - {name: gpt, model: gpt-4o, providers: [oai, backpu]}
routes:
  - {name: r, targets: [gpt]}
`
	mended := strings.NewReplacer("api_kye:", "api_key:", "timeout: 30\n", "timeout: 30s\n", "api_key "+pastedKey, "api_key: "+pastedKey,
		"[oai, backpu]", "[oai, backup, third]").Replace(bad)

	path := filepath.Join(t.TempDir(), "detour.yaml")
	write := func(yaml string) {
		if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(good)
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var log testutil.Buffer // the gateway writes it while the test reads it
	url, a := gatewaytest.Start(t, cfg, app.Options{Decisions: gatewaytest.NewRecords(), Backoff: func() time.Duration { return time.Millisecond },
		Logger: slog.New(slog.NewJSONHandler(&log, nil))})
	sighup := func() error { return a.ReloadWith(func() (*config.Config, error) { return config.Load(path) }) }
	started := time.Now()

	// The edit with typos, reloaded: refused, and the log says why.
	write(bad)
	time.Sleep(1100 * time.Millisecond) // the refusal's time is not the start's, to the second
	if err := sighup(); err == nil {
		t.Fatal("the file with typos was applied")
	}
	var why []string
	for _, line := range strings.Split(log.String(), "\n") {
		var l struct{ Msg, Err string }
		if json.Unmarshal([]byte(line), &l) == nil && strings.HasPrefix(l.Msg, "config reload failed") {
			why = strings.Split(l.Err, "\n")
		}
	}
	if len(why) != 4 {
		t.Fatalf("the log's refusal: %q, want 4 file:line errors (lines 7, 8, 10, 12)\n%s", why, log.String())
	}
	// The gateway keeps serving what it ran.
	req, _ := http.NewRequest("POST", url+"/v1/chat/completions", strings.NewReader(`{"model":"r","messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("after the refused reload a request: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}

	base := strings.Replace(url, "http://", "http://op:"+admin+"@", 1)
	notice := `document.querySelector('#reload-notice')`
	shown := `!` + notice + `.hidden && ` + notice + `.innerText.includes('refused')`
	b.do(t, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(base+"/ui/health"))
	b.mustWait(t, "the Health page says the reload was refused", shown)
	b.mustWait(t, "the Health page lists gpt", `[...document.querySelectorAll('#endpoints tbody tr')].some(r => r.cells[0].textContent === 'gpt')`)
	b.screenshot(t, "op68e-reload-refused-health")
	text := eval[string](t, b, notice+`.innerText`)
	items := eval[[]string](t, b, `[...document.querySelectorAll('#reload-notice ul.reasons li')].map(li => li.textContent)`)
	if strings.Join(items, "\n") != strings.Join(why, "\n") {
		t.Errorf("the notice's reasons:\n%s\nwant the log's:\n%s", strings.Join(items, "\n"), strings.Join(why, "\n"))
	}
	for _, line := range []string{":7: unknown key \"api_kye\"", ":8: provider timeout: bad duration \"30\"", ":10: unknown key \"api_key …\"", ":12: target \"gpt\": unknown provider \"backpu\""} {
		if !strings.Contains(text, filepath.Base(path)+line) {
			t.Errorf("the notice does not say %q:\n%s", line, text)
		}
	}
	loadedAt := eval[string](t, b, notice+`.querySelector('time.loaded-at').getAttribute('datetime')`)
	refusedAt := eval[string](t, b, notice+`.querySelector('time.refused-at').getAttribute('datetime')`)
	lt, err1 := time.Parse(time.RFC3339Nano, loadedAt)
	rt, err2 := time.Parse(time.RFC3339Nano, refusedAt)
	if err1 != nil || err2 != nil || lt.After(started) || !rt.After(started) ||
		!strings.Contains(text, "The last configuration reload was refused") || !strings.Contains(text, "still runs on the configuration loaded at") {
		t.Errorf("the notice: refused at %s (%v), runs on the configuration loaded at %s (%v), the gateway started by %s; it reads:\n%s",
			refusedAt, err2, loadedAt, err1, started.UTC().Format(time.RFC3339Nano), text)
	}
	// Nothing secret: not the new keys in the refused file, not the running one, not the admin key.
	meta := fetchText(t, base+"/ui/api/meta")
	html := eval[string](t, b, `document.documentElement.outerHTML`)
	for _, k := range []string{newKey, pastedKey, running, admin, "N3wBackupKey", "Th1rdKey68e"} {
		if strings.Contains(html, k) || strings.Contains(meta, k) {
			t.Errorf("a key (%s) is on the page or in /ui/api/meta", k)
		}
	}
	if !strings.Contains(meta, `"reload_refused":{"at":`) {
		t.Errorf("/ui/api/meta: %s", meta)
	}

	// Every page says it, where it is seen: above the page's title.
	for _, page := range []string{"decisions", "classes", "unknowns", "keys", "costs"} {
		b.do(t, chromedp.Navigate(base+"/ui/"+page))
		b.mustWait(t, "the "+page+" page says the reload was refused", shown+` && `+notice+`.innerText.includes('backpu')`)
		if above := eval[bool](t, b, notice+`.getBoundingClientRect().bottom <= document.querySelector('h1').getBoundingClientRect().top`); !above {
			t.Errorf("on the %s page the notice is not above the title", page)
		}
	}
	b.do(t, chromedp.EmulateViewport(390, 844))
	b.screenshot(t, "op68e-reload-refused-costs-phone")

	// The file mended and reloaded: the notice goes, on the page left open,
	// and the console shows the new configuration.
	b.do(t, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(base+"/ui/health"))
	b.mustWait(t, "the notice on the Health page", shown)
	write(mended)
	if err := sighup(); err != nil {
		t.Fatalf("the mended file: %v", err)
	}
	b.mustWait(t, "the notice goes once a reload is applied", notice+`.hidden && `+notice+`.childElementCount === 0`)
	b.mustWait(t, "the Health page lists gpt at backup", `[...document.querySelectorAll('#endpoints tbody tr')].some(r => r.cells[0].textContent === 'gpt' && r.cells[1].textContent === 'backup')`)
	b.screenshot(t, "op68e-reload-applied-health")
	if meta := fetchText(t, base+"/ui/api/meta"); !strings.Contains(meta, `"reload_refused":null`) {
		t.Errorf("/ui/api/meta after the good reload: %s", meta)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}
