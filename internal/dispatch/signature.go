package dispatch

import (
	"bytes"
	"net/http"
	"strings"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/provider"
)

// refusedSignature reports whether o is a gemini-dialect endpoint's 400
// refusing a thought signature the gateway handed back to the endpoint
// that wrote it (docs/doors.md, "Gemini thought signatures"): Gemini at
// times refuses its own ("Corrupted thought signature.", at random in
// charmbracelet/crush#1698; after a model alias moved, review 54). If so,
// e is sent the request again at once with Google's placeholder in place
// of every signature a client handed back (provider.Request.Unsealed), as
// it was sent before signatures were carried: the refusal never reaches
// the client, and spends no same-endpoint retry. Once per endpoint.
func (w *walk) refusedSignature(e *endpointRT, o *outcome) bool {
	if !w.signatureRefusal(e, o) {
		return false
	}
	if w.unsealed == nil {
		w.unsealed = map[*endpointRT]bool{}
	}
	w.unsealed[e] = true
	w.resentWithout("thought_signature")
	return true
}

// signatureRefusal is refusedSignature's test, changing nothing: finish
// reads it too (a probe whose request is sent again keeps its slot).
func (w *walk) signatureRefusal(e *endpointRT, o *outcome) bool {
	if e.prov.cfg.Dialect != classify.Gemini || o.status != http.StatusBadRequest || o.verdict.Class != classify.BadRequest ||
		w.unsealed[e] || !bytes.Contains(w.call.Body, []byte(provider.SignaturePrefix)) {
		return false
	}
	m := strings.ToLower(o.message)
	return strings.Contains(m, "thought signature") || strings.Contains(m, "thought_signature")
}
