package console

import (
	"bytes"
	"embed"
	"encoding/json"
	"html/template"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/query"
)

//go:embed ui
var files embed.FS

// csp allows the console's own script and style and nothing else: no
// inline script or style, no other origin, no framing; Trusted Types makes
// the browser refuse any HTML string sink (innerHTML and the like).
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'; require-trusted-types-for 'script'; trusted-types 'none'"

// Prefix is where the console is served.
const Prefix = "/ui/"

// pages are the console's pages, in menu order.
var pages = []struct{ Path, Title string }{
	{"health", "Health"}, {"decisions", "Decisions"}, {"classes", "Classes over time"}, {"unknowns", "Unknowns"}, {"keys", "Keys"}, {"costs", "Costs"},
}

// Handler serves the console under Prefix: the pages, their script and
// style, and the JSON they read (api/…). Only GET and HEAD.
func (c *Console) Handler() http.Handler {
	mux := http.NewServeMux()
	tmpl := template.Must(template.ParseFS(files, "ui/page.html"))
	for _, p := range pages {
		var b bytes.Buffer
		tmpl.Execute(&b, map[string]any{"Page": p.Path, "Title": p.Title, "Pages": pages})
		html := b.Bytes()
		mux.HandleFunc("GET "+Prefix+p.Path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-cache")
			w.Write(html)
		})
	}
	mux.HandleFunc("GET "+Prefix+"{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, Prefix+"health", http.StatusFound)
	})
	static := http.FileServerFS(files)
	mux.HandleFunc("GET "+Prefix+"static/{file}", func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("file")
		if name != "app.js" && name != "style.css" && name != "icon.svg" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", "no-cache")
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/ui/" + name
		static.ServeHTTP(w, r2)
	})
	mux.HandleFunc("GET "+Prefix+"api/meta", c.apiMeta)
	mux.HandleFunc("GET "+Prefix+"api/health", c.apiHealth)
	mux.HandleFunc("GET "+Prefix+"api/decisions", c.apiDecisions)
	mux.HandleFunc("GET "+Prefix+"api/decisions/{id}", c.apiDecision)
	mux.HandleFunc("GET "+Prefix+"api/classes", c.apiClasses)
	mux.HandleFunc("GET "+Prefix+"api/unknowns", c.apiUnknowns)
	mux.HandleFunc("GET "+Prefix+"api/inprogress", c.apiInProgress)
	mux.HandleFunc("GET "+Prefix+"api/keys", c.apiKeys)
	mux.HandleFunc("GET "+Prefix+"api/costs", c.apiCosts)
	mux.HandleFunc(Prefix, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "the console is read-only: use GET", http.StatusMethodNotAllowed)
			return
		}
		http.NotFound(w, r)
	})
	return secure(mux)
}

// secure sets the headers every console response carries.
func secure(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		next.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(b)
}

func badRequest(w http.ResponseWriter, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	b, _ := json.Marshal(map[string]string{"error": msg})
	w.Write(b)
}

// apiMeta: what the filters offer, who is answering, and what it runs
// (config: the configuration's load time and the last reload refused
// since, which every page polls and shows).
func (c *Console) apiMeta(w http.ResponseWriter, r *http.Request) {
	out := map[string]any{"now": c.opt.Now().UTC(), "replica": c.replica(), "ring_size": len(c.ring),
		"classes": query.Classes(), "outcomes": query.Outcomes(), "apis": query.APIs(),
		"routes": []string{}, "targets": []string{}, "providers": []string{}}
	if c.opt.State != nil {
		cfg, _ := c.opt.State()
		var routes, targets, providers []string
		for _, rt := range cfg.Routes {
			routes = append(routes, rt.Name)
		}
		for _, t := range cfg.Targets {
			targets = append(targets, t.Name)
			routes = append(routes, t.Name) // a client may name a target
		}
		for _, p := range cfg.Providers {
			providers = append(providers, p.Name)
		}
		out["routes"], out["targets"], out["providers"] = routes, targets, providers
	}
	if c.opt.Loaded != nil {
		out["config"] = c.opt.Loaded()
	}
	writeJSON(w, out)
}

func (c *Console) replica() string {
	if c.opt.Replica != "" {
		return c.opt.Replica
	}
	h, _ := os.Hostname()
	return h
}

// endpointView is one endpoint on the Health page.
type endpointView struct {
	health.EndpointHealth
	Model string `json:"model"`
	// LastFailure is the last failed attempt this replica saw there.
	LastFailure *failure `json:"last_failure"`
}

// sharingView is /v1/health's state: whether this replica's health is the
// one every replica shares (operator review 51b: during a Redis outage two
// consoles showed different health, and neither said why).
type sharingView struct {
	Store      string     `json:"store"`
	Shared     bool       `json:"shared"`
	LocalSince *time.Time `json:"local_since"`
	LostAt     *time.Time `json:"lost_at"`
}

type accountView struct {
	health.AccountHealth
	LastFailure *failure `json:"last_failure"`
}

func (c *Console) apiHealth(w http.ResponseWriter, r *http.Request) {
	eps := []endpointView{}
	accts := []accountView{}
	var state *sharingView
	if c.opt.State != nil {
		cfg, tr := c.opt.State()
		he, ha := tr.Snapshot(r.Context())
		sh := tr.Sharing()
		state = &sharingView{Store: sh.Store, Shared: sh.Shared}
		if !sh.LocalSince.IsZero() {
			state.LocalSince = &sh.LocalSince
		}
		if !sh.LostAt.IsZero() {
			state.LostAt = &sh.LostAt
		}
		lastEP, lastAcc := c.lastFailures()
		for _, e := range he {
			v := endpointView{EndpointHealth: e}
			if t, ok := cfg.Target(e.Target); ok {
				v.Model = t.Model
			}
			// A failure of the model a reload replaced is not the new
			// one's (operator review 51b: a retired model's 404 showed
			// beside its healthy successor).
			if f, ok := lastEP[health.Key{Target: e.Target, Provider: e.Provider}]; ok && (f.model == "" || f.model == v.Model) {
				v.LastFailure = &f
			}
			eps = append(eps, v)
		}
		for _, a := range ha {
			v := accountView{AccountHealth: a}
			if f, ok := lastAcc[a.Name]; ok {
				v.LastFailure = &f
			}
			accts = append(accts, v)
		}
	}
	writeJSON(w, map[string]any{"now": c.opt.Now().UTC(), "replica": c.replica(), "state": state, "endpoints": eps, "accounts": accts})
}

// maxList bounds how many records one answer carries.
const maxList = 500

func (c *Console) apiDecisions(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := query.Filter{Route: q.Get("route"), Target: q.Get("target"), Class: q.Get("class"),
		Outcome: q.Get("outcome"), API: q.Get("api"), Client: strings.TrimSpace(q.Get("client"))}
	if err := f.Check(); err != nil {
		badRequest(w, err.Error())
		return
	}
	var after uint64
	if s := q.Get("after"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			badRequest(w, "after must be a record sequence number")
			return
		}
		after = n
	}
	limit := 100
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			badRequest(w, "limit must be a whole number of at least 1")
			return
		}
		limit = min(n, maxList)
	}
	es, last := c.recent(f, after, limit)
	type item struct {
		Seq    uint64 `json:"seq"`
		Record any    `json:"record"`
	}
	items := make([]item, len(es))
	for i, e := range es {
		items[i] = item{Seq: e.seq, Record: e.d}
	}
	writeJSON(w, map[string]any{"now": c.opt.Now().UTC(), "seq": last, "records": items})
}

func (c *Console) apiDecision(w http.ResponseWriter, r *http.Request) {
	d := c.byID(r.PathValue("id"))
	if d == nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"error":"no such record in this replica's ring (it may have been pushed out, or served by another replica)"}`))
		return
	}
	writeJSON(w, d)
}

func (c *Console) apiClasses(w http.ResponseWriter, r *http.Request) {
	starts, counts := c.perMinute()
	series := []map[string]any{}
	for _, class := range query.Classes() { // a fixed order: ok, the twelve, canceled
		if n, ok := counts[class]; ok {
			series = append(series, map[string]any{"class": class, "counts": n})
		}
	}
	writeJSON(w, map[string]any{"now": c.opt.Now().UTC(), "minutes": starts, "series": series})
}

func (c *Console) apiUnknowns(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, map[string]any{"now": c.opt.Now().UTC(), "groups": c.unknowns()})
}
