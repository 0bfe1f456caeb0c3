package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// TestFailedAttemptMessageKeepsNoClientText_r50: since round 50 every
// failed attempt records the upstream's message, not an unknown's alone,
// masked only where it quotes. vLLM's MediaConnector answers a file:// URL
// outside --allowed-local-media-path with "The file path {filepath} must be
// a subpath of `--allowed-local-media-path` {allowed}." (vLLM
// multimodal/utils.py _load_file_url; the same code in
// PygmalionAI/aphrodite-engine aphrodite/multimodal/utils.py): the client's
// own path, unquoted, classed bad_request ("phrase:must be"). Before round
// 50 a bad_request kept no message; now the record, `detour decisions`
// and the console show the client's file name, where docs/behaviour.md
// ("Decision record") promises "never a key or prompt text" and
// docs/design.md says a message is kept "only for that class" (unknown).
func TestFailedAttemptMessageKeepsNoClientText_r50(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"vllm": vllmFileURL("m")})
	g := start(t, vllmOneTarget, fs)
	g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"r","messages":[{"role":"user","content":[`+
		`{"type":"text","text":"what is this?"},`+
		`{"type":"image_url","image_url":{"url":"file:///home/alice/scans/Jane%20Doe%20biopsy%20malignant.png"}}]}]}`)
	d := g.recs.wait(t, 1)
	for _, a := range d.Attempts {
		t.Logf("attempt: %s %s %q", a.Class, a.Evidence, a.Message)
		if strings.Contains(a.Message, "Jane Doe") || strings.Contains(a.Message, "biopsy") {
			t.Errorf("the record keeps the client's own text: %q", a.Message)
		}
	}
}
