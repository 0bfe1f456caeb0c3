package server

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/dispatch"
	"github.com/detour-llm/detour/internal/door/responses"
)

// A metered stream's last event waits for release (the spend lands first,
// docs/config.md, client_keys): every door, native or translated, writes
// everything before it at once and the end, once, on release.
func TestHeldEndWaitsForRelease(t *testing.T) {
	chat := `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"hi"}}]}`
	for _, c := range []struct {
		name   string
		out    func(*httptest.ResponseRecorder) endOutput
		native bool
		chunks []string
		last   string // the held end's first bytes
	}{
		{"chat", func(w *httptest.ResponseRecorder) endOutput { return newSSEOutput(w, "id1", "r") }, false,
			[]string{chat}, "data: [DONE]"},
		{"messages translated", func(w *httptest.ResponseRecorder) endOutput { return newMessagesOutput(w, "id1", "r") }, false,
			[]string{chat}, "event: content_block_stop"},
		{"messages native", func(w *httptest.ResponseRecorder) endOutput { return newMessagesOutput(w, "id1", "r") }, true,
			[]string{`{"type":"message_start","message":{}}`, `{"type":"message_delta","usage":{"output_tokens":2}}`, `{"type":"message_stop"}`}, "event: message_stop"},
		{"responses translated", func(w *httptest.ResponseRecorder) endOutput {
			return newResponsesOutput(w, "id1", "r", responses.NewStream(nil, "m", 1))
		}, false, []string{chat}, "event: response.output_text.done"},
		{"responses native", func(w *httptest.ResponseRecorder) endOutput {
			return newResponsesOutput(w, "id1", "r", responses.NewStream(nil, "m", 1))
		}, true, []string{`{"type":"response.created","sequence_number":0}`, `{"type":"response.completed","sequence_number":1}`}, "event: response.completed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, o := heldStream(t, c.out, c.native, c.chunks)
			if err := o.End(); err != nil {
				t.Fatal(err)
			}
			before := w.Body.String()
			if before == "" || strings.Contains(before, c.last) || !w.Flushed {
				t.Fatalf("before release (flushed %v):\n%s", w.Flushed, before)
			}
			o.release()
			after := w.Body.String()
			if !strings.HasPrefix(after, before) || !strings.HasPrefix(after[len(before):], c.last) || strings.Count(after, c.last) != 1 {
				t.Fatalf("after release:\n%s", after)
			}
			o.release() // once only
			if w.Body.String() != after {
				t.Errorf("a second release wrote again")
			}
		})
	}
}

// heldStream is a metered stream's Output made by out over a recorder,
// committed (native or not) and fed chunks.
func heldStream(t *testing.T, out func(*httptest.ResponseRecorder) endOutput, native bool, chunks []string) (*httptest.ResponseRecorder, endOutput) {
	t.Helper()
	w := httptest.NewRecorder()
	o := out(w)
	o.holdEnd()
	if err := o.Commit(dispatch.Commit{Target: "t", Provider: "p", Attempts: 1, Native: native}); err != nil {
		t.Fatal(err)
	}
	for _, ch := range chunks {
		if err := o.Chunk([]byte(ch)); err != nil {
			t.Fatal(err)
		}
	}
	return w, o
}

// endOutput is a stream Output that can hold its end.
type endOutput interface {
	dispatch.Output
	endHolder
}
