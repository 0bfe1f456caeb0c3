package server

import (
	"net/http"

	"github.com/detour-llm/detour/internal/config"
)

// geminiModel is Google's Model resource, as much of it as Detour knows:
// a route's limits are its targets', which it does not know for every
// vendor, so inputTokenLimit and outputTokenLimit are not said.
type geminiModel struct {
	Name                       string   `json:"name"`
	BaseModelID                string   `json:"baseModelId"`
	Version                    string   `json:"version"`
	DisplayName                string   `json:"displayName"`
	Description                string   `json:"description"`
	SupportedGenerationMethods []string `json:"supportedGenerationMethods"`
}

// geminiMethods are the methods the door serves for every model.
var geminiMethods = []string{"generateContent", "streamGenerateContent", "countTokens", "embedContent", "batchEmbedContents"}

// geminiModels answers GET /v1beta/models (id "") and
// GET /v1beta/models/{id} in Google's shape: {"models":[…]}, routes then
// targets a client key may call, each named "models/<name>"; a name the
// key may not call or Detour does not know is a 404 NOT_FOUND. The list is
// one page (no nextPageToken).
func (s *Server) geminiModels(w http.ResponseWriter, r *http.Request, id string) {
	if r.Method != http.MethodGet {
		closeAfter(w)
		w.Header().Set("Allow", http.MethodGet)
		s.refuse(w, geminiFront, http.StatusMethodNotAllowed, "method_not_allowed", "use GET for "+r.URL.Path)
		return
	}
	st := s.state.Load()
	client, ok := geminiClient(st.Config, r)
	if !ok {
		closeAfter(w)
		s.refuse(w, geminiFront, http.StatusUnauthorized, "invalid_api_key", "missing or invalid client key: "+geminiFront.keyHint)
		return
	}
	if client != nil && client.Disabled {
		s.countDisabled(modelsDoor, client)
		geminiError(w, http.StatusForbidden, disabledMessage(client))
		return
	}
	models := []geminiModel{}
	add := func(name, display, desc string) {
		models = append(models, geminiModel{Name: "models/" + name, BaseModelID: name, Version: "detour", DisplayName: display,
			Description: desc, SupportedGenerationMethods: geminiMethods})
	}
	catalogue(st.Config, st.Config.Allowed(client),
		func(rt *config.Route) { add(rt.Name, rt.Name, "Detour route") },
		func(t *config.Target) { add(t.Name, t.Name, "Detour target ("+t.Model+")") })
	if id == "" {
		writeJSON(w, map[string]any{"models": models})
		return
	}
	for _, m := range models {
		if m.BaseModelID == id {
			writeJSON(w, m)
			return
		}
	}
	geminiError(w, http.StatusNotFound, "models/"+id+" is not found: Detour knows no such route or target, or this key may not call it")
}
