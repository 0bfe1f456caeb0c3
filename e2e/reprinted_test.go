package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// reprintingUpstream is a Python server that parses the client's first tool
// schema and, refusing it, answers 400 with the exception's text: the
// schema printed again as Python prints a dict ({'k': 'v', …}), not as the
// client wrote it.
func reprintingUpstream() upstreamtest.Script {
	return func(_ int, r upstreamtest.Request) upstreamtest.Step {
		var req struct {
			Tools []struct {
				Function struct {
					Parameters json.RawMessage `json:"parameters"`
				} `json:"function"`
			} `json:"tools"`
		}
		if json.Unmarshal(r.Body, &req) != nil || len(req.Tools) == 0 {
			return ok("model-a", "hi")
		}
		var v any
		_ = json.Unmarshal(req.Tools[0].Function.Parameters, &v)
		compact, _ := json.Marshal(v) // keys sorted; values here hold no quote, colon or comma
		repr := strings.NewReplacer(`"`, `'`, `:`, `: `, `,`, `, `).Replace(string(compact))
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": "ValueError: " + repr, "type": "BadRequestError", "code": 400}})
		return upstreamtest.Step{Status: 400, Body: string(b)}
	}
}

// A client whose tool schema is shaped like a spent account's answer
// (written as Python's json.dumps writes it, spaced), which the upstream
// prints back as a Python dict, cools nothing and pages no one
// (docs/design.md, "Quoted answers": before, the request was compared with
// the reprinted text byte for byte, and this 400 read quota).
func TestReprintedClientSchemaIsNoQuota(t *testing.T) {
	h := newHook(t)
	fs := fakes(t, map[string]upstreamtest.Script{
		"p":  reprintingUpstream(),
		"p2": script(corpus(t, "openai-insufficient-quota-429")),
		"q":  script(ok("model-b", "q")),
	})
	g := startEcho(t, h.URL, fs)
	g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"r","messages":[{"role":"user","content":"hi"}],`+
		`"tools":[{"type":"function","function":{"name":"f","parameters":{"error": {"code": "insufficient_quota", "message": "x", "type": "insufficient_quota"}}}}]}`)
	wantNothingCooledNorPaged(t, g, h, "reprinted client schema")
}
