package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/detour-llm/detour/internal/health"
)

// maxResetBody bounds POST /v1/health/reset's body: two names.
const maxResetBody = 4 << 10

// healthReset answers POST /v1/health/reset {"provider":…,"target":…}: an
// operator who fixed what cooled an account or an endpoint (credits topped
// up, a key enabled again, a model back) ends its cooldown now, on every
// replica sharing the state, instead of waiting it out (docs/deploy.md,
// "Ending a cooldown"; operator review 48: only a restart did, and with
// Redis not even that). With a target, that endpoint alone starts
// healthy; without, the provider's account and every endpoint on it. It
// needs admin_keys: un-cooling a provider is the operator's to do, never
// a client's, so with no admin key set it is refused.
func (s *Server) healthReset(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "method_not_allowed", "use POST for /v1/health/reset")
		return
	}
	st := s.state.Load()
	cfg := st.Config
	if len(cfg.AdminKeys) == 0 {
		writeError(w, http.StatusForbidden, "permission_error", "admin_keys_required",
			"a health reset needs admin_keys in the configuration: it ends cooldowns, which no client may do")
		return
	}
	// JSON only, as every POST (docs/security.md): a web page sends other
	// types without a preflight, and a browser may add the console's
	// Basic credentials (review 48b).
	if ct := r.Header.Get("Content-Type"); !jsonContentType(ct) {
		writeError(w, http.StatusUnsupportedMediaType, "invalid_request_error", "unsupported_media_type",
			"the body must be JSON sent with Content-Type: application/json, not "+quoteHeader(ct))
		return
	}
	var in struct {
		Provider string `json:"provider"`
		Target   string `json:"target"`
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxResetBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil || dec.Decode(new(json.RawMessage)) != io.EOF {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "invalid_request",
			`want a JSON object {"provider": "<name>"} or {"provider": "<name>", "target": "<name>"}`)
		return
	}
	if in.Provider == "" {
		// A provider is required: an account and its endpoints are reset
		// together, never one target at every provider at once.
		msg := `a reset names its provider: {"provider": "<name>"} or {"provider": "<name>", "target": "<name>"}`
		if t, ok := cfg.Target(in.Target); ok {
			msg += fmt.Sprintf("; target %s is served by %s", t.Name, strings.Join(t.Providers, ", "))
		}
		writeError(w, http.StatusBadRequest, "invalid_request_error", "invalid_request", msg)
		return
	}
	if _, ok := cfg.Provider(in.Provider); !ok {
		names := make([]string, len(cfg.Providers))
		for i := range cfg.Providers {
			names[i] = cfg.Providers[i].Name
		}
		writeError(w, http.StatusNotFound, "invalid_request_error", "not_found",
			fmt.Sprintf("no provider %q in the configuration (providers: %s)", cut(in.Provider, maxModelQuote), strings.Join(names, ", ")))
		return
	}
	var keys []health.Key
	for _, t := range cfg.Targets {
		if (in.Target == "" || t.Name == in.Target) && slices.Contains(t.Providers, in.Provider) {
			keys = append(keys, health.Key{Target: t.Name, Provider: in.Provider})
		}
	}
	if in.Target != "" && len(keys) == 0 {
		var served []string
		for _, t := range cfg.Targets {
			if slices.Contains(t.Providers, in.Provider) {
				served = append(served, t.Name)
			}
		}
		writeError(w, http.StatusNotFound, "invalid_request_error", "not_found",
			fmt.Sprintf("no target %q served by provider %s in the configuration (its targets: %s)", cut(in.Target, maxModelQuote), in.Provider, strings.Join(served, ", ")))
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), 5*time.Second)
	defer cancel()
	out := struct {
		Account   *string  `json:"account"`
		Endpoints []string `json:"endpoints"`
		// Shared: every replica sharing the state reads the reset, as
		// /v1/health's state.shared says. False for a memory store (this
		// replica's alone) and while this replica's Redis does not answer:
		// the reset is then written when Redis returns, and a replica that
		// still remembers the cooldown may write it back first; Warning
		// says to reset again then (operator review 48b).
		Shared  bool   `json:"shared"`
		Warning string `json:"warning,omitempty"`
	}{Endpoints: make([]string, 0, len(keys))}
	for _, k := range keys {
		st.Health.Forget(ctx, k)
		out.Endpoints = append(out.Endpoints, k.Target+"/"+k.Provider)
	}
	if in.Target == "" {
		st.Health.ForgetAccount(ctx, in.Provider)
		out.Account = &in.Provider
	}
	sh := st.Health.Sharing()
	out.Shared = sh.Shared // as /v1/health says it: false for a memory store, which is this replica's alone
	if sh.Store == "redis" && !sh.Shared {
		out.Warning = "Redis does not answer: this replica reset its own state, and writes the reset to Redis when it returns; another replica that still remembers the cooldown may write it back, so reset again once /v1/health says shared: true"
	}
	s.log.Info("health reset by an operator", "provider", in.Provider, "target", in.Target, "endpoints", len(keys), "shared", out.Shared)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(out)
}
