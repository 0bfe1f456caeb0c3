package server

import "net/http"

// HandleOperator serves h at pattern beside /metrics and /v1/health: pages
// for operators (the console) go wherever those go (the admin_listen
// listener when there is one) and are guarded as they are (admin_keys).
func (s *Server) HandleOperator(pattern string, h http.Handler) {
	s.ops.Handle(pattern, s.adminOnly(h.ServeHTTP))
}
