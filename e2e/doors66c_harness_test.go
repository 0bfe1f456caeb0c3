package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Probe 66c: one upstream answer, every door. A corpus answer is served by
// target a's provider p (of the answer's dialect) on route r = [a, b], b
// an OpenAI-dialect target that answers; the route is called through every
// door that reaches the dialect, whole, as a stream that fails before its
// first byte, and as a stream that fails after its commit point. What each
// door's request did (the class and evidence recorded, the walk, what
// cooled, pages, the client's status and envelope, what was billed) is
// compared across the doors of the same answer.

// p66Door is one client door (or a door with a passthrough provider).
type p66Door struct {
	name, path, body string
	dialects         []string // the dialects it reaches
	streams          bool
	provExtra        string // YAML added to provider p
	headers          []string
}

var p66Doors = []p66Door{
	{"chat", "/v1/chat/completions", `{"model":"r","messages":[{"role":"user","content":"hi"}]%s}`, []string{"openai", "anthropic", "gemini"}, true, "", nil},
	{"messages", "/v1/messages", `{"model":"r","max_tokens":64,"messages":[{"role":"user","content":"hi"}]%s}`, []string{"openai", "anthropic", "gemini"}, true, "", []string{"anthropic-version", "2023-06-01"}},
	{"responses", "/v1/responses", `{"model":"r","input":"hi"%s}`, []string{"openai", "anthropic", "gemini"}, true, "", nil},
	{"responses*", "/v1/responses", `{"model":"r","input":"hi"%s}`, []string{"openai"}, true, ", responses: true", nil},
	{"embeddings", "/v1/embeddings", `{"model":"r","input":"hi"%s}`, []string{"openai", "gemini"}, false, "", nil},
	{"completions", "/v1/completions", `{"model":"r","prompt":"hi","max_tokens":8%s}`, []string{"openai"}, true, ", completions: true", nil},
}

// p66Case is one sampled corpus answer.
type p66Case struct {
	name string
	corpusCase
}

// p66Sample: every corpus answer that is not a known miss and whose class
// does not depend on the client's request (no request or model member);
// per (dialect, class), the n whole answers and the one SSE answer whose
// file names hash lowest (sha256 of the name).
func p66Sample(t *testing.T, n int) []p66Case {
	files, _ := filepath.Glob(filepath.Join("..", "classify", "testdata", "corpus", "*.json"))
	type keyed struct {
		h string
		c p66Case
	}
	groups := map[string][]keyed{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var extra struct {
			Miss    *string         `json:"miss"`
			Request json.RawMessage `json:"request"`
			Model   *string         `json:"model"`
		}
		var c corpusCase
		_ = json.Unmarshal(b, &extra)
		if err := json.Unmarshal(b, &c); err != nil || extra.Miss != nil || extra.Request != nil || extra.Model != nil {
			continue
		}
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		h := sha256.Sum256([]byte(name))
		k := c.Dialect + "/" + c.Class + "/" + strconv.FormatBool(c.Stream)
		groups[k] = append(groups[k], keyed{hex.EncodeToString(h[:]), p66Case{name, c}})
	}
	var out []p66Case
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		g := groups[k]
		sort.Slice(g, func(i, j int) bool { return g[i].h < g[j].h })
		m := n
		if strings.HasSuffix(k, "/true") {
			m = 1
		}
		for i := 0; i < m && i < len(g); i++ {
			out = append(out, g[i].c)
		}
	}
	return out
}

// p66Row is what one (answer, door, mode) request did.
type p66Row struct {
	door                               string
	class, evidence                    string
	pCalls, attempts                   int
	bTried                             bool
	ep, acct                           string // state and cooldown of a/p and of account p
	pages                              string
	status                             int
	envType, envCode                   string
	shouldRetry, retryAfter            string
	billable                           bool
	cost, keyUsed, outcome, clientSeen string
	usage                              string
	unbilled                           bool // what it billed is not compared
}

func (r p66Row) key(field string) string {
	switch field {
	case "class":
		return r.class
	case "evidence":
		return r.evidence
	case "walk":
		return fmt.Sprintf("p×%d b:%v", r.pCalls, r.bTried)
	case "cools":
		return r.ep + " | " + r.acct
	case "pages":
		return r.pages
	case "status":
		return strconv.Itoa(r.status)
	case "retry":
		return "should-retry=" + r.shouldRetry + " retry-after=" + r.retryAfter
	case "billed":
		if r.unbilled {
			return "\x00"
		}
		return fmt.Sprintf("billable=%v usage=%s key=%s", r.billable, r.usage, r.keyUsed)
	case "code":
		if r.door == "messages" {
			return "\x00"
		}
		_, typ, _ := strings.Cut(r.envType, "/")
		return r.envCode + " " + typ
	}
	return ""
}

func p66Cooling(state string, until *time.Time) string {
	if state == "" {
		return "-"
	}
	if until == nil || state != "cooling" {
		return state
	}
	d := time.Until(*until)
	switch {
	case d > time.Hour:
		d = d.Round(time.Hour)
	case d > time.Minute:
		d = d.Round(time.Minute)
	default:
		d = d.Round(5 * time.Second)
	}
	return state + " " + d.String()
}

// p66Content is the first content event of a stream in dialect, and the
// events before it that the dialect sends.
func p66Content(dialect string) []string {
	switch dialect {
	case "anthropic":
		return []string{
			"event: message_start\ndata: " + `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"model-a","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}`,
			"event: content_block_start\ndata: " + `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			"event: content_block_delta\ndata: " + `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`,
		}
	case "gemini":
		return []string{`{"candidates":[{"content":{"parts":[{"text":"Hello"}],"role":"model"},"index":0}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":1,"totalTokenCount":6},"modelVersion":"model-a"}`}
	}
	return []string{`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"model-a","choices":[{"index":0,"delta":{"role":"assistant","content":"Hello"},"finish_reason":null}]}`}
}

// p66Upstream is what p serves for c in mode (whole, pre, post); ok
// reports whether the mode applies to the answer.
func p66Upstream(c p66Case, mode, door string) (upstreamtest.Step, bool) {
	st := upstreamtest.Step{Status: c.Status, Header: map[string]string{}}
	for k, v := range c.Headers {
		if !strings.EqualFold(k, "content-length") {
			st.Header[k] = v
		}
	}
	if c.Stream {
		// An SSE answer goes only where its shape is the API the door
		// calls: Responses events to a Responses passthrough, chat chunks
		// not to a Completions one (a malformed chunk there: review 65f).
		resp := strings.Contains(c.Body, `response.`) || strings.Contains(c.Body, `"type": "error"`) || strings.Contains(c.Body, `"type":"error"`)
		switch {
		case resp && c.Dialect == "openai" && door != "responses*":
			return st, false
		case !resp && door == "responses*":
			return st, false
		case strings.Contains(c.Body, `"choices"`) && door == "completions":
			return st, false
		}
	}
	switch mode {
	case "whole":
		if c.Stream {
			return st, false
		}
		st.Body = c.Body
	case "pre":
		if c.Stream {
			st.Events = sseBlocks(c.Body)
		} else {
			st.Body = c.Body
		}
	case "post":
		// After the commit point: the dialect's first content, then the
		// answer as an error event (an SSE answer as it came; a JSON
		// error object as its dialect streams one).
		var evs []string
		switch {
		case c.Stream && c.Status/100 == 2:
			evs = sseBlocks(c.Body)
		case c.Status/100 != 2 && json.Valid([]byte(c.Body)) && strings.HasPrefix(strings.TrimSpace(c.Body), "{") && strings.Contains(c.Body, `"error"`):
			var buf bytes.Buffer
			_ = json.Compact(&buf, []byte(c.Body))
			if c.Dialect == "anthropic" {
				evs = []string{"event: error\ndata: " + buf.String()}
			} else {
				evs = []string{"data: " + buf.String()}
			}
		default:
			return st, false
		}
		st.Status = 200
		st.Events = append(p66Content(c.Dialect), evs...)
		if door == "completions" || door == "responses*" {
			// a passthrough: the upstream speaks the door's own API, its
			// first content in its own shape; a Responses stream's error
			// is its own error event, the error object nested.
			if door == "responses*" && !c.Stream {
				var e struct {
					Error json.RawMessage `json:"error"`
				}
				if json.Unmarshal([]byte(c.Body), &e) != nil || !json.Valid(e.Error) || !strings.HasPrefix(string(e.Error), "{") {
					return st, false
				}
				var eb bytes.Buffer
				_ = json.Compact(&eb, e.Error)
				evs = []string{"event: error\ndata: " + `{"type":"error","sequence_number":5,"error":` + eb.String() + `}`}
			}
			st.Events = append([]string{p66PassContent(door)}, evs...)
		}
	}
	return st, true
}

// p66PassContent is the first content event of a passthrough's stream.
func p66PassContent(door string) string {
	if door == "completions" {
		return `{"id":"cmpl-1","object":"text_completion","created":1,"model":"model-a","choices":[{"text":"Hello","index":0,"logprobs":null,"finish_reason":null}]}`
	}
	return "event: response.output_text.delta\ndata: " + `{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hello","sequence_number":4}`
}

// p66Good answers every door's request as OpenAI (target b).
func p66Good(_ int, r upstreamtest.Request) upstreamtest.Step {
	switch {
	case strings.HasSuffix(r.Path, "/embeddings"):
		return upstreamtest.Step{Body: `{"object":"list","data":[{"object":"embedding","embedding":[0.6,0.8],"index":0}],"model":"model-b","usage":{"prompt_tokens":1,"total_tokens":1}}`}
	case strings.HasSuffix(r.Path, "/completions") && !strings.HasSuffix(r.Path, "/chat/completions"):
		if r.Streamed() {
			return upstreamtest.Step{Events: completionStream("model-b", "ok")}
		}
		return upstreamtest.Step{Body: completionJSON("model-b", "ok")}
	}
	if r.Streamed() {
		return okStream("model-b", "ok")
	}
	return ok("model-b", "ok")
}

func p66Config(dialect string, d p66Door) string {
	extra := ""
	if dialect == "openai" {
		extra = d.provExtra
	}
	return `
client_keys:
  - {name: k, key: key-k, budget: {usd_per_day: 1000}}
providers:
  - {name: p, dialect: ` + dialect + `, base_url: "{p}", api_key: ` + secret + extra + `}
  - {name: q, dialect: openai, base_url: "{q}", api_key: ` + secret + `, completions: true}
targets:
  - {name: a, model: model-a, providers: [p], price: {input: 1000, output: 1000}}
  - {name: b, model: model-b, providers: [q], price: {input: 1, output: 1}}
routes:
  - {name: r, targets: [a, b]}
`
}

// p66Run makes one request and reads what it did.
func p66Run(t *testing.T, c p66Case, d p66Door, mode string, step upstreamtest.Step) p66Row {
	t.Helper()
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(step), "q": p66Good})
	g := start(t, p66Config(c.Dialect, d), fs)
	extra := ""
	if mode != "whole" {
		extra = `,"stream":true`
	}
	hdr := append([]string{"Authorization", "Bearer key-k"}, d.headers...)
	r := g.raw(t, http.MethodPost, d.path, fmt.Sprintf(d.body, extra), hdr...)
	rec := g.recs.byID(t, r.Header.Get("X-Detour-Decision"))
	if os.Getenv("DETOUR_PROBE66C_DUMP") != "" {
		b, _ := json.Marshal(rec)
		t.Logf("%s %s %s: %d %s\n  record %s", c.name, d.name, mode, r.Status, r.Body, b)
	}
	aCost, keyCost := 0.0, 0.0
	row := p66Row{door: d.name, status: r.Status, pCalls: fs["p"].Calls(), attempts: len(rec.Attempts), outcome: rec.Outcome}
	for _, a := range rec.Attempts {
		if a.Target == "a" && row.class == "" {
			row.class, row.evidence = a.Class, a.Evidence
			if row.class == "" {
				row.class = "ok"
			}
		}
		if a.Target == "a" && a.Billable {
			row.billable = true
		}
		if a.Target == "a" && a.Usage != nil {
			row.usage = fmt.Sprintf("%d/%d", a.Usage.PromptTokens, a.Usage.CompletionTokens)
		}
		if a.Target == "a" {
			aCost += a.BudgetUSD()
		}
		keyCost += a.BudgetUSD()
		if a.Target == "b" {
			row.bTried = true
		}
	}
	row.cost = strconv.FormatFloat(aCost, 'g', 4, 64)
	if rec.CostUnknown {
		row.cost += "(unknown)"
	}
	keyWant := strconv.FormatFloat(keyCost, 'g', 4, 64)
	h := g.health(t)
	if e, ok := h.Endpoint("a", "p"); ok {
		row.ep = "ep " + p66Cooling(e.State, e.CooldownUntil)
	}
	if a, ok := h.Account("p"); ok {
		row.acct = "acct " + p66Cooling(a.State, a.CooldownUntil)
	}
	// Pages are posted apart from the request: wait a while for one.
	var pages []string
	for start := time.Now(); ; time.Sleep(10 * time.Millisecond) {
		pages = pages[:0]
		for _, l := range metricLines(t, g, "detour_alerts_total{") {
			if !strings.HasSuffix(l, " 0") {
				pages = append(pages, l)
			}
		}
		if len(pages) > 0 || (row.class != "auth" && row.class != "quota") || time.Since(start) > 2*time.Second {
			break
		}
	}
	row.pages = strings.Join(pages, ";")
	for _, l := range metricLines(t, g, "detour_client_limit_used{") {
		if strings.Contains(l, `limit="usd_per_day"`) {
			got, _ := strconv.ParseFloat(l[strings.LastIndex(l, " ")+1:], 64)
			row.keyUsed = "as recorded"
			if g := strconv.FormatFloat(got, 'g', 4, 64); g != keyWant {
				row.keyUsed = "key " + g + " != record " + keyWant
			}
		}
	}
	row.shouldRetry = r.Header.Get("X-Should-Retry")
	row.retryAfter = r.Header.Get("Retry-After")
	// The envelope: a whole error body, or a stream's error event.
	var payloads []string
	if strings.HasPrefix(r.Header.Get("Content-Type"), "text/event-stream") {
		for _, ev := range r.events() {
			if strings.Contains(ev.Data, `"error"`) {
				payloads = append(payloads, ev.Data)
			}
		}
		row.clientSeen = "stream"
	} else {
		payloads = []string{string(r.Body)}
	}
	for _, p := range payloads {
		var env struct {
			Type  string `json:"type"`
			Error *struct {
				Type    string `json:"type"`
				Code    any    `json:"code"`
				Details *struct {
					ErrorCode string `json:"error_code"`
				} `json:"details"`
			} `json:"error"`
			Response *struct {
				Error *struct {
					Code any `json:"code"`
				} `json:"error"`
			} `json:"response"`
		}
		if json.Unmarshal([]byte(p), &env) != nil {
			continue
		}
		switch {
		case env.Error != nil:
			row.envType = env.Type + "/" + env.Error.Type
			if env.Error.Code != nil {
				row.envCode = fmt.Sprint(env.Error.Code)
			} else if env.Error.Details != nil {
				row.envCode = env.Error.Details.ErrorCode
			}
		case env.Response != nil && env.Response.Error != nil:
			row.envType = env.Type
			row.envCode = fmt.Sprint(env.Response.Error.Code)
		}
		if row.envType != "" {
			break
		}
	}
	return row
}

// TestEveryDoorReadsAnAnswerAlike: the class decides everything, whatever
// door the client came through (docs/behaviour.md). For one corpus answer
// per dialect, class and shape (whole or a stream), served whole, as a
// stream failing before its first byte and as one failing after its commit
// point, every door that reaches the dialect records the same class and
// evidence, walks alike, cools and pages alike, tells the client the same
// status, retry advice and (OpenAI-shaped doors) code and type, and bills
// alike. Left out, by design: a 404 in words the classifier does not know
// from a path the operator claimed (completions: true, responses: true) is
// unknown there (docs/doors.md, "Legacy Completions"); and what an
// embeddings call bills for a chat answer in a 2xx, which no embeddings
// endpoint sends.
func TestEveryDoorReadsAnAnswerAlike(t *testing.T) {
	cases := p66Sample(t, 1)
	if len(cases) < 30 {
		t.Fatalf("sample of %d answers", len(cases))
	}
	fields := []string{"class", "evidence", "walk", "cools", "pages", "status", "retry", "billed", "code"}
	for _, c := range cases {
		for _, mode := range []string{"whole", "pre", "post"} {
			var rows []p66Row
			for _, d := range p66Doors {
				if !contains66(d.dialects, c.Dialect) || (mode != "whole" && !d.streams) {
					continue
				}
				step, ok := p66Upstream(c, mode, d.name)
				if !ok {
					continue
				}
				r := p66Run(t, c, d, mode, step)
				if (d.name == "completions" || d.name == "responses*") && r.class == "unknown" && strings.HasPrefix(r.evidence, "status:404 (") {
					continue
				}
				r.unbilled = d.name == "embeddings" && c.Status/100 == 2
				rows = append(rows, r)
			}
			for _, f := range fields {
				vals := map[string][]string{}
				for _, r := range rows {
					if k := r.key(f); k != "\x00" {
						vals[k] = append(vals[k], r.door)
					}
				}
				if len(vals) > 1 {
					var parts []string
					for v, ds := range vals {
						parts = append(parts, strings.Join(ds, ",")+"="+v)
					}
					sort.Strings(parts)
					t.Errorf("%s (%s %s %d), %s: doors differ on %s: %s", c.name, c.Dialect, c.Class, c.Status, mode, f, strings.Join(parts, " | "))
				}
			}
		}
	}
}

func contains66(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
