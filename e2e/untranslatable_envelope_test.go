package e2e

import (
	"net/http"
	"strings"
	"testing"
)

// A chat request no target can translate (an input_audio part for Claude,
// a file by id for Claude or Gemini: only OpenAI holds it) is the client's
// request, refused before anything is sent: its 400 says so in OpenAI's envelope with type
// invalid_request_error, as OpenAI types a 400 and as the Messages and
// Responses doors already did. Before, the chat door typed it
// "upstream_error", which a client branching on error.type reads as a
// provider's failure.
func TestChatUntranslatableIsInvalidRequest(t *testing.T) {
	fs := r40gTextFakes(t)
	g := start(t, clientsCfg, fs)
	for part, routes := range map[string][]string{
		`{"type":"input_audio","input_audio":{"data":"UklGRiQAAABXQVZF","format":"wav"}}`: {"via-claude"},
		`{"type":"file","file":{"file_id":"file-6F2ksmvXxt4VdoqmHRw6kL"}}`:                {"via-claude", "via-gem"},
	} {
		for _, route := range routes {
			body := `{"model":"` + route + `","messages":[{"role":"user","content":[{"type":"text","text":"What is in this?"},` + part + `]}]}`
			r := g.raw(t, http.MethodPost, "/v1/chat/completions", body, "Authorization", "Bearer client-key")
			if r.Status != http.StatusBadRequest {
				t.Errorf("%s %s: status %d %s", route, part[:22], r.Status, r.Body)
				continue
			}
			e, _ := r.json(t)["error"].(map[string]any)
			if typ, _ := e["type"].(string); typ != "invalid_request_error" {
				t.Errorf("%s %s: error.type %q, want invalid_request_error: %s", route, part[:22], typ, r.Body)
			}
			if msg, _ := e["message"].(string); !strings.Contains(msg, "translate") {
				t.Errorf("%s: the message does not say what failed: %s", route, r.Body)
			}
		}
	}
	for name, s := range fs {
		if name != "openai" && len(s.Requests()) > 0 {
			t.Errorf("%s was sent a request it cannot take", name)
		}
	}
}
