package e2e

import (
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// The deploy/ stack: its compose file, Prometheus and Grafana files, the
// Detour configuration they run, and the metrics the dashboard queries.

const deployDir = "../deploy"

func readDeploy(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(deployDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// alertExprs returns the expression of every alerting rule of
// deploy/alerts.yml, read strictly (a misspelt key fails), each rule named
// and summarised.
func alertExprs(t *testing.T) []string {
	t.Helper()
	var f struct {
		Groups []struct {
			Name  string `yaml:"name"`
			Rules []struct {
				Alert       string            `yaml:"alert"`
				Expr        string            `yaml:"expr"`
				For         string            `yaml:"for"`
				Labels      map[string]string `yaml:"labels"`
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	strictYAML(t, "alerts.yml", readDeploy(t, "alerts.yml"), &f)
	var exprs []string
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" || r.Expr == "" || r.Annotations["summary"] == "" {
				t.Errorf("alerts.yml: rule %+v lacks a name, an expression or a summary", r)
			}
			if r.For != "" {
				if _, err := time.ParseDuration(r.For); err != nil {
					t.Errorf("alerts.yml: %s: for %q: %v", r.Alert, r.For, err)
				}
			}
			exprs = append(exprs, r.Expr)
		}
	}
	if len(exprs) == 0 {
		t.Fatal("alerts.yml holds no rule")
	}
	return exprs
}

// dashboardExprs returns every PromQL expression of the dashboard.
func dashboardExprs(t *testing.T) []string {
	t.Helper()
	var d struct {
		Panels []json.RawMessage `json:"panels"`
	}
	if err := json.Unmarshal(readDeploy(t, "grafana/dashboards/detour.json"), &d); err != nil {
		t.Fatalf("dashboard: %v", err)
	}
	var exprs []string
	var walk func([]json.RawMessage)
	walk = func(ps []json.RawMessage) {
		for _, raw := range ps {
			var p struct {
				Title      string            `json:"title"`
				Panels     []json.RawMessage `json:"panels"`
				Datasource struct{ UID string }
				Targets    []struct {
					Expr       string `json:"expr"`
					Datasource struct{ UID string }
				} `json:"targets"`
			}
			if err := json.Unmarshal(raw, &p); err != nil {
				t.Fatalf("dashboard panel: %v", err)
			}
			for _, tg := range p.Targets {
				if tg.Datasource.UID != "prometheus" || p.Datasource.UID != "prometheus" {
					t.Errorf("panel %q does not use the provisioned datasource (uid prometheus)", p.Title)
				}
				exprs = append(exprs, tg.Expr)
			}
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	return exprs
}

var (
	promString   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	promMatchers = regexp.MustCompile(`\{[^}]*\}`)
	promRange    = regexp.MustCompile(`\[[^\]]*\]`)
	promGrouping = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promIdent    = regexp.MustCompile(`[A-Za-z_:][A-Za-z0-9_:]*`)
	promKeywords = []string{"and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring", "group_left", "group_right", "inf", "nan"}
)

// metricNames returns the metric names a PromQL expression reads: what is
// left once strings, label matchers, ranges, groupings, function names,
// keywords and numbers are taken out.
func metricNames(expr string) []string {
	s := promString.ReplaceAllString(expr, `""`)
	s = promMatchers.ReplaceAllString(s, " ")
	s = promRange.ReplaceAllString(s, " ")
	s = promGrouping.ReplaceAllString(s, " ")
	var out []string
	for _, loc := range promIdent.FindAllStringIndex(s, -1) {
		word := s[loc[0]:loc[1]]
		if loc[0] > 0 && strings.ContainsAny(s[loc[0]-1:loc[0]], "0123456789.") { // 1e-9
			continue
		}
		if rest := strings.TrimLeft(s[loc[1]:], " "); strings.HasPrefix(rest, "(") || slices.Contains(promKeywords, strings.ToLower(word)) {
			continue
		}
		out = append(out, word)
	}
	return out
}

func TestMetricNamesOfAnExpression(t *testing.T) {
	got := metricNames(`sum by (route, outcome) (rate(detour_requests_total{outcome="error",x=~"a{b}"}[$__rate_interval])) / clamp_min(sum(rate(detour_x_total[5m])), 1e-9) * 2 and on (a) up`)
	if strings.Join(got, ",") != "detour_requests_total,detour_x_total,up" {
		t.Errorf("got %v", got)
	}
}

// Every metric the dashboard and the alerting rules (deploy/alerts.yml)
// query exists on a live /metrics once the gateway has served a failover (a
// quota answer, then a success at a priced target) and refused a client
// key's request over its rate.
func TestDashboardQueriesMetricsThatExist(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"capped": script(corpus(t, "anthropic-workspace-usage-limits")),
		"up":     script(ok("gpt-4o", "hi")),
	})
	g := start(t, `
client_keys:
  - {name: ops, key: key-ops, rate: {requests_per_minute: 1}}
providers:
  - {name: capped, dialect: anthropic, base_url: "{capped}", api_key: `+secret+`}
  - {name: up, dialect: openai, base_url: "{up}", api_key: `+secret+`}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [capped]}
  - {name: gpt, model: gpt-4o, providers: [up], price: {input: 2.5, output: 10}}
routes:
  - {name: deep, targets: [claude, gpt]}
`, fs)
	g.post(t, "deep", "", "Authorization", "Bearer key-ops").wantStatus(t, 200)
	g.recs.wait(t, 1)
	g.post(t, "deep", "", "Authorization", "Bearer key-ops").wantStatus(t, 429)
	exprs := append(dashboardExprs(t), alertExprs(t)...)
	if len(exprs) < 10 {
		t.Fatalf("only %d queries in the dashboard", len(exprs))
	}
	// Some series appear a moment after the answer (the alert is counted
	// when its sender has sent it): read /metrics until every metric the
	// dashboard reads is there, or 5 s have passed.
	var have map[string]bool
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		have = servedMetrics(string(g.raw(t, http.MethodGet, "/metrics", "").Body))
		missing := false
		for _, e := range exprs {
			for _, n := range metricNames(e) {
				missing = missing || !have[n]
			}
		}
		if !missing || time.Now().After(deadline) {
			break
		}
	}
	seen := map[string]bool{}
	for _, e := range exprs {
		names := metricNames(e)
		if len(names) == 0 {
			t.Errorf("no metric read by %q", e)
		}
		for _, n := range names {
			seen[n] = true
			if !strings.HasPrefix(n, "detour_") {
				t.Errorf("%q reads %s, not one of Detour's metrics", e, n)
			} else if !have[n] {
				t.Errorf("%q reads %s, which /metrics does not serve", e, n)
			}
		}
	}
	var list []string
	for n := range seen {
		list = append(list, n)
	}
	sort.Strings(list)
	t.Logf("the dashboard reads %s", strings.Join(list, ", "))
	// The list: requests, failovers by class, endpoint states, latency, overhead.
	for _, want := range []string{"detour_requests_total", "detour_failovers_total", "detour_endpoint_state",
		"detour_upstream_ttfb_seconds_bucket", "detour_overhead_seconds_bucket"} {
		if !seen[want] {
			t.Errorf("the dashboard does not chart %s", want)
		}
	}
}

// servedMetrics returns the metric names a /metrics exposition has samples of.
func servedMetrics(exposition string) map[string]bool {
	have := map[string]bool{}
	for _, line := range strings.Split(exposition, "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		have[strings.FieldsFunc(line, func(r rune) bool { return r == '{' || r == ' ' })[0]] = true
	}
	return have
}

// composeFile is the part of the Compose specification the stack uses;
// decoding it strictly catches a misspelt key.
type composeFile struct {
	Name string `yaml:"name"`
	// Detour is the x-detour extension the replicas share (a YAML anchor).
	Detour   any `yaml:"x-detour"`
	Services map[string]struct {
		Image string `yaml:"image"`
		Build *struct {
			Context    string `yaml:"context"`
			Dockerfile string `yaml:"dockerfile"`
		} `yaml:"build"`
		Command     []string          `yaml:"command"`
		Hostname    string            `yaml:"hostname"`
		Ports       []string          `yaml:"ports"`
		Volumes     []string          `yaml:"volumes"`
		Environment map[string]string `yaml:"environment"`
		DependsOn   []string          `yaml:"depends_on"`
		Profiles    []string          `yaml:"profiles"`
		ReadOnly    bool              `yaml:"read_only"`
		Restart     string            `yaml:"restart"`
		CapDrop     []string          `yaml:"cap_drop"`
		SecurityOpt []string          `yaml:"security_opt"`
	} `yaml:"services"`
	// Volumes are the named volumes (Redis's data: budgets live there).
	Volumes map[string]any `yaml:"volumes"`
}

// strictYAML decodes b into v, refusing keys v does not know.
func strictYAML(t *testing.T, name string, b []byte, v any) {
	t.Helper()
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// The compose file, the Prometheus configuration and Grafana's provisioning
// parse and fit together: two Detour replicas built from the Dockerfile,
// running deploy/detour.yaml (a valid configuration, sharing state through
// the compose Redis), both scraped by Prometheus at the port they listen
// on, Grafana reading Prometheus and the dashboard; every file mounted
// exists; images are pinned.
func TestComposeStackFitsTogether(t *testing.T) {
	var c composeFile
	strictYAML(t, "compose.yaml", readDeploy(t, "compose.yaml"), &c)
	for _, name := range []string{"detour-1", "detour-2", "redis", "prometheus", "grafana"} {
		if _, ok := c.Services[name]; !ok {
			t.Fatalf("compose.yaml has no service %s", name)
		}
	}
	// Client keys' budgets are counted in Redis alone: a Redis that kept
	// nothing gave every key its day back when it restarted (operator
	// review 52).
	if r := c.Services["redis"]; !strings.Contains(strings.Join(r.Command, " "), "--appendonly yes") || len(r.Volumes) == 0 || !strings.HasSuffix(r.Volumes[0], ":/data") {
		t.Errorf("the compose Redis keeps nothing across a restart (command %q, volumes %q): the budgets it counts would reset", r.Command, r.Volumes)
	}
	for name, s := range c.Services {
		if s.Image == "" || !strings.Contains(s.Image, ":") || strings.HasSuffix(s.Image, ":latest") {
			t.Errorf("service %s: image %q is not pinned to a version", name, s.Image)
		}
		for _, v := range s.Volumes {
			src := strings.SplitN(v, ":", 2)[0]
			if _, named := c.Volumes[src]; named {
				continue // a named volume, declared below the services
			}
			if _, err := os.Stat(filepath.Join(deployDir, src)); err != nil {
				t.Errorf("service %s mounts %s, which does not exist", name, src)
			}
		}
		for _, d := range s.DependsOn {
			if _, ok := c.Services[d]; !ok {
				t.Errorf("service %s depends on %s, which is not a service", name, d)
			}
		}
	}

	// The replicas: built from the Dockerfile, running the deploy config.
	var replicas []string
	for _, name := range []string{"detour-1", "detour-2"} {
		s := c.Services[name]
		if s.Build == nil || s.Build.Dockerfile != "Dockerfile" || !s.ReadOnly {
			t.Errorf("%s: not built from the Dockerfile, or not read-only: %+v", name, s.Build)
			continue
		}
		if _, err := os.Stat(filepath.Join(deployDir, s.Build.Context, s.Build.Dockerfile)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if !slices.Contains(s.Volumes, "./detour.yaml:/etc/detour/detour.yaml:ro") || strings.Join(s.Command, " ") != "serve -c /etc/detour/detour.yaml" {
			t.Errorf("%s does not serve deploy/detour.yaml: %v %v", name, s.Volumes, s.Command)
		}
		replicas = append(replicas, name)
	}
	raw := readDeploy(t, "detour.yaml")
	cfg, err := config.Parse("deploy/detour.yaml", raw, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatalf("deploy/detour.yaml: %v", err)
	}
	_, port, _ := net.SplitHostPort(cfg.Listen)
	if host, _, _ := net.SplitHostPort(cfg.Listen); host != "" && host != "0.0.0.0" {
		t.Errorf("deploy/detour.yaml listens on %s: not reachable from the other containers", cfg.Listen)
	}
	u, _ := url.Parse(cfg.State.URL)
	if cfg.State.Store != config.StoreRedis || u.Hostname() != "redis" {
		t.Errorf("the replicas do not share state through the compose Redis: %+v", cfg.State)
	}
	if cfg.Console.Disabled || cfg.Tracing.OTLPEndpoint != "" {
		t.Errorf("console off or tracing on by default: %+v %+v", cfg.Console, cfg.Tracing)
	}
	// Every variable the configuration reads is passed to the containers.
	for _, m := range regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)`).FindAllStringSubmatch(string(raw), -1) {
		for _, r := range replicas {
			if _, ok := c.Services[r].Environment[m[1]]; !ok {
				t.Errorf("deploy/detour.yaml reads ${%s}, which compose does not pass to %s", m[1], r)
			}
		}
	}

	// Prometheus scrapes exactly the replicas, at the port they listen on.
	var prom struct {
		Global        map[string]string `yaml:"global"`
		RuleFiles     []string          `yaml:"rule_files"`
		ScrapeConfigs []struct {
			JobName       string `yaml:"job_name"`
			MetricsPath   string `yaml:"metrics_path"`
			StaticConfigs []struct {
				Targets []string `yaml:"targets"`
			} `yaml:"static_configs"`
		} `yaml:"scrape_configs"`
	}
	strictYAML(t, "prometheus.yml", readDeploy(t, "prometheus.yml"), &prom)
	var targets []string
	for _, sc := range prom.ScrapeConfigs {
		if sc.MetricsPath != "/metrics" {
			t.Errorf("job %s scrapes %q", sc.JobName, sc.MetricsPath)
		}
		for _, st := range sc.StaticConfigs {
			targets = append(targets, st.Targets...)
		}
	}
	want := []string{"detour-1:" + port, "detour-2:" + port}
	if strings.Join(targets, ",") != strings.Join(want, ",") {
		t.Errorf("Prometheus scrapes %v, want %v", targets, want)
	}

	// Grafana: the datasource is the compose Prometheus; dashboards come
	// from the directory compose mounts.
	var ds struct {
		APIVersion  int `yaml:"apiVersion"`
		Datasources []struct {
			Name, UID, Type, Access, URL string
			IsDefault                    bool `yaml:"isDefault"`
			Editable                     bool `yaml:"editable"`
		} `yaml:"datasources"`
	}
	strictYAML(t, "datasources", readDeploy(t, "grafana/provisioning/datasources/prometheus.yaml"), &ds)
	if len(ds.Datasources) != 1 || ds.Datasources[0].UID != "prometheus" || ds.Datasources[0].URL != "http://prometheus:9090" {
		t.Errorf("datasource %+v", ds.Datasources)
	}
	var dp struct {
		APIVersion int `yaml:"apiVersion"`
		Providers  []struct {
			Name, Folder, Type string
			DisableDeletion    bool `yaml:"disableDeletion"`
			AllowUIUpdates     bool `yaml:"allowUiUpdates"`
			Options            struct{ Path string }
		} `yaml:"providers"`
	}
	strictYAML(t, "dashboards", readDeploy(t, "grafana/provisioning/dashboards/detour.yaml"), &dp)
	if len(dp.Providers) != 1 || !slices.Contains(c.Services["grafana"].Volumes, "./grafana/dashboards:"+dp.Providers[0].Options.Path+":ro") {
		t.Errorf("Grafana reads dashboards from %+v, compose mounts %v", dp.Providers, c.Services["grafana"].Volumes)
	}
	if !slices.Contains(c.Services["prometheus"].Volumes, "./prometheus.yml:/etc/prometheus/prometheus.yml:ro") {
		t.Errorf("Prometheus does not read deploy/prometheus.yml: %v", c.Services["prometheus"].Volumes)
	}
	// and loads the alerting rules compose mounts.
	if len(prom.RuleFiles) != 1 || !slices.Contains(c.Services["prometheus"].Volumes, "./alerts.yml:"+prom.RuleFiles[0]+":ro") {
		t.Errorf("Prometheus loads rules %v, compose mounts %v", prom.RuleFiles, c.Services["prometheus"].Volumes)
	}
}

// docs/deploy.md promises that a provider whose key is left empty (a 401,
// filed as auth) is routed around: in every route of deploy/detour.yaml
// with somewhere else to go, auth moves the request on (its page is the
// class's own, whatever the route says).
func TestDeployRoutesAroundAnEmptyKey(t *testing.T) {
	cfg, err := config.Parse("deploy/detour.yaml", readDeploy(t, "detour.yaml"), func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatalf("deploy/detour.yaml: %v", err)
	}
	for _, r := range cfg.Routes {
		if len(r.Targets) < 2 {
			continue
		}
		if !r.Table.Row(classify.Auth).NextTarget {
			t.Errorf("route %s: auth stops the request; docs/deploy.md says an account without a key is routed around", r.Name)
		}
	}
}
