package classify

import "testing"

// Review rev32j. wholeValue is meant to find the answer's URL as a whole
// string value of the request, "not inside prose". It accepts any "?",
// "#" or "\u…" escape right after the URL as the value's end, so a user's
// message that merely opens with the provider's own URL — a question mark
// after it, or CJK prose that Python's json.dumps (ensure_ascii) writes
// as \uXXXX — counts as "the client's URL". Since 83e21bc that voids the
// relay's status lead too: a relay whose own provider key is revoked
// ("401 Client Error: Unauthorized for url: https://api.openai.com/…",
// the control case of TestClientResourceStatusIsNotTheProviders) is no
// longer auth for a request that asks about that URL.
func TestProviderURLInProseIsNotTheClientsResource_review32j(t *testing.T) {
	const api = "https://api.openai.com/v1/chat/completions"
	body := `{"detail":"401 Client Error: Unauthorized for url: ` + api + `"}`
	msg := func(content string) string {
		return `{"model":"m","messages":[{"role":"user","content":"` + content + `"}]}`
	}
	runHostile(t, []hostileCase{
		{name: "control: nothing of it in the request", status: 500, body: body, req: msg(`hi`), model: "m", want: Auth},
		{name: "question after the URL", status: 500, body: body, req: msg(api + `? why does it return 401 for me`), model: "m", want: Auth},
		{name: "CJK prose, json.dumps escapes", status: 500, body: body, req: msg(api + `\u8fd4\u56de401\u662f\u4ec0\u4e48\u610f\u601d`), model: "m", want: Auth},
	})
}
