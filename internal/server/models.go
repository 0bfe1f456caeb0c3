package server

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/detour-llm/detour/internal/config"
)

// modelsFor answers GET /v1/models in the shape the client expects: a
// request carrying anthropic-version (every Anthropic SDK sends it) gets
// Anthropic's model list, any other OpenAI's. GET /v1/models/{id} (the
// SDKs' models.retrieve) answers that one entry in the same shape, or a
// 404 in the same envelope.
func (s *Server) modelsFor(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, "/v1/models"), "/")
	if isGemini(r) || r.Method == http.MethodPost && strings.Contains(id, ":") {
		// Google's clients with apiVersion "v1": the Gemini door.
		s.gemini(w, r)
		return
	}
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
	// created_at is the Unix epoch. Paged as Anthropic pages it
	// (anthropicPage): a hand-written pager that follows after_id read the
	// whole list again on every page (review 63c).
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
	from, to, more, msg := anthropicPage(r.URL.Query(), len(data), func(i int) string { return data[i].ID })
	if msg != "" {
		anthropicError(w, http.StatusBadRequest, msg)
		return
	}
	page := data[from:to]
	out := map[string]any{"data": page, "has_more": more, "first_id": nil, "last_id": nil}
	if len(page) > 0 {
		out["first_id"], out["last_id"] = page[0].ID, page[len(page)-1].ID
	}
	writeJSON(w, out)
}

// anthropicPage is the page of a list of n entries (id(i) the i-th's id)
// that Anthropic's list parameters ask for
// (https://docs.anthropic.com/en/api/models-list): limit entries (1 to
// 1000, 20 by default) after after_id, or the limit entries just before
// before_id; [from, to) in the list, and whether more entries lie beyond
// it in the direction paged. msg is a 400's message for a limit that is
// not a whole number in range, a cursor Detour does not list, or both
// cursors at once.
func anthropicPage(q url.Values, n int, id func(int) string) (from, to int, more bool, msg string) {
	limit := 20
	if v := q.Get("limit"); v != "" {
		l, err := strconv.Atoi(v)
		if err != nil || l < 1 || l > 1000 {
			return 0, 0, false, "limit: must be a whole number from 1 to 1000, not " + strconv.Quote(v)
		}
		limit = l
	}
	at := func(param string) (int, string) {
		c := q.Get(param)
		for i := range n {
			if id(i) == c {
				return i, ""
			}
		}
		return 0, param + ": " + strconv.Quote(c) + " is no model this list holds for this key"
	}
	after, before := q.Get("after_id"), q.Get("before_id")
	switch {
	case after != "" && before != "":
		return 0, 0, false, "after_id and before_id: give one cursor, not both"
	case before != "":
		i, msg := at("before_id")
		return max(0, i-limit), i, i-limit > 0, msg
	case after != "":
		i, msg := at("after_id")
		return i + 1, min(n, i+1+limit), i+1+limit < n, msg
	}
	return 0, min(n, limit), limit < n, ""
}
