package browser

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/detour-llm/detour/internal/redistest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Operator review 56 (F3 in /work/operator56/REPORT.md), on the console. A rolling reload of a
// new Anthropic key: replica A has the new key, replica B not yet. scale.md "Rolling deploys":
// each record carries a digest of what it is about (the account's api_key and headers; the
// endpoint's model, base_url and dialect) and a replica reads another definition's record as
// empty. The endpoint's digest leaves the key out, so B's old-key 401s (its clients naming the
// target) are counted on the endpoint record A shares: A's Health page shows claude/anthropic
// cooling for auth while A's own account anthropic is healthy and its key works.
func TestConsoleNewKeysEndpointIsNotCooledByTheOldKeysRejections_op56(t *testing.T) {
	b := newBrowser(t)
	rs := redistest.Start(t)
	const newKey = "sk-ant-op56-new-000000000000000002"
	// anthropic-invalid-x-api-key-401 (anthropics/claude-code#9694) unless the key is the new one.
	fakes := map[string]*upstreamtest.Server{
		"ant": upstreamtest.New(func(_ int, r upstreamtest.Request) upstreamtest.Step {
			if r.Header.Get("X-Api-Key") != newKey {
				return upstreamtest.Step{Status: 401, Body: corpusBody(t, "anthropic-invalid-x-api-key-401")}
			}
			return upstreamtest.Step{Body: `{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Hi!"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":3}}`}
		}),
	}
	for _, f := range fakes {
		t.Cleanup(f.Close)
	}
	yaml := func(key string) string {
		return `
state: {store: redis, url: "` + rs.URL() + `", timeout: 200ms}
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{ant}", api_key: ` + key + `}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
routes:
  - {name: r, targets: [claude]}
`
	}
	a := startGateway(t, yaml("sk-ant-op56-old-000000000000000001"), fakes)
	old := startGateway(t, yaml("sk-ant-op56-old-000000000000000001"), fakes)
	if _, st := a.chat(t, "r"); st != 401 {
		t.Fatalf("the revoked key answered %d", st)
	}
	a.reload(t, strings.ReplaceAll(yaml(newKey), "{ant}", fakes["ant"].URL))
	if _, st := a.chat(t, "r"); st != 200 {
		t.Fatalf("A with the new key answered %d", st)
	}
	for range 3 { // B still runs the revoked key
		if _, st := old.chat(t, "claude"); st != 401 {
			t.Fatalf("B with the revoked key answered %d", st)
		}
	}
	b.do(t, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(a.URL+"/ui/health"))
	ep := `[...document.querySelectorAll('#endpoints tbody tr')].find(r => r.cells[0].textContent === 'claude')`
	acct := `[...document.querySelectorAll('#accounts tbody tr')].find(r => r.cells[0].textContent === 'anthropic')`
	b.mustWait(t, "endpoint claude and account anthropic show", `!!(`+ep+`) && !!(`+acct+`)`)
	b.screenshot(t, "op56-rolling-key-new-replica")
	epState := eval[string](t, b, ep+`.querySelector('td[data-label="State"]').textContent`)
	acState := eval[string](t, b, acct+`.querySelector('td[data-label="State"]').textContent`)
	row := eval[string](t, b, ep+`.innerText`)
	if epState != "healthy" {
		t.Errorf("replica A runs the new key (its account anthropic: %q, its requests answered 200), yet after the old replica's 401s "+
			"A's Health page shows endpoint claude/anthropic %q: %q", acState, epState, strings.Join(strings.Fields(row), " "))
	}
}
