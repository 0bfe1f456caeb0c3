package demo

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Real bodies, copied from the classifier corpus (classify/testdata/corpus).
const (
	// anthropic-workspace-usage-limits.json — https://github.com/anthropics/claude-code/issues/1047
	spendCap = `{"type":"error","error":{"type":"invalid_request_error","message":"You have reached your specified workspace API usage limits. You will regain access on 2025-06-01 at 00:00 UTC."}}`
	// openrouter-no-endpoints-found-free.json — https://github.com/OpenHands/OpenHands/issues/11874
	noEndpoints = `{"error":{"message":"No endpoints found for x-ai/grok-4-fast:free.","code":404}}`
	// openai-server-error-500.json — https://github.com/openai/openai-cua-sample-app/issues/54 (request id removed)
	serverError = `{"error":{"message":"The server had an error processing your request. Sorry about that! You can retry your request, or contact us through our help center at help.openai.com if you keep seeing this error.","type":"server_error","param":null,"code":null}}`
	// azure-content-filter-innererror-violence.json — https://github.com/vibrantlabsai/ragas/issues/649 (content_filter_result trimmed)
	contentFilter = `{"error":{"message":"The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.","type":null,"param":"prompt","code":"content_filter","status":400,"innererror":{"code":"ResponsibleAIPolicyViolation"}}}`
)

// Demo is the set of running simulated providers.
type Demo struct {
	servers []*upstreamtest.Server
	hook    *httptest.Server
	urls    map[string]string
}

// ok answers as model, streamed when asked.
func ok(model string) upstreamtest.Script {
	return func(_ int, r upstreamtest.Request) upstreamtest.Step {
		if r.Streamed() {
			return upstreamtest.Step{Events: upstreamtest.ChatStream(model, "Hello", " from ", model, "."), EventDelay: 50 * time.Millisecond}
		}
		return upstreamtest.Step{Body: upstreamtest.ChatJSON(model, "Hello from "+model+".")}
	}
}

// Start runs the simulated providers and an alert webhook that prints what
// it receives to out.
func Start(out io.Writer) *Demo {
	d := &Demo{urls: map[string]string{}}
	add := func(name string, s upstreamtest.Script) {
		srv := upstreamtest.New(s)
		d.servers = append(d.servers, srv)
		d.urls[name] = srv.URL
	}
	d.hook = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(out, "[demo webhook] operator paged: %s\n", b)
	}))
	start := time.Now()
	add("capped", upstreamtest.Steps(upstreamtest.Step{Status: 400, Body: spendCap}))
	add("backup", ok("gpt-4o-mini"))
	add("retired", upstreamtest.Steps(upstreamtest.Step{Status: 404, Body: noEndpoints}))
	add("free", ok("llama-3.1-8b-instruct"))
	// Down for the first 20 seconds of every minute since the demo started
	// (so at first): it cools after three failures and is probed back after
	// its cooldown.
	add("flappy", func(n int, r upstreamtest.Request) upstreamtest.Step {
		if int(time.Since(start).Seconds())%60 < 20 {
			return upstreamtest.Step{Status: 500, Body: serverError}
		}
		return ok("mistral-small")(n, r)
	})
	add("steady", ok("gpt-4o-mini"))
	add("filter", upstreamtest.Steps(upstreamtest.Step{Status: 400, Body: contentFilter}))
	add("slow", upstreamtest.Steps(upstreamtest.Step{Delay: 3 * time.Second, Body: upstreamtest.ChatJSON("slow-model", "too late")}))
	return d
}

// Close stops every simulated provider.
func (d *Demo) Close() {
	for _, s := range d.servers {
		s.Close()
	}
	d.hook.Close()
}

// Config is the demo's configuration file, pointing at the simulated providers.
func (d *Demo) Config(listen string) string {
	pairs := []string{"{listen}", listen, "{hook}", d.hook.URL}
	for k, v := range d.urls {
		pairs = append(pairs, "{"+k+"}", v)
	}
	return strings.NewReplacer(pairs...).Replace(configTemplate)
}

const configTemplate = `# detour demo: simulated providers on loopback; no keys, no network.
listen: {listen}
decisions: {path: "-"}
alerts: {webhook: "{hook}", min_interval: 1h}
health: {failure_threshold: 3, cooldown: 10s, max_cooldown: 1m, unavailable_cooldown: 24h, account_cooldown: 1h}
retry: {max_wait: 3s}
providers:
  - {name: capped-anthropic, dialect: anthropic, base_url: "{capped}", api_key: demo}
  - {name: backup-openai, dialect: openai, base_url: "{backup}", api_key: demo}
  - {name: openrouter-free, dialect: openai, base_url: "{retired}", api_key: demo}
  - {name: groq-free, dialect: openai, base_url: "{free}", api_key: demo}
  - {name: flappy, dialect: openai, base_url: "{flappy}", api_key: demo}
  - {name: steady, dialect: openai, base_url: "{steady}", api_key: demo}
  - {name: azure-filtered, dialect: openai, base_url: "{filter}", api_key: demo}
  - {name: slow, dialect: openai, base_url: "{slow}", api_key: demo, timeout: 1s}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [capped-anthropic]}
  - {name: gpt, model: gpt-4o-mini, providers: [backup-openai]}
  - {name: grok-free, model: "x-ai/grok-4-fast:free", providers: [openrouter-free]}
  - {name: llama-free, model: llama-3.1-8b-instruct, providers: [groq-free]}
  - {name: flappy-mistral, model: mistral-small, providers: [flappy]}
  - {name: steady-gpt, model: gpt-4o-mini, providers: [steady]}
  - {name: azure-gpt, model: gpt-4o, providers: [azure-filtered]}
  - {name: slow-model, model: slow-model, providers: [slow]}
routes:
  # A spend-capped primary (HTTP 400!) falls to the backup and pages once.
  - {name: chat, strategy: ordered, targets: [claude, gpt]}
  # A free pool with a retired model: it cools for 24h, the pool moves on.
  - {name: free, strategy: pool, targets: [grok-free, llama-free]}
  # A flapping endpoint cools after three failures and is probed back.
  - {name: flaky, strategy: ordered, targets: [flappy-mistral, steady-gpt]}
  # A content-policy refusal is the client's answer: no failover.
  - {name: safe, strategy: ordered, targets: [azure-gpt, gpt]}
  # A strict budget: a timed-out call may have been billed, so no second vendor.
  - {name: strict, strategy: ordered, targets: [slow-model, gpt], max_billable_attempts: 1}
`

// Tour is what the demo prints: requests to try.
func Tour(base string) string {
	c := func(model, extra string) string {
		return fmt.Sprintf("  curl -s %s/v1/chat/completions -H 'Content-Type: application/json' \\\n    -d '{\"model\":\"%s\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]%s}' -D - \n", base, model, extra)
	}
	return "Detour demo is serving on " + base + ". Try:\n\n" +
		"# A spend cap sent as HTTP 400 is quota: the request moves to the backup, the operator is paged once.\n" + c("chat", "") +
		"\n# The same, streamed.\n" + c("chat", `,"stream":true`) +
		"\n# A retired free model (404 No endpoints found) cools for 24h; the pool moves on. A pool takes turns:\n# when a request starts at the working model, the next one meets the 404.\n" + c("free", "") +
		"\n# A flapping endpoint, down for the first 20s of every minute since the demo started: it cools\n# after 3 failures in a row, then is probed back.\n" + c("flaky", "") +
		"\n# A content-policy refusal is not replayed at another vendor.\n" + c("safe", "") +
		"\n# A strict budget: the first call timed out after it was sent, so no second vendor is paid,\n# and x-should-retry: false tells the SDK not to send it again.\n" + c("strict", "") +
		"\n# Health, models and metrics:\n" +
		"  curl -s " + base + "/v1/health\n  curl -s " + base + "/v1/models\n  curl -s " + base + "/metrics | grep detour_\n\n" +
		"Watch it in a browser (health, the decisions as they happen, unknown answers): " + base + "/ui\n\n" +
		"Decision records (one JSON line per request) are printed below as requests arrive.\n"
}
