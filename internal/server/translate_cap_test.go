package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// A translation that would cost more than any one may (40 times
// max_body_bytes, or the allowance if larger) is never made: at a door the
// client gets 413 translation_too_costly at once, at an attempt the walk
// moves on to a target that takes the client's body. Before, a body of
// list elements that are not objects ("messages":[0,0,…]) was decoded
// whole as the allowance's overdraft, allocating hundreds of times its
// size (review 36b); a long text of the largest size still translates.
func TestATranslationPastTheCapIsNeverMade(t *testing.T) {
	url, _, an, p, _ := overdraftGateway(t) // max_body 1 MiB, allowance 4 MiB: the cap is 40 MiB
	post := func(path, body string) (int, string) {
		t.Helper()
		resp, err := http.Post(url+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	// The Messages door translates up front for a route that begins with
	// a target needing the translation (b, OpenAI).
	st, body := post("/v1/messages", `{"model":"b","max_tokens":8,"messages":[{"role":"user","content":[`+tooCostly+`]}]}`)
	if st != http.StatusRequestEntityTooLarge || !strings.Contains(body, `"type":"request_too_large"`) || !strings.Contains(body, "translating this request would need") {
		t.Errorf("a Messages body of 150,000 numbers: %d %.300s, want 413 request_too_large (Anthropic's envelope)", st, body)
	}
	// At an attempt: the Anthropic target is skipped, the OpenAI one
	// takes the client's body as it is (and answers; its input is its own
	// to judge).
	calls := an.Calls()
	chat := `{"model":"r","messages":[{"role":"user","content":"a"},{"role":"assistant","content":null,"tool_calls":[` + tooCostly + `]}]}`
	if st, body := post("/v1/chat/completions", chat); st != http.StatusOK {
		t.Errorf("a chat body of 150,000 numbers on a route with an OpenAI target: %d %.300s", st, body)
	}
	if an.Calls() != calls || p.Calls() == 0 {
		t.Errorf("the Anthropic upstream was called (%d → %d) or the OpenAI one was not (%d)", calls, an.Calls(), p.Calls())
	}
	// Only a translating target: 413 with its code.
	only := strings.Replace(chat, `"model":"r"`, `"model":"claude"`, 1)
	if st, body := post("/v1/chat/completions", only); st != http.StatusRequestEntityTooLarge || !strings.Contains(body, "translation_too_costly") {
		t.Errorf("the same body to an Anthropic target only: %d %.300s, want 413 translation_too_costly", st, body)
	}
	// A long text of nearly the largest size still translates, twice over.
	long := `{"model":"claude","max_tokens":8,"messages":[{"role":"user","content":"` + strings.Repeat("a", 1000_000) + `"}]}`
	if st, body := post("/v1/messages", long); st != http.StatusOK {
		t.Errorf("a 1 MB text: %d %.300s", st, body)
	}
}
