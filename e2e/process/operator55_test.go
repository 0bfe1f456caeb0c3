package process

// Operator review 55 (a night of incidents at a shared Detour, driven through a real
// `detour serve`): what the fleet told the operator that was not true, each fixed.

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// op55RuleSelector returns the label matchers of the detour_endpoint_state selector in
// deploy/alerts.yml's DetourEndpointsCooling rule.
func op55RuleSelector(t *testing.T) [][3]string {
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "alerts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "alert: DetourEndpointsCooling")
	if i < 0 {
		t.Fatal("deploy/alerts.yml has no DetourEndpointsCooling rule")
	}
	m := regexp.MustCompile(`detour_endpoint_state\{([^}]*)\}`).FindStringSubmatch(s[i:])
	if m == nil {
		t.Fatal("DetourEndpointsCooling does not read detour_endpoint_state")
	}
	var out [][3]string
	for _, lm := range regexp.MustCompile(`(\w+)\s*(=~|!~|!=|=)\s*"([^"]*)"`).FindAllStringSubmatch(m[1], -1) {
		out = append(out, [3]string{lm[1], lm[2], lm[3]})
	}
	return out
}

// op55RuleReads sums the scraped detour_endpoint_state samples of target/provider that the
// rule's selector matches.
func op55RuleReads(t *testing.T, g *gateway, sel [][3]string, target, provider string) (float64, string) {
	resp, err := client.Get(g.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var sum float64
	var lines []string
	lre := regexp.MustCompile(`(\w+)="([^"]*)"`)
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "detour_endpoint_state{") {
			continue
		}
		labels := map[string]string{}
		for _, kv := range lre.FindAllStringSubmatch(line, -1) {
			labels[kv[1]] = kv[2]
		}
		if labels["target"] != target || labels["provider"] != provider {
			continue
		}
		lines = append(lines, line)
		match := true
		for _, m := range sel {
			v := labels[m[0]]
			re := regexp.MustCompile("^(?:" + m[2] + ")$")
			switch m[1] {
			case "=":
				match = match && v == m[2]
			case "!=":
				match = match && v != m[2]
			case "=~":
				match = match && re.MatchString(v)
			case "!~":
				match = match && !re.MatchString(v)
			}
		}
		if match && strings.HasSuffix(line, " 1") {
			sum++
		}
	}
	return sum, strings.Join(lines, "\n")
}

// F1. deploy/alerts.yml's DetourEndpointsCooling ("an endpoint has been cooling for 15
// minutes", docs/metrics.md) reads `detour_endpoint_state{state="cooling"} > 0 for: 15m`. A
// provider that refuses every connection cools its endpoint for `cooldown`, doubling up to
// `max_cooldown` (5m by default: shorter than the rule's 15m); when the cooldown ends the endpoint
// is `probing` — and stays so until a request reaches it (at 2 am, minutes) — so the series reads
// 0, the rule's `for` starts again, and the rule cannot fire for an endpoint that has not
// answered once all night. Observed (TestOp55Night, 13:15:51): gpt/openai refusing connections,
// cooldown over, no request yet: `detour_endpoint_state{provider="openai",state="probing",target="gpt"} 1`,
// `/v1/health` `state: probing, cooldown_until: null, cooling_class: server_error`, console
// summary "3 endpoints: 1 probing, 2 healthy". Nothing else pages a connection refused (the
// webhook pages quota and auth only), so the one page meant for it never comes. Expected: the
// series the rule reads keeps an endpoint that has not answered since it cooled as out (e.g. the
// rule reads state!="healthy", or the endpoint is `cooling` until its probe succeeds).
func TestOp55AHardDownEndpointKeepsItsCoolingAlertArmed(t *testing.T) {
	down := newOp55Up(t, op55Chat)
	spare := newOp55Up(t, op55Chat)
	down.down() // connection refused from the start
	g := startGateway(t, "op55", render(`
log: {format: json}
health: {failure_threshold: 1, cooldown: 1s, max_cooldown: 2s}
providers:
  - {name: openai, dialect: openai, base_url: "{a}/v1", api_key: sk-op55-openai-aaaaaaaaaaaa}
  - {name: spare, dialect: openai, base_url: "{b}/v1", api_key: sk-op55-spare-bbbbbbbbbbbbb}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai]}
  - {name: mini, model: gpt-4o-mini, providers: [spare]}
routes:
  - {name: chat, strategy: ordered, targets: [gpt, mini]}
`, map[string]string{"a": down.URL, "b": spare.URL}))
	sel := op55RuleSelector(t)
	g.postOK("chat")
	if e := g.endpoint("gpt", "openai"); e.State != "cooling" {
		t.Fatalf("gpt/openai refused the connection: want cooling, got %+v", e)
	}
	if v, _ := op55RuleReads(t, g, sel, "gpt", "openai"); v != 1 {
		t.Fatalf("while cooling, the rule's series reads %v", v)
	}
	time.Sleep(1500 * time.Millisecond) // the cooldown ends; no request comes (2 am)
	e := g.endpoint("gpt", "openai")
	if v, lines := op55RuleReads(t, g, sel, "gpt", "openai"); v != 1 {
		t.Errorf("gpt/openai has refused every connection and answered nothing since; /v1/health: state %q, cooling_class %q, cooldown_until %v; "+
			"yet the series DetourEndpointsCooling reads (%v) says it is not cooling, so the rule's `for: 15m` starts again:\n%s",
			e.State, e.CoolingClass, e.CooldownUntil, sel, lines)
	}
}

// F2. docs/scale.md, "Redis restarted empty": each replica writes back the running cooldowns it
// knows; "What is not restored: failure counts below the threshold, latency samples, probe
// leases, alert claims … and the minute's client-key counters." Not in that list, and lost: an
// endpoint whose cooldown has ended and whose probe has not yet been made (`probing`: it failed
// `failure_threshold` times and has not answered since). Observed (TestOp55Night 13:16:38 →
// 13:16:48): claude/anthropic after Anthropic's 529s, `state: probing, failures: 3,
// cooling_class: server_error`; Redis restarted empty; then `state: healthy, failures: 0,
// last_class: "", cooling_class: ""` on /v1/health, the console ("healthy", "0") and
// detour_endpoint_state — the replica held the record, and every surface now says an endpoint
// that has not answered since its 529s is healthy, and the single probe becomes every request.
func TestOp55ARedisRestartedEmptyKeepsAnUnprovenEndpointOutOfHealthy(t *testing.T) {
	rs := redistest.Start(t)
	failing := fake(t, ok("gpt-4o")) // replaced below
	spare := fake(t, ok("gpt-4o-mini"))
	gone := fake(t, ok("x")) // a retired model: a running 24 h cooldown, so the loss is detected
	g := startGateway(t, "op55", render(`
log: {format: json}
state: {store: redis, url: "{redis}", {timeout}}
health: {failure_threshold: 1, cooldown: 1s, max_cooldown: 2s}
providers:
  - {name: openai, dialect: openai, base_url: "{a}", api_key: sk-op55-openai-aaaaaaaaaaaa}
  - {name: spare, dialect: openai, base_url: "{b}", api_key: sk-op55-spare-bbbbbbbbbbbbb}
  - {name: openrouter, dialect: openai, base_url: "{c}", api_key: sk-or-op55-cccccccccccccc}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai]}
  - {name: mini, model: gpt-4o-mini, providers: [spare]}
  - {name: grok, model: "x-ai/grok-4-fast:free", providers: [openrouter]}
routes:
  - {name: chat, strategy: ordered, targets: [gpt, mini]}
  - {name: free, strategy: ordered, targets: [grok, mini]}
`, map[string]string{"redis": rs.URL(), "timeout": stateTimeout, "a": failing.URL, "b": spare.URL, "c": gone.URL}))
	failing.SetScript(op55Steps(503, `{"error":{"message":"The server is overloaded or not ready yet.","type":"server_error","param":null,"code":null}}`))
	gone.SetScript(op55Steps(404, noEndpoints))
	g.postOK("chat")
	g.post("free")                      // 404 No endpoints found: unavailable, cools grok for a day
	time.Sleep(1500 * time.Millisecond) // gpt's cooldown ends; its probe is not made yet
	before := g.endpoint("gpt", "openai")
	if before.State != "probing" || before.CoolingClass != "server_error" {
		t.Fatalf("before the restart: want probing for server_error, got %+v", before)
	}
	rs.Kill()
	rs.Start(t) // empty
	poll(t, 20*time.Second, "the replica to find Redis lost its state (state.lost_at)", func() bool {
		return op55LostAt(t, g) != ""
	})
	after := g.endpoint("gpt", "openai")
	if after.State == "healthy" || after.CoolingClass == "" {
		t.Errorf("gpt/openai failed (503) and has not answered since; before Redis restarted empty /v1/health said "+
			"state %q failures %d cooling_class %q; after: state %q failures %d last_class %q cooling_class %q",
			before.State, before.Failures, before.CoolingClass, after.State, after.Failures, after.LastClass, after.CoolingClass)
	}
}

func op55LostAt(t *testing.T, g *gateway) string {
	resp, err := client.Get(g.URL + "/v1/health")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h struct {
		State struct {
			LostAt *string `json:"lost_at"`
		} `json:"state"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&h)
	if h.State.LostAt == nil {
		return ""
	}
	return *h.State.LostAt
}

func op55Steps(status int, body string) upstreamtest.Script {
	return upstreamtest.Steps(upstreamtest.Step{Status: status, Body: body})
}

// Bodies (all from classify/testdata/corpus, each citing its vendor source there).
const (
	// anthropic-overloaded-529.json (anthropics/anthropic-sdk-typescript#616)
	op55Overloaded = `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
	// gemini-402-prepayment-credits-depleted.json (discuss.ai.google.dev/t/…/183654)
	op55GeminiDepleted = "{\n  \"error\": {\n    \"code\": 402,\n    \"message\": \"Your prepayment credits are depleted. Please go to AI Studio at    https://ai.studio/projects to manage your project and billing. Learn more at https://ai.google.dev/gemini-api/docs/billing#prepay.\",\n    \"status\": \"RESOURCE_EXHAUSTED\"\n  }\n}"
	// Success bodies: the vendors' documented examples (as e2e/process/money_operator54_test.go).
	op55Claude = `{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Hi!"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":3}}`
	op55Gemini = `{"candidates":[{"content":{"role":"model","parts":[{"text":"Hi!"}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":3,"totalTokenCount":13},"modelVersion":"gemini-2.5-flash"}`
	op55Chat   = `{"id":"chatcmpl-op55","object":"chat.completion","created":1700000000,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"Hi!"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13}}`
)

// op55Up is a provider on a fixed loopback port that can be taken down (the port then refuses
// connections) and brought back, and whose answer can be switched.
type op55Up struct {
	t     testing.TB
	addr  string
	URL   string
	mu    sync.Mutex
	ln    net.Listener
	srv   *http.Server
	st    int
	body  string
	delay time.Duration
	calls int
}

func newOp55Up(t testing.TB, body string) *op55Up {
	u := &op55Up{t: t, body: body}
	u.addr = fmt.Sprintf("127.0.0.1:%d", freePort(t))
	u.URL = "http://" + u.addr
	u.up()
	t.Cleanup(u.down)
	return u
}

func (u *op55Up) set(status int, body string, delay time.Duration) {
	u.mu.Lock()
	u.st, u.body, u.delay = status, body, delay
	u.mu.Unlock()
}

func (u *op55Up) up() {
	ln, err := net.Listen("tcp", u.addr)
	if err != nil {
		u.t.Fatal(err)
	}
	u.mu.Lock()
	u.ln = ln
	u.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		u.mu.Lock()
		st, body, d := u.st, u.body, u.delay
		u.calls++
		u.mu.Unlock()
		if d > 0 {
			select {
			case <-time.After(d):
			case <-r.Context().Done():
				return
			}
		}
		if st == 0 {
			st = 200
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(st)
		io.WriteString(w, body)
	})}
	srv := u.srv
	u.mu.Unlock()
	go srv.Serve(ln)
}

func (u *op55Up) down() {
	u.mu.Lock()
	srv := u.srv
	u.srv = nil
	u.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
}
