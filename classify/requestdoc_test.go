package classify

import "testing"

// The rules that read the client's request decode its first JSON value:
// an error answer's Request holds the body Detour sent the upstream after
// it (hostile 58's evidence), and vLLM's tool_choice refusal of an
// allowed_tools choice read bad_request, not a lagging server, once it did
// (e2e TestP54aVLLMAllowedToolsRouteMovesOn).
func TestRequestRulesReadTheClientsBodyFirst(t *testing.T) {
	client := `{"model":"r","tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"auto","tools":[{"type":"function","function":{"name":"a"}}]}},"messages":[{"role":"user","content":"hi"}]}`
	sent := `{"model":"vl","tool_choice":{"type":"allowed_tools"},"messages":[{"role":"user","content":"hi"}]}`
	for _, req := range []string{client, client + "\n" + sent, client + "\nanthropic-beta-value\n" + sent} {
		v := Classify(Response{Status: 400, Body: []byte(vllmToolChoice), Request: []byte(req), Dialect: OpenAI})
		if v.Class != Unknown {
			t.Errorf("with %d bytes of evidence: %s (%s), want unknown (a server whose copy of the API lags)", len(req), v.Class, v.Evidence)
		}
	}
}
