package e2e

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 61g: hostile probes against round 61 (disabled keys, the
// routing rule, the new phrases, the estimate of numbers), each failing
// before its fix.

const review61gCfg = `
client_keys:
  - {name: mallory, key: key-mallory}
  - {name: alice, key: key-alice}
providers:
  - {name: relay, dialect: openai, base_url: "{relay}", api_key: ` + secret + `}
  - {name: backup, dialect: openai, base_url: "{backup}", api_key: ` + secret + `}
targets:
  - {name: gpt, model: gpt-4o, providers: [relay]}
  - {name: spare, model: gpt-4o, providers: [backup]}
routes:
  - {name: deep, targets: [gpt, spare]}
`

const attackerImg = "https://img.attacker.example/cat.png"

// relayFetching answers as a relay that downloads the client's image and
// quotes what the image's host answered (the host is the attacker's: it
// picks its status line's reason phrase), and serves any other request.
func relayFetching(status int, quote string) upstreamtest.Script {
	return func(_ int, r upstreamtest.Request) upstreamtest.Step {
		if bytes.Contains(r.Body, []byte("img.attacker.example")) {
			return upstreamtest.Step{Status: status, Body: `{"error":{"message":"Failed to download ` + attackerImg + `: ` + quote + `"}}`}
		}
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o", "ok")}
	}
}

// A client whose image host answers "403 Account Suspended" (the title of
// any suspended shared host's page, or a reason phrase it writes) or "429
// Rate Limited" makes a relay's fetch failure read as the relay account's
// auth (round 61's new phrase) or as the endpoint's throttle (new in a
// 5xx): the endpoint or the account cools for everyone, and auth pages the
// operator. Nothing in the words is the client's text, so the echo rule
// does not apply; the notClient guard covers only standard reason phrases.
func TestReview61gClientImageHostCoolsRelay(t *testing.T) {
	for _, tc := range []struct {
		name, quote string
		status      int
	}{
		{"account suspended at 400", "403 Account Suspended", 400},
		{"rate limited at 502", "429 Rate Limited", 502},
		{"官方限速 at 503", "429 官方限速", 503},
		{"无权访问 at 400", "403 无权访问", 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{
				"relay":  relayFetching(tc.status, tc.quote),
				"backup": script(ok("gpt-4o", "spare")),
			})
			g := start(t, review61gCfg, fs)
			body := `{"model":"deep","messages":[{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"image_url","image_url":{"url":"` + attackerImg + `"}}]}]}`
			r := g.raw(t, http.MethodPost, "/v1/chat/completions", body, "Authorization", "Bearer key-mallory")
			t.Logf("mallory: %d class %q target %q", r.Status, r.Header.Get("X-Detour-Class"), r.Header.Get("X-Detour-Target"))
			h := g.health(t)
			e, _ := h.Endpoint("gpt", "relay")
			acct, _ := h.Account("relay")
			t.Logf("gpt/relay after mallory: %+v; account %+v", e, acct)
			if e.State != "healthy" || acct.State != "" && acct.State != "healthy" {
				t.Errorf("one request whose image host wrote %q left gpt/relay %s (cooling %s: %q), account %s (%s): the client's host cooled it for everyone",
					tc.quote, e.State, e.CoolingClass, e.CoolingMessage, acct.State, acct.CoolingClass)
			}
			before := fs["backup"].Calls()
			a := g.post(t, "deep", "", "Authorization", "Bearer key-alice")
			a.wantStatus(t, http.StatusOK)
			if got := a.Header.Get("X-Detour-Target"); got != "gpt" {
				t.Errorf("alice's plain request went to %q (backup calls %d→%d), want gpt: the relay serves it", got, before, fs["backup"].Calls())
			}
		})
	}
}

// A key disabled while a request of its is still uploading its body: the
// front let it in (headers read on the old configuration) and, once the
// body arrives after the reload, it is dispatched and spends. A leaked
// key's holder who keeps slow uploads open (docs/deploy.md: disable "a
// leaked key awaiting rotation") gets its requests served after the
// operator disabled it. The docs promise "A request already running when a
// reload disables its key finishes" and "refused … before its body is
// read": here no byte of the body had been read.
func TestReview61gDisabledKeyUploadInFlightAtReload(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"openai": script(ok("gpt-4o", "served"))})
	cfg := func(disabled string) string {
		return strings.ReplaceAll(`
client_keys:
  - {name: leaked, key: key-leaked-0123456789, budget: {usd_per_day: 5}`+disabled+`}
providers:
  - {name: p, dialect: openai, base_url: "{openai}", api_key: `+secret+`}
targets:
  - {name: gpt, model: gpt-4o, providers: [p], price: {input: 2.50, output: 10.00}}
routes:
  - {name: deep, targets: [gpt]}
`, "{openai}", fs["openai"].URL)
	}
	recs := gatewaytest.NewRecords()
	url, a := gatewaytest.Start(t, gatewaytest.Config(t, cfg("")),
		app.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Decisions: recs})

	const n = 3
	type res struct {
		status int
		err    error
	}
	out := make(chan res, n)
	var pws []*io.PipeWriter
	for i := 0; i < n; i++ {
		pr, pw := io.Pipe()
		pws = append(pws, pw)
		req, _ := http.NewRequest(http.MethodPost, url+"/v1/chat/completions", pr)
		req.Header.Set("Authorization", "Bearer key-leaked-0123456789")
		req.Header.Set("Content-Type", "application/json")
		go func() {
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				out <- res{err: err}
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			out <- res{status: resp.StatusCode}
		}()
	}
	time.Sleep(300 * time.Millisecond) // headers sent and admitted; no body byte yet
	if err := a.Reload(gatewaytest.Config(t, cfg(", disabled: true"))); err != nil {
		t.Fatal(err)
	}
	// A new request of the key is refused now.
	req, _ := http.NewRequest(http.MethodPost, url+"/v1/chat/completions", strings.NewReader(`{"model":"deep","messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("Authorization", "Bearer key-leaked-0123456789")
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a new request after the reload: %v %v, want 403", err, resp)
	}
	time.Sleep(200 * time.Millisecond)
	for _, pw := range pws {
		io.WriteString(pw, `{"model":"deep","messages":[{"role":"user","content":"hi"}]}`)
		pw.Close()
	}
	served := 0
	for i := 0; i < n; i++ {
		r := <-out
		if r.err != nil {
			t.Fatalf("upload %d: %v", i, r.err)
		}
		if r.status == http.StatusOK {
			served++
		}
	}
	if calls := fs["openai"].Calls(); served > 0 || calls > 0 {
		t.Errorf("%d of %d requests whose body was sent after the reload that disabled the key were served (upstream calls %d): a disabled key spent",
			served, n, calls)
	}
}

// The routing rule read the client's raw body (Call.evidence: the
// Messages door's native body) for a top-level "provider", but the
// Messages→Chat translation may not carry the member to an openai-dialect
// target (OpenRouter): the router's account-level "No allowed providers"
// is then read as the client's choice (bad_request: no failover to the
// spare, nothing cooled, nobody paged) though the router never saw one.
func TestReview61gMessagesDoorRoutingMemberNotSent(t *testing.T) {
	none := `{"error":{"message":"No allowed providers are available for the selected model.","code":404}}`
	fs := fakes(t, map[string]upstreamtest.Script{
		"relay":  script(upstreamtest.Step{Status: 404, Body: none}),
		"backup": script(ok("gpt-4o", "spare")),
	})
	g := start(t, review61gCfg, fs)
	body := `{"model":"deep","max_tokens":64,"messages":[{"role":"user","content":"hi"}],"provider":{"only":["no-such-provider"]}}`
	r := g.raw(t, http.MethodPost, "/v1/messages", body, "x-api-key", "key-mallory", "anthropic-version", "2023-06-01")
	reqs := fs["relay"].Requests()
	forwarded := len(reqs) > 0 && bytes.Contains(reqs[0].Body, []byte(`"provider"`))
	t.Logf("messages door: %d class %q target %q; relay got provider member: %v; body %s", r.Status, r.Header.Get("X-Detour-Class"),
		r.Header.Get("X-Detour-Target"), forwarded, r.Body)
	if !forwarded && r.Header.Get("X-Detour-Class") == "bad_request" {
		t.Errorf("the router never received the client's \"provider\" member, yet its account-level 'No allowed providers' was read as the client's choice (bad_request, no failover to spare)")
	}
}

// The estimate counts a number by its bytes, 4 to a token, and nothing for
// its separator: an enum of one-digit values (each a token or more to the
// upstream, "0 | 1 | 2 …") is estimated at a quarter token each. The
// review's own bar (TestReview61cLeftStreamCountsNumbersInTools: at least
// n/3 for n values) fails for short numbers.
func TestReview61gLeftStreamOneDigitEnum(t *testing.T) {
	evs := upstreamtest.ChatStream("gpt-4o", "hel", "lo")
	stall := upstreamtest.Step{Events: evs[:2], Stall: true}
	fs := fakes(t, map[string]upstreamtest.Script{"openai": script(stall, ok("gpt-4o", "y"))})
	clk := testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	g := startClock(t, hugeUsageCfg, fs, clk)
	const n = 30000
	items := make([]string, n)
	for i := range items {
		items[i] = string(rune('0' + i%10))
	}
	tool := `{"type":"function","function":{"name":"pick","parameters":{"type":"object","properties":{"x":{"enum":[` +
		strings.Join(items, ",") + `]}}}}}`
	body := `{"model":"deep","stream":true,"tools":[` + tool + `],"messages":[{"role":"user","content":"pick one"}]}`
	leaveStream(t, g, "/v1/chat/completions", body, `"hel"`)
	d := g.recs.wait(t, 1)
	est := d.Attempts[0].Estimate
	got := 0
	if est != nil {
		got = est.InputTokens
	}
	t.Logf("body %d bytes, %d one-digit enum values: estimate %d input tokens", len(body), n, got)
	if got < n/3 {
		t.Errorf("an enum of %d one-digit values is estimated at %d input tokens, under the review's own bar of %d (the upstream bills at least %d)", n, got, n/3, n)
	}
}
