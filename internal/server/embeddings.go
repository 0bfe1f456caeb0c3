package server

import (
	"net/http"

	"github.com/detour-llm/detour/internal/dispatch"
)

// POST /v1/embeddings: OpenAI's embeddings API, served by the same engine
// as chat (docs/doors.md, "Embeddings"): the same classification, table,
// health, budgets and decision record (api "embeddings"). Targets whose
// dialect has no embeddings are skipped; a route with none that has them
// is a 400. Never streamed.

func (s *Server) embeddings(w http.ResponseWriter, r *http.Request) {
	d := openAIDoor("embeddings", dispatch.OpEmbeddings, embeddingsMembers)
	a := s.admit(w, r, d)
	if a == nil {
		return
	}
	defer s.end(a)
	if a.stream {
		s.refuse(w, d, http.StatusBadRequest, "invalid_request", `/v1/embeddings does not stream: leave "stream" out`)
		return
	}
	call := &dispatch.Call{Model: a.model, Body: a.body, API: "embeddings", Op: dispatch.OpEmbeddings}
	// The one parse of the body, which the adapters read, within a
	// reservation of its cost; its texts stay counted until the request
	// ends (translate.go).
	var err error
	if !s.reserveFor(w, d, a, dispatch.EmbeddingsCost(a.body), func() (held int) { held, err = call.CheckEmbeddings(); return held }) {
		return
	}
	if err != nil {
		s.refuse(w, d, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	if !s.begin(w, r, d, a, call) {
		return
	}
	s.do(w, r, d, a, call)
}
