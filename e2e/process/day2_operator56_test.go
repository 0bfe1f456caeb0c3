package process

// Operator review 56: day-2 work on a two-replica fleet sharing one Redis, in front of an
// OpenAI-compatible provider, Anthropic and Gemini (loopback upstreams this test controls).
// Each test checks what the surfaces (/v1/health on both replicas, /metrics, the webhook,
// the log) say at each step. Bodies are from classify/testdata/corpus (each cites its
// vendor source) or the vendors' documented examples (operator55_test.go's op55* bodies).

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

const (
	op56Admin = "adm-op56-0000000000000001"
	// classify/testdata/corpus/anthropic-invalid-x-api-key-401.json (anthropics/claude-code#9694)
	op56BadKey = `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"req_011CUBgWE2fdbDGiPKTUQTwy"}`
	// classify/testdata/corpus/openai-insufficient-quota-429.json (ChatGPTNextWeb/NextChat#3123)
	op56NoQuota = "{\n  \"error\": {\n    \"message\": \"You exceeded your current quota, please check your plan and billing details.\",\n    \"type\": \"insufficient_quota\",\n    \"param\": null,\n    \"code\": \"insufficient_quota\"\n  }\n}"
)

// op56Req does an admin request (admin_keys is set: reset needs it) and returns status and body.
func op56Req(g *gateway, method, path, body string) (int, string) {
	g.t.Helper()
	req, _ := http.NewRequest(method, g.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+op56Admin)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		g.t.Fatalf("gateway %s: %v", g.name, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func op56Health(g *gateway) testutil.Health {
	g.t.Helper()
	st, body := op56Req(g, "GET", "/v1/health", "")
	var h testutil.Health
	if st != 200 || json.Unmarshal([]byte(body), &h) != nil {
		g.t.Fatalf("gateway %s: /v1/health %d: %s", g.name, st, body)
	}
	return h
}

func op56Account(g *gateway, name string) testutil.HealthAccount {
	g.t.Helper()
	a, _ := op56Health(g).Account(name)
	return a
}

// op56Metrics is the detour_* lines of /metrics.
func op56Metrics(g *gateway) []string {
	g.t.Helper()
	_, body := op56Req(g, "GET", "/metrics", "")
	var out []string
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "detour_") {
			out = append(out, sc.Text())
		}
	}
	return out
}

func op56Metric(g *gateway, name string, labels ...string) float64 {
	var sum float64
next:
	for _, line := range op56Metrics(g) {
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		for _, l := range labels {
			if !strings.Contains(line, l) {
				continue next
			}
		}
		f := strings.Fields(line)
		if v, err := strconv.ParseFloat(f[len(f)-1], 64); err == nil {
			sum += v
		}
	}
	return sum
}

// op56Reload writes body to g's file, sends SIGHUP and waits for the log's verdict on it
// (the count of "config reloaded" or "config reload failed" lines grows).
func op56Reload(g *gateway, body string) string {
	g.t.Helper()
	before := strings.Count(g.stderr.String(), "config reload")
	g.writeConfig(body)
	g.signal(syscall.SIGHUP)
	poll(g.t, 10*time.Second, "gateway "+g.name+"'s reload", func() bool {
		return strings.Count(g.stderr.String(), "config reload") > before
	})
	out := g.stderr.String()
	i := strings.LastIndex(out, "config reload")
	return out[i:min(len(out), i+300)]
}

// op56Fleet is the three providers: OpenAI-compatible (gpt), Anthropic (claude; answers 401
// unless x-api-key is the good key), Gemini (gem).
type op56Fleet struct {
	gpt, gem *op55Up
	claude   *upstreamtest.Server
	good     atomic.Value // the Anthropic key that works
	hook     *webhook
	redis    *redistest.Server
}

func newOp56Fleet(t *testing.T) *op56Fleet {
	f := &op56Fleet{gpt: newOp55Up(t, op55Chat), gem: newOp55Up(t, op55Gemini), hook: startWebhook(t), redis: redistest.Start(t)}
	f.good.Store("sk-ant-new-0000000000000002")
	f.claude = upstreamtest.New(func(_ int, r upstreamtest.Request) upstreamtest.Step {
		if r.Header.Get("X-Api-Key") != f.good.Load().(string) {
			return upstreamtest.Step{Status: 401, Body: op56BadKey}
		}
		return upstreamtest.Step{Body: op55Claude}
	})
	t.Cleanup(f.claude.Close)
	return f
}

// yaml is the fleet's configuration with the Anthropic key given; extra is appended to
// providers/targets (a fourth provider), and without gemini drops Gemini.
func (f *op56Fleet) yaml(antKey string, withGemini bool, extraProvider, extraTarget string) string {
	gemP, gemT, gemR := "", "", ""
	if withGemini {
		gemP = `  - {name: gemini, dialect: gemini, base_url: "` + f.gem.URL + `", api_key: AIza-op56-test}` + "\n"
		gemT = "  - {name: gem, model: gemini-2.5-flash, providers: [gemini]}\n"
		gemR = ", gem"
	}
	routes := "routes:\n  - {name: deep, strategy: ordered, targets: [claude, gpt" + gemR + "], fallback_on: [timeout, rate_limited, quota, server_error, unavailable, auth]}\n  - {name: chat, strategy: ordered, targets: [gpt, claude" + gemR + "], fallback_on: [timeout, rate_limited, quota, server_error, unavailable, auth]}\n"
	return `state: {store: redis, url: "` + f.redis.URL() + `"}
log: {format: json}
admin_keys: [` + op56Admin + `]
alerts: {webhook: "` + f.hook.URL + `", min_interval: 1h}
health: {failure_threshold: 3, cooldown: 2s, max_cooldown: 8s, account_cooldown: 1h}
providers:
  - {name: openai, dialect: openai, base_url: "` + f.gpt.URL + `", api_key: sk-op56-openai}
  - {name: anthropic, dialect: anthropic, base_url: "` + f.claude.URL + `", api_key: ` + antKey + `}
` + gemP + extraProvider + `targets:
  - {name: gpt, model: gpt-4o, providers: [openai]}
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
` + gemT + extraTarget + routes
}

func op56Target(r reply) string { return r.Header.Get("X-Detour-Target") }

// (1) a broken Anthropic key: pages; the operator puts the new key in both replicas' files and
// reloads them one after the other (a rolling reload, deploy.md "Reloading").
// (2) openai capped; top-up; reset on A only.
func op56Tail(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(l[max(0, len(l)-n):], "\n")
}

// F1. deploy.md "Ending a cooldown": a reset answered `"shared": true` is read by every replica;
// only a reset made while Redis does not answer may be written over by a replica that still
// remembers the cooldown. Here the reset was shared, yet B — idle since it read the cooldown —
// writes the ended cooldown back when Redis comes back empty, and the whole fleet refuses the
// topped-up account for the rest of account_cooldown.
func TestOp56AResetSharedIsNotUndoneByAnIdleReplicasCopyAfterRedisRestartsEmpty(t *testing.T) {
	f := newOp56Fleet(t)
	a, b := twoReplicas(t, f.yaml("sk-ant-new-0000000000000002", true, "", ""))
	f.gpt.set(429, op56NoQuota, 0)
	a.postOK("chat")
	if ac := op56Account(b, "openai"); ac.State != "cooling" || ac.CoolingClass != "quota" {
		t.Fatalf("B after A's quota verdict: %+v, want cooling for quota", ac)
	}
	f.gpt.set(200, op55Chat, 0) // topped up
	st, body := op56Req(a, "POST", "/v1/health/reset", `{"provider":"openai"}`)
	if st != 200 || !strings.Contains(body, `"shared":true`) {
		t.Fatalf("reset on A: %d %s", st, body)
	}
	if r := a.postOK("chat"); op56Target(r) != "gpt" {
		t.Fatalf("A after the reset: served by %s, want gpt", op56Target(r))
	}
	// Redis restarts later (not in the same second: an operator's reset and a restart are
	// unrelated events; 6 s is past any periodic re-read of a few seconds), empty, as the shipped
	// compose Redis (no persistence) comes back. B served nothing meanwhile.
	time.Sleep(6 * time.Second)
	f.redis.Kill()
	f.redis.Start(t)
	time.Sleep(1500 * time.Millisecond)
	rb := b.postOK("chat")
	ra := a.postOK("chat")
	acA, acB := op56Account(a, "openai"), op56Account(b, "openai")
	if op56Target(rb) != "gpt" || op56Target(ra) != "gpt" || acA.State != "healthy" || acB.State != "healthy" {
		t.Errorf("the operator reset openai on A (shared: true) after a top-up; after Redis restarted empty, B served by %s, A by %s; "+
			"A's /v1/health openai %s %s until %v, B's %s %s until %v; B's log: %s",
			op56Target(rb), op56Target(ra), acA.State, acA.CoolingClass, acA.CooldownUntil, acB.State, acB.CoolingClass, acB.CooldownUntil,
			strings.TrimSpace(op56Grep(b.stderr.String(), "wrote it back")))
	}
}

func op56Grep(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// F2. A rolling reload of a new Anthropic key: A reloaded (serves claude with the new key), B not
// yet. B's next request meets the old key's 401 and pages (the reload ended min_interval). The page
// was word for word the first one (provider, class, evidence, message, text: "after a top-up or a new
// key, POST /v1/health/reset ends that at once") and B's /v1/health said the account is cooling
// while A's said healthy: nothing said which replica or configuration either was about, so the
// operator read "the new key is refused too". Each page now names its replica and when that
// replica's configuration was loaded: B's, before A's reload.
func TestOp56AnOldKeysPageDuringARollingReloadSaysWhichKeyItIsAbout(t *testing.T) {
	f := newOp56Fleet(t)
	oldKey, newKey := "sk-ant-old-0000000000000001", "sk-ant-new-0000000000000002"
	a, b := twoReplicas(t, f.yaml(oldKey, true, "", ""))
	a.postOK("deep")
	poll(t, 10*time.Second, "the first auth page", func() bool { return len(f.hook.alerts()) == 1 })
	time.Sleep(1100 * time.Millisecond) // the reload a second after the start, as RFC 3339 tells
	reloading := time.Now().UTC().Truncate(time.Second)
	op56Reload(a, f.yaml(newKey, true, "", ""))
	if r := a.postOK("deep"); op56Target(r) != "claude" {
		t.Fatalf("A with the new key: served by %s", op56Target(r))
	}
	b.postOK("deep") // B still runs the old key
	poll(t, 10*time.Second, "B's page", func() bool { return len(f.hook.alerts()) == 2 })
	first, second := f.hook.alerts()[0], f.hook.alerts()[1]
	same := true
	for k, v := range second {
		if k == "time" || k == "first_seen" || k == "tried_again" || k == "text" {
			continue
		}
		if first[k] != v {
			same = false
		}
	}
	for k := range first {
		if _, ok := second[k]; !ok {
			same = false
		}
	}
	acA, acB := op56Account(a, "anthropic"), op56Account(b, "anthropic")
	loaded, err := time.Parse(time.RFC3339, fmt.Sprint(second["config_loaded_at"]))
	if err != nil || !loaded.Before(reloading) || !strings.HasSuffix(fmt.Sprint(second["replica"]), b.URL[strings.LastIndex(b.URL, ":"):]) ||
		!strings.Contains(fmt.Sprint(second["text"]), "configuration loaded") {
		t.Errorf("B's page: replica %v, configuration loaded %v (%v); want B's port and a time before A's reload at %v; text %q",
			second["replica"], second["config_loaded_at"], err, reloading, second["text"])
	}
	if same {
		t.Errorf("after A was reloaded with the new key (A serves claude), B (old key) paged again, in the same words as the old key's page "+
			"and nothing naming the key or the replica:\n first:  %v\n second: %v\nA's /v1/health anthropic: %s; B's: %s %s %q",
			first, second, acA.State, acB.State, acB.CoolingClass, acB.CoolingMessage)
	}
}

// F3. A reload with a mistake (a route names a target that is not there): the replica keeps the
// running configuration, and only its log said so: /metrics and /v1/health carried nothing about
// reloads, so the fleet split (A on the new file, B on the old) could not be alerted on or seen.
// Now /metrics has Prometheus's gauge pair and /v1/health a config object, until a reload applies.
func TestOp56AFailedReloadIsVisibleOnMetricsAndHealth(t *testing.T) {
	f := newOp56Fleet(t)
	good := f.yaml("sk-ant-new-0000000000000002", true, "", "")
	_, b := twoReplicas(t, good)
	type cfgView struct {
		Config struct {
			LoadedAt        time.Time  `json:"loaded_at"`
			ReloadRefusedAt *time.Time `json:"reload_refused_at"`
		} `json:"config"`
	}
	view := func() cfgView {
		t.Helper()
		_, body := op56Req(b, "GET", "/v1/health", "")
		var v cfgView
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	started := view().Config.LoadedAt
	if op56Metric(b, "detour_config_last_reload_successful") != 1 || started.IsZero() || view().Config.ReloadRefusedAt != nil {
		t.Fatalf("at start: reload_successful %v, %+v", op56Metric(b, "detour_config_last_reload_successful"), view().Config)
	}
	loadedAt := op56Metric(b, "detour_config_last_reload_success_timestamp_seconds")
	bad := strings.Replace(good, "targets: [gpt, claude, gem]", "targets: [gpt, claude, gemm]", 1)
	if v := op56Reload(b, bad); !strings.Contains(v, "config reload failed") {
		t.Fatalf("the mistaken reload: %s", v)
	}
	b.postOK("chat") // B keeps serving
	if ok, at := op56Metric(b, "detour_config_last_reload_successful"), op56Metric(b, "detour_config_last_reload_success_timestamp_seconds"); ok != 0 || at != loadedAt {
		t.Errorf("after a refused reload: detour_config_last_reload_successful %v (want 0), loaded at %v (want %v, what still runs)", ok, at, loadedAt)
	}
	if v := view().Config; v.ReloadRefusedAt == nil || !v.LoadedAt.Equal(started) {
		t.Errorf("after a refused reload /v1/health's config: %+v, want reload_refused_at set and loaded_at still the start's", v)
	}
	// The console says so too, on every page, in the log's words (operator review 68e).
	type consoleView struct {
		Config struct {
			LoadedAt      time.Time `json:"loaded_at"`
			ReloadRefused *struct {
				At     time.Time `json:"at"`
				Errors []string  `json:"errors"`
			} `json:"reload_refused"`
		} `json:"config"`
	}
	console := func() consoleView {
		t.Helper()
		_, body := op56Req(b, "GET", "/ui/api/meta", "")
		var v consoleView
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
		return v
	}
	var logged []string
	for _, line := range strings.Split(b.stderr.String(), "\n") {
		var l struct{ Msg, Err string }
		if json.Unmarshal([]byte(line), &l) == nil && strings.HasPrefix(l.Msg, "config reload failed") {
			logged = strings.Split(l.Err, "\n")
		}
	}
	if c := console().Config; c.ReloadRefused == nil || !c.LoadedAt.Equal(started) || !c.ReloadRefused.At.Equal(*view().Config.ReloadRefusedAt) ||
		len(logged) == 0 || strings.Join(c.ReloadRefused.Errors, "\n") != strings.Join(logged, "\n") || !strings.Contains(logged[0], "gemm") {
		t.Errorf("after a refused reload the console's config: %+v, want the refusal with the log's errors %q", c, logged)
	}
	time.Sleep(10 * time.Millisecond)
	if v := op56Reload(b, good); !strings.Contains(v, "config reloaded") {
		t.Fatalf("the mended reload: %s", v)
	}
	if ok := op56Metric(b, "detour_config_last_reload_successful"); ok != 1 || op56Metric(b, "detour_config_last_reload_success_timestamp_seconds") <= loadedAt {
		t.Errorf("after the mended reload: reload_successful %v, loaded at %v (before %v)", ok, op56Metric(b, "detour_config_last_reload_success_timestamp_seconds"), loadedAt)
	}
	if v := view().Config; v.ReloadRefusedAt != nil || !v.LoadedAt.After(started) {
		t.Errorf("after the mended reload /v1/health's config: %+v", v)
	}
	if c := console().Config; c.ReloadRefused != nil || !c.LoadedAt.After(started) {
		t.Errorf("after the mended reload the console's config: %+v", c)
	}
}

// F4. scale.md "Rolling deploys": each record carries a digest of what it is about (the endpoint's
// model, base_url and dialect; the account's api_key and headers) and a replica reads another
// definition's record as empty. The endpoint's digest leaves out the key, so during a rolling key
// reload the old key's 401s on B (clients naming the target) are counted on the endpoint record A
// shares: A, whose new key works, shows claude/anthropic cooling for auth "invalid x-api-key" and
// skips it, while its own account reads healthy.
func TestOp56AnOldKeysRejectionsDoNotCoolTheNewKeysEndpoint(t *testing.T) {
	f := newOp56Fleet(t)
	a, b := twoReplicas(t, f.yaml("sk-ant-old-0000000000000001", true, "", ""))
	a.postOK("deep") // the old key's 401: the page, the account cools
	op56Reload(a, f.yaml("sk-ant-new-0000000000000002", true, "", ""))
	if r := a.postOK("deep"); op56Target(r) != "claude" {
		t.Fatalf("A with the new key: served by %s", op56Target(r))
	}
	for i := 0; i < 3; i++ { // B not yet reloaded; its clients name the target
		if r := b.post("claude"); r.Status != 401 {
			t.Fatalf("B (old key) naming claude: %d %s", r.Status, r.Body)
		}
	}
	e, _ := op56Health(a).Endpoint("claude", "anthropic")
	ac := op56Account(a, "anthropic")
	r := a.postOK("deep")
	if e.State != "healthy" || op56Target(r) != "claude" {
		t.Errorf("A runs the new key (account %s); after B's old key met 401s, A's /v1/health claude/anthropic: %s, failures %d, cooling_class %s %q until %v; "+
			"A's next deep request served by %s (attempts %s)",
			ac.State, e.State, e.Failures, e.CoolingClass, e.CoolingMessage, e.CooldownUntil, op56Target(r), r.Header.Get("X-Detour-Attempts"))
	}
}

// F5. A rolling restart (scale.md "SIGTERM: draining"): SIGTERM closed the admin listener too, so
// for the whole drain (up to --grace, 30 s by default) the draining replica's /metrics and
// /v1/health answered "connection refused": the streams that finished during the drain were
// counted in no scrape. The admin listener serves through the drain now — and (review 56) its
// health check answers 503 "draining", since a balancer checking it there kept sending clients
// to the closed API port while it answered 200 "serving".
func TestOp56ADrainingReplicaStillAnswersMetricsOnItsAdminListener(t *testing.T) {
	f := newOp56Fleet(t)
	parts := strings.Split(strings.Repeat("word ", 30), " ")
	slow := fake(t, upstreamtest.Step{Events: upstreamtest.ChatStream("gpt-4o", parts...), EventDelay: 100 * time.Millisecond})
	body := strings.Replace(f.yaml("sk-ant-new-0000000000000002", true, "", ""), f.gpt.URL, slow.URL, 1)
	adminA := "127.0.0.1:" + strconv.Itoa(freePort(t))
	a := startGateway(t, "A", "admin_listen: "+adminA+"\n"+body, "--grace", "20s")
	resp, err := client.Post(a.URL+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"gpt","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	rd := bufio.NewReader(resp.Body)
	if _, err := rd.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	a.signal(syscall.SIGTERM)
	poll(t, 5*time.Second, "the drain to begin", func() bool { return strings.Contains(a.stderr.String(), "shutting down") })
	req, _ := http.NewRequest("GET", "http://"+adminA+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+op56Admin)
	r, err := client.Do(req)
	var st int
	if err == nil {
		st = r.StatusCode
		r.Body.Close()
	}
	_, apiErr := client.Get(a.URL + "/v1/models") // the API listener refuses new connections
	var hst int
	var hbody string
	hr, herr := client.Get("http://" + adminA + "/v1/health") // a balancer's check: no key
	if herr == nil {
		b, _ := io.ReadAll(hr.Body)
		hr.Body.Close()
		hst, hbody = hr.StatusCode, string(b)
	}
	rest, _ := io.ReadAll(rd)
	if err != nil || st != 200 {
		t.Errorf("during the drain of a stream in flight (it ended %q), A's admin_listen /metrics: %d %v",
			strings.TrimSpace(string(rest)[max(0, len(rest)-20):]), st, err)
	}
	if !strings.HasSuffix(strings.TrimSpace(string(rest)), "data: [DONE]") {
		t.Errorf("the stream in flight did not finish: %q", string(rest)[max(0, len(rest)-80):])
	}
	if apiErr == nil || herr != nil || hst != http.StatusServiceUnavailable || !strings.Contains(hbody, `"draining"`) {
		t.Errorf("during the drain (API listener: %v), the health check on admin_listen answered %d %s (%v): want 503 draining, so a balancer takes the replica out",
			apiErr, hst, strings.TrimSpace(hbody), herr)
	}
	a.wait()
}

// op56Explore skips the exploration runs (they log every surface and assert nothing) unless
// OP56_OUT names a directory for their screenshots.
// Explore: following the second page's advice (reset) on B, which still runs the old key.
