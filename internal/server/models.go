package server

import (
	"github.com/detour-llm/detour/internal/config"
	"net/http"
	"strings"
)

// modelsFor answers GET /v1/models in the shape the client expects: a
// request carrying anthropic-version (every Anthropic SDK sends it) gets
// Anthropic's model list, any other OpenAI's. GET /v1/models/{id} (the
// SDKs' models.retrieve) answers that one entry in the same shape, or a
// 404 in the same envelope.
func (s *Server) modelsFor(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, "/v1/models"), "/")
	if r.Header.Get("Anthropic-Version") == "" {
		s.models(w, r, id)
		return
	}
	if r.Method != http.MethodGet {
		closeAfter(w)
		w.Header().Set("Allow", http.MethodGet)
		anthropicError(w, http.StatusMethodNotAllowed, "use GET for /v1/models")
		return
	}
	st := s.state.Load()
	client, ok := anthropicClient(st.Config, r)
	if !ok {
		closeAfter(w)
		anthropicError(w, http.StatusUnauthorized, "missing or invalid client key: send x-api-key: <key> or Authorization: Bearer <key>")
		return
	}
	if client != nil && client.Disabled {
		s.countDisabled(modelsDoor, client)
		anthropicError(w, http.StatusForbidden, disabledMessage(client))
		return
	}
	// Anthropic's ModelInfo. Detour knows no release date for a route:
	// created_at is the Unix epoch. One page holds every name.
	type model struct {
		Type        string `json:"type"`
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
		CreatedAt   string `json:"created_at"`
	}
	data := []model{}
	add := func(name, display string) {
		data = append(data, model{Type: "model", ID: name, DisplayName: display, CreatedAt: "1970-01-01T00:00:00Z"})
	}
	catalogue(st.Config, st.Config.Allowed(client),
		func(rt *config.Route) { add(rt.Name, rt.Name+" (Detour route)") },
		func(t *config.Target) { add(t.Name, t.Name+" ("+t.Model+")") })
	if id != "" {
		for _, m := range data {
			if m.ID == id {
				writeJSON(w, m)
				return
			}
		}
		anthropicError(w, http.StatusNotFound, "model: "+id+" (Detour knows no such route or target, or this key may not call it)")
		return
	}
	out := map[string]any{"data": data, "has_more": false, "first_id": nil, "last_id": nil}
	if len(data) > 0 {
		out["first_id"], out["last_id"] = data[0].ID, data[len(data)-1].ID
	}
	writeJSON(w, out)
}
