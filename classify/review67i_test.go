package classify

import "testing"

// Review 67i: a beta gate reads unknown only where the client asked for
// that beta, named by every word of four letters or more of its name.
// Claude Code asks for context-management-2025-06-27 on every request,
// and one shared word ("context") hid a gate on the long context beta
// (context-1m) that the operator's provider headers add: forbidden, as
// review 67h meant it to be.
func TestReview67iBetaGateNamesTheWholeBeta(t *testing.T) {
	longctx := `{"type":"error","error":{"type":"invalid_request_error","message":"The long context beta is not yet available for this subscription."}}`
	const body = `{"model":"m","max_tokens":5,"messages":[]}`
	claudeCode := "\nclaude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,per-turn-control-2026-07-01\n2023-06-01"
	for _, c := range []struct {
		name, betas string
		want        Class
	}{
		{"Claude Code's betas", claudeCode, Forbidden},
		{"Claude Code's betas and context-1m", claudeCode[:len(claudeCode)-len("\n2023-06-01")] + ",context-1m-2025-08-07\n2023-06-01", Unknown},
		{"context-1m alone", "\ncontext-1m-2025-08-07\n2023-06-01", Unknown},
	} {
		if v := classify56(400, longctx, body+c.betas, false); v.Class != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, v.Class, v.Evidence, c.want)
		}
	}
	code := `{"type":"error","error":{"type":"invalid_request_error","message":"The code execution beta is not enabled for this organization."}}`
	if v := classify56(400, code, body+"\ncode-execution-2025-05-22\n2023-06-01", false); v.Class != Unknown {
		t.Errorf("code execution asked for: %s (%s), want unknown", v.Class, v.Evidence)
	}
}

// A media gate is the request's only where the request holds that kind
// of input: "audio is not enabled" to a request with an image alone is a
// gate on something this request did not ask for (forbidden), not its gap
// (last look 67i's leftover).
func TestRound67MediaGateNamesTheKindSent(t *testing.T) {
	const image = `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}]}`
	const audio = `{"model":"m","messages":[{"role":"user","content":[{"type":"input_audio","input_audio":{"data":"AAAA","format":"wav"}}]}]}`
	const pdf = `{"model":"m","messages":[{"role":"user","content":[{"type":"file","file":{"file_data":"data:application/pdf;base64,AAAA"}}]}]}`
	gate := func(w string) string { return `{"error":{"message":"` + w + ` is not enabled for this organization"}}` }
	for _, c := range []struct {
		name, word, req string
		want            Class
	}{
		{"audio gate, image sent", "audio input", image, Forbidden},
		{"audio gate, audio sent", "audio input", audio, Unknown},
		{"vision gate, audio sent", "vision", audio, Forbidden},
		{"vision gate, image sent", "vision", image, Unknown},
		{"pdf gate, pdf sent", "PDF input", pdf, Unknown},
		{"video gate, pdf sent", "video input", pdf, Forbidden},
		{"multimodal gate, any medium", "Multimodal", audio, Unknown},
	} {
		if v := classify56(403, gate(c.word), c.req, false); v.Class != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, v.Class, v.Evidence, c.want)
		}
	}
}
