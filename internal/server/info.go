package server

import (
	"context"
	"encoding/json"
	"github.com/detour-llm/detour/internal/config"
	"net/http"
	"time"

	"github.com/detour-llm/detour/internal/health"
)

// models answers GET /v1/models with OpenAI's list, or GET
// /v1/models/{id} (id not empty) with that one entry: a name the key may
// not call, or that Detour does not know, is OpenAI's 404 model_not_found.
func (s *Server) models(w http.ResponseWriter, r *http.Request, id string) {
	if r.Method != http.MethodGet {
		closeAfter(w)
		writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "method_not_allowed", "use GET for /v1/models")
		return
	}
	st := s.state.Load()
	client, ok := clientOf(st.Config, r)
	if !ok {
		closeAfter(w)
		writeError(w, http.StatusUnauthorized, "authentication_error", "invalid_api_key", "missing or invalid client key: send Authorization: Bearer <key>")
		return
	}
	if client != nil && client.Disabled {
		s.countDisabled(modelsDoor, client)
		writeError(w, http.StatusForbidden, "permission_error", disabledCode, disabledMessage(client))
		return
	}
	allowed := st.Config.Allowed(client) // a key sees only what it may call
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
		// Kind is "route" or "target"; Strategy and Targets describe a route.
		Kind     string   `json:"detour_kind"`
		Strategy string   `json:"detour_strategy,omitempty"`
		Targets  []string `json:"detour_targets,omitempty"`
		Model    string   `json:"detour_model,omitempty"`
	}
	data := []model{} // a key that may call nothing gets [], never null
	catalogue(st.Config, allowed, func(rt *config.Route) {
		data = append(data, model{ID: rt.Name, Object: "model", OwnedBy: "detour", Kind: "route", Strategy: rt.Strategy.String(), Targets: rt.Targets})
	}, func(t *config.Target) {
		data = append(data, model{ID: t.Name, Object: "model", OwnedBy: "detour", Kind: "target", Model: t.Model})
	})
	if id == "" {
		writeJSON(w, map[string]any{"object": "list", "data": data})
		return
	}
	for _, m := range data {
		if m.ID == id {
			writeJSON(w, m)
			return
		}
	}
	writeError(w, http.StatusNotFound, "invalid_request_error", "model_not_found", "The model '"+id+"' does not exist or this key may not call it")
}

// health answers GET /v1/health: always 200 while serving.
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodOptions { // HEAD, OPTIONS: a balancer's check
		writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "method_not_allowed", "use GET for /v1/health")
		return
	}
	st, sh, eps, accts := s.snapshot(r.Context())
	type sharing struct {
		Store      string     `json:"store"`
		Shared     bool       `json:"shared"`
		LocalSince *time.Time `json:"local_since"` // null unless Redis does not answer
		LostAt     *time.Time `json:"lost_at"`     // null unless Redis was found to have lost its state
	}
	state := sharing{Store: sh.Store, Shared: sh.Shared}
	if !sh.LocalSince.IsZero() {
		state.LocalSince = &sh.LocalSince
	}
	if !sh.LostAt.IsZero() {
		state.LostAt = &sh.LostAt
	}
	type endpoint struct {
		Target        string     `json:"target"`
		Provider      string     `json:"provider"`
		Model         string     `json:"model"`
		State         string     `json:"state"`
		Failures      int        `json:"failures"`
		LastClass     string     `json:"last_class"`
		CooldownUntil *time.Time `json:"cooldown_until"`
		LatencyMS     *float64   `json:"latency_ms"`
		// Why it cools: health.EndpointHealth.
		CoolingClass   string     `json:"cooling_class"`
		CoolingMessage string     `json:"cooling_message"`
		DownSince      *time.Time `json:"down_since"`
	}
	out := make([]endpoint, len(eps))
	for i, e := range eps {
		out[i] = endpoint{Target: e.Target, Provider: e.Provider, State: e.State, Failures: e.Failures,
			LastClass: e.LastClass, CooldownUntil: e.CooldownUntil, LatencyMS: e.LatencyMS,
			CoolingClass: e.CoolingClass, CoolingMessage: e.CoolingMessage, DownSince: e.DownSince}
		if t, ok := st.Config.Target(e.Target); ok {
			out[i].Model = t.Model
		}
	}
	if accts == nil {
		accts = []health.AccountHealth{}
	}
	lt := s.loaded.Load()
	type loaded struct {
		LoadedAt        time.Time  `json:"loaded_at"`         // the start, or the last reload applied
		ReloadRefusedAt *time.Time `json:"reload_refused_at"` // null unless a reload was refused since
	}
	cfg := loaded{LoadedAt: lt.at.UTC()}
	if !lt.refused.IsZero() {
		r := lt.refused.UTC()
		cfg.ReloadRefusedAt = &r
	}
	status, code := s.status()
	writeJSONStatus(w, code, map[string]any{"status": status, "state": state, "config": cfg, "endpoints": out, "accounts": accts})
}

// snapshot reads every endpoint's and account's health and where it comes
// from, and brings the state gauges up to date with them: /v1/health and
// the gauges tell one reading.
func (s *Server) snapshot(ctx context.Context) (*State, health.Sharing, []health.EndpointHealth, []health.AccountHealth) {
	st := s.state.Load()
	eps, accts := st.Health.Snapshot(ctx)
	sh := st.Health.Sharing()
	s.metrics.StateShared(sh.Store, sh.Shared)
	for _, e := range eps {
		s.metrics.EndpointState(e.Target, e.Provider, e.State)
	}
	for _, a := range accts {
		s.metrics.AccountState(a.Name, a.State)
	}
	return st, sh, eps, accts
}

func writeJSON(w http.ResponseWriter, v any) { writeJSONStatus(w, http.StatusOK, v) }

func writeJSONStatus(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	requestID(w.Header())
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(b)
}
