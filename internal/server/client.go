package server

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/detour-llm/detour/internal/config"
)

// clientLabel names the client key an authorized request used, for the
// decision record, without revealing it: "key:" and the first 8 hex digits
// of the key's SHA-256 (an operator finds a key's label with
// `printf %s "$KEY" | sha256sum | cut -c1-8`). Empty when no client keys
// are configured: then any bearer a client sends is not ours to record.
func clientLabel(cfg *config.Config, r *http.Request) string {
	if len(cfg.ClientKeys) == 0 {
		return ""
	}
	key, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return ""
	}
	sum := sha256.Sum256([]byte(key))
	return "key:" + hex.EncodeToString(sum[:4])
}

// HandleOperator serves h at pattern beside /metrics and /v1/health: pages
// for operators (the console) go wherever those go (the admin_listen
// listener when there is one) and are guarded as they are (admin_keys).
func (s *Server) HandleOperator(pattern string, h http.Handler) {
	s.ops.Handle(pattern, s.adminOnly(h.ServeHTTP))
}
