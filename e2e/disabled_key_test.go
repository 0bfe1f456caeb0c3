package e2e

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A key the operator suspends (`disabled: true`) is refused with 403
// client_key_disabled on every door, before its body is read and before
// any upstream is called: the official SDKs read it as a permission error
// and do not retry it (a 401 would read as the client's own typo). A reload
// that enables it serves it again, and says so (docs/config.md,
// "client_keys").
func TestDisabledKeyIsRefusedAndEnabledByReload(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"openai": script(ok("gpt-4o", "served"))})
	cfg := func(disabled string) string {
		return strings.ReplaceAll(`
client_keys:
  - {name: team-a, key: key-team-a-0123456789, budget: {usd_per_day: 5}`+disabled+`}
  - {name: team-b, key: key-team-b-0123456789}
providers:
  - {name: p, dialect: openai, base_url: "{openai}", api_key: `+secret+`}
targets:
  - {name: gpt, model: gpt-4o, providers: [p], price: {input: 2.50, output: 10.00}}
routes:
  - {name: deep, targets: [gpt]}
`, "{openai}", fs["openai"].URL)
	}
	var logs h58bLog
	recs := gatewaytest.NewRecords()
	url, a := gatewaytest.Start(t, gatewaytest.Config(t, cfg(", disabled: true")),
		app.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil)), Decisions: recs})

	// openai-go with its default retries: a 403 is not retried.
	var sent atomic.Int32
	count := option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		sent.Add(1)
		return next(r)
	})
	oc := openai.NewClient(option.WithBaseURL(url+"/v1/"), option.WithAPIKey("key-team-a-0123456789"), count)
	_, err := oc.Chat.Completions.New(context.Background(), hello("deep"))
	var oe *openai.Error
	if !errors.As(err, &oe) || oe.StatusCode != http.StatusForbidden || oe.Code != "client_key_disabled" || oe.Type != "permission_error" {
		t.Fatalf("openai-go: %v, want a 403 permission_error client_key_disabled", err)
	}
	if !strings.Contains(oe.Message, `"team-a" is disabled`) || strings.Contains(oe.Message, "key-team-a") {
		t.Errorf("message %q: want the key's name, never the key", oe.Message)
	}
	if n := sent.Load(); n != 1 {
		t.Errorf("openai-go sent %d requests, want 1 (a 403 is not retried)", n)
	}
	if _, err := oc.Models.List(context.Background()); !errors.As(err, &oe) || oe.StatusCode != http.StatusForbidden {
		t.Errorf("models list: %v, want 403", err)
	}

	ac := anthropic.NewClient(aoption.WithBaseURL(url+"/"), aoption.WithAPIKey("key-team-a-0123456789"))
	_, err = ac.Messages.New(context.Background(), askClaude("deep", "hi"))
	var ae *anthropic.Error
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusForbidden || !strings.Contains(ae.RawJSON(), `"permission_error"`) {
		t.Fatalf("anthropic-sdk-go: %v, want a 403 permission_error", err)
	}

	// Refused before its body is read: an upload that never ends still
	// gets its answer.
	pr, pw := io.Pipe()
	defer pw.Close()
	req, _ := http.NewRequest(http.MethodPost, url+"/v1/chat/completions", pr)
	req.Header.Set("Authorization", "Bearer key-team-a-0123456789")
	req.Header.Set("Content-Type", "application/json")
	req.ContentLength = 1 << 20
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatalf("a stalled upload of a disabled key: %v, want its 403 at once", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a stalled upload of a disabled key: %d, want 403", resp.StatusCode)
	}

	if n := fs["openai"].Calls(); n != 0 {
		t.Fatalf("the upstream was called %d times for a disabled key", n)
	}
	// Where an operator who disabled a leaked key sees it is still used
	// (operator review 61f: counted as "other", nothing else showed): the
	// front refusals' code, the Keys page's refusals, one info line a minute.
	g := &gateway{URL: url, app: a}
	metrics := string(g.raw(t, http.MethodGet, "/metrics", "").Body)
	if !strings.Contains(metrics, `detour_front_refusals_total{code="client_key_disabled",door="chat"} 2`) ||
		!strings.Contains(metrics, `detour_front_refusals_total{code="client_key_disabled",door="messages"} 1`) ||
		!strings.Contains(metrics, `detour_front_refusals_total{code="client_key_disabled",door="models"} 1`) {
		t.Errorf("the disabled key's refusals are not counted by their code:\n%s", grepLines(metrics, "front_refusals"))
	}
	// Two chat requests, one Messages, one models list.
	if keys := string(g.raw(t, http.MethodGet, "/ui/api/keys", "").Body); !strings.Contains(keys, `"name":"team-a"`) || !strings.Contains(keys, `"refused_count":4`) {
		t.Errorf("the Keys page does not count team-a's 4 refusals: %s", keys)
	}
	if n := strings.Count(logs.String(), "disabled client key refused"); n != 1 {
		t.Errorf("%d info lines for the disabled key's refusals in one minute, want 1", n)
	}
	// The other key is served meanwhile.
	bc := openai.NewClient(option.WithBaseURL(url+"/v1/"), option.WithAPIKey("key-team-b-0123456789"), option.WithMaxRetries(0))
	if _, err := bc.Chat.Completions.New(context.Background(), hello("deep")); err != nil {
		t.Fatalf("team-b: %v", err)
	}

	if err := a.Reload(gatewaytest.Config(t, cfg(""))); err != nil {
		t.Fatal(err)
	}
	if _, err := oc.Chat.Completions.New(context.Background(), hello("deep")); err != nil {
		t.Fatalf("team-a enabled by a reload: %v", err)
	}
	if !strings.Contains(logs.String(), "client key enabled again by this reload") || !strings.Contains(logs.String(), "client=team-a") {
		t.Errorf("the reload did not say team-a was enabled:\n%s", logs.String())
	}
	// Two requests served (team-b's, then team-a's), and a record of each
	// alone (a record is filed after its answer, so in either order): a
	// refused request leaves none.
	if c1, c2 := recs.Wait(t, 1).Client, recs.Wait(t, 2).Client; c1 == c2 || c1 != "team-a" && c1 != "team-b" || c2 != "team-a" && c2 != "team-b" {
		t.Errorf("records of %q and %q, want team-b's and team-a's (a refusal leaves none)", c1, c2)
	}
	if strings.Contains(logs.String(), "key-team-a-0123456789") {
		t.Error("the log shows the key")
	}
}
