package server

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/dispatch"
	"github.com/detour-llm/detour/internal/door/responses"
	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/anthropic"
	"github.com/detour-llm/detour/internal/provider/openai"
)

// The relay ends a native stream on the event the provider's reader calls
// Done (encoding/json: keys matched case-insensitively, the last repeated
// member kept), while an Output frames each event under its exact "type".
// An event the two read differently may be held as the end while the
// relay goes on: what follows it writes it first, in the upstream's order,
// so a held event is only ever the stream's last and never comes after an
// error event (with the Responses error event's sequence_number after it).
func TestHeldEndNeverFollowsAnErrorEvent(t *testing.T) {
	const stop = `{"type":"message_stop","Type":"ping"}`
	const done = `{"type":"response.completed","Type":"response.output_text.delta","sequence_number":1,"delta":"x"}`
	// What the relay reads: neither is the end of its stream.
	in := "event: message_stop\ndata: " + stop + "\n\n"
	ev, err := anthropic.Adapter{}.NativeStream(provider.APIMessages, strings.NewReader(in), provider.Endpoint{Model: "m"}).Next()
	if err != nil || ev.Done {
		t.Fatalf("anthropic reader: %+v %v", ev, err)
	}
	in = "event: response.completed\ndata: " + done + "\n\n"
	ev, err = openai.Adapter{}.NativeStream("responses", strings.NewReader(in), provider.Endpoint{Model: "m"}).Next()
	if err != nil || ev.Done {
		t.Fatalf("responses reader: %+v %v", ev, err)
	}
	for _, c := range []struct {
		name   string
		out    func(*httptest.ResponseRecorder) endOutput
		chunks []string
		after  string // the event that follows the odd one
		failed string // the error event's first bytes
	}{
		{"messages", func(w *httptest.ResponseRecorder) endOutput { return newMessagesOutput(w, "id1", "r") },
			[]string{`{"type":"message_start","message":{}}`, stop, `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"more"}}`},
			"event: content_block_delta", "event: error\ndata: "},
		{"responses", func(w *httptest.ResponseRecorder) endOutput {
			return newResponsesOutput(w, "id1", "r", responses.NewStream(nil, "m", 1))
		}, []string{`{"type":"response.created","sequence_number":0}`, done, `{"type":"response.output_text.delta","sequence_number":2,"delta":"y"}`},
			"event: response.output_text.delta", `event: error` + "\n" + `data: {"type":"error","sequence_number":3,`},
	} {
		odd := c.chunks[1]
		t.Run(c.name, func(t *testing.T) {
			w, o := heldStream(t, c.out, true, c.chunks)
			if err := o.Fail(&dispatch.Failure{Status: 502, Class: classify.ServerError, Message: "cut"}); err != nil {
				t.Fatal(err)
			}
			o.release() // as Server.do does after the spend
			got := w.Body.String()
			i, j, e := strings.Index(got, odd), strings.Index(got, c.after), strings.Index(got, c.failed)
			if i < 0 || j < i || e < j || strings.Count(got, odd) != 1 || !strings.HasSuffix(got, "\n\n") || strings.Index(got[e+1:], "event: ") >= 0 {
				t.Errorf("not in the upstream's order, the error event last:\n%s", got)
			}
		})
	}
}

// The same odd events, the stream then ending normally: they go out in
// their place, and the stream's real end is what waits for release.
func TestHeldEndIsTheLastEventAfterAnOddOne(t *testing.T) {
	for _, c := range []struct {
		name   string
		out    func(*httptest.ResponseRecorder) endOutput
		chunks []string
		last   string
	}{
		{"messages", func(w *httptest.ResponseRecorder) endOutput { return newMessagesOutput(w, "id1", "r") },
			[]string{`{"type":"message_start","message":{}}`, `{"type":"message_stop","Type":"ping"}`, `{"type":"message_delta","delta":{"stop_reason":"end_turn"}}`},
			"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"}, // the gateway's own: the upstream's went on
		{"responses", func(w *httptest.ResponseRecorder) endOutput {
			return newResponsesOutput(w, "id1", "r", responses.NewStream(nil, "m", 1))
		}, []string{`{"type":"response.created","sequence_number":0}`, `{"type":"response.completed","Type":"x","sequence_number":1}`, `{"type":"response.completed","sequence_number":2}`},
			"event: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":2}\n\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, o := heldStream(t, c.out, true, c.chunks)
			if err := o.End(); err != nil {
				t.Fatal(err)
			}
			before := w.Body.String()
			for _, ch := range c.chunks {
				if !strings.Contains(before+c.last, ch) {
					t.Errorf("%s is missing:\n%s", ch, before)
				}
			}
			if strings.Index(before, c.chunks[1]) > strings.Index(before, c.chunks[2]) && !strings.Contains(c.last, c.chunks[2]) {
				t.Errorf("out of order:\n%s", before)
			}
			o.release()
			if after := w.Body.String(); after != before+c.last {
				t.Errorf("before release:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

// The reverse: an event the provider's reader ends the stream on, however
// its type is spelled (a case-variant key, an escaped name, a null after
// it), is held like the plain one: the client has the end of its stream
// only after its spend has landed.
func TestRelaysEndIsHeldHoweverTypeIsSpelled(t *testing.T) {
	const usage = `,"response":{"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}`
	for _, c := range []struct {
		name, done string
	}{
		{name: "responses Type", done: `{"Type":"response.completed","sequence_number":1` + usage + `}`},
		{name: "responses escaped", done: `{"type":"response\u002ecompleted","sequence_number":1` + usage + `}`},
		{name: "responses null", done: `{"TYPE":"response.incomplete","type":null,"sequence_number":1` + usage + `}`},
		{name: "messages Type", done: `{"Type":"message_stop"}`},
		{name: "messages escaped", done: `{"type":"message\u005fstop"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := "data: " + c.done + "\n\n"
			var st provider.Stream
			var o endOutput
			w := httptest.NewRecorder()
			first := `{"type":"response.created","sequence_number":0}`
			if strings.HasPrefix(c.name, "messages") {
				st = anthropic.Adapter{}.NativeStream(provider.APIMessages, strings.NewReader(in), provider.Endpoint{Model: "m"})
				o, first = newMessagesOutput(w, "id1", "r"), `{"type":"message_start","message":{}}`
			} else {
				st = openai.Adapter{}.NativeStream("responses", strings.NewReader(in), provider.Endpoint{Model: "m"})
				o = newResponsesOutput(w, "id1", "r", responses.NewStream(nil, "m", 1))
			}
			if ev, err := st.Next(); err != nil || !ev.Done {
				t.Fatalf("the reader does not end on it: %+v %v", ev, err)
			}
			o.holdEnd()
			if err := o.Commit(dispatch.Commit{Target: "t", Provider: "p", Attempts: 1, Native: true}); err != nil {
				t.Fatal(err)
			}
			_ = o.Chunk([]byte(first))
			_ = o.Chunk([]byte(c.done))
			_ = o.End()
			before := w.Body.String()
			if !strings.Contains(before, first) || strings.Contains(before, c.done) || strings.Contains(before, "stop") { // nor the gateway's own message_stop
				t.Errorf("the stream's last event left before release:\n%s", before)
			}
			o.release()
			if after := w.Body.String(); !strings.HasPrefix(after, before) || !strings.Contains(after[len(before):], c.done) {
				t.Errorf("after release:\n%s", after)
			}
		})
	}
}

// An Output reads an event's type as encoding/json does (what the
// provider's readers decode it with) wherever the two could differ.
func TestRelayIsReadsTypeAsEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`{"type":"response.completed"}`, `{"Type":"response.completed"}`, `{"tYpE":"response.completed","x":1}`,
		`{"type":"response.completed","Type":"ping"}`, `{"Type":"ping","type":"response.completed"}`,
		`{"type":"response.completed","type":null}`, `{"\u0054ype":"response.completed"}`, `{"ty\u0070e":"response.completed"}`,
		`{"type":"response\u002ecompleted"}`, `{"type":"response.completed ","sequence_number":3}`, `{"types":"response.completed"}`,
		`{"type":"ping","message":{"type":"response.completed"}}`, `{"type_":"response.completed"}`, `{"\u0078":1,"type":"response.completed"}`, `[{"type":"response.completed"}]`,
	} {
		var e struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal([]byte(in), &e)
		h := readEvent([]byte(in))
		if got, want := h.relayIs([]byte(in), "response.completed"), e.Type == "response.completed"; got != want {
			t.Errorf("%s: relayIs %v, encoding/json reads %q", in, got, e.Type)
		}
	}
}

// An end the relay reads as message_stop though its type is written with
// an escape goes out as the stream's one message_stop, on its event line
// and in its data alike: the gateway adds none of its own.
func TestEscapedStopIsTheOnlyStop(t *testing.T) {
	for _, hold := range []bool{false, true} {
		w := httptest.NewRecorder()
		o := newMessagesOutput(w, "id1", "r")
		if hold {
			o.holdEnd()
		}
		if err := o.Commit(dispatch.Commit{Target: "t", Provider: "p", Attempts: 1, Native: true}); err != nil {
			t.Fatal(err)
		}
		for _, ch := range []string{`{"type":"message_start","message":{}}`, `{"type":"message\u005fstop"}`} {
			if err := o.Chunk([]byte(ch)); err != nil {
				t.Fatal(err)
			}
		}
		if err := o.End(); err != nil {
			t.Fatal(err)
		}
		o.release()
		lines, stops := strings.Split(w.Body.String(), "\n"), 0
		for _, line := range lines {
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				var e struct {
					Type string `json:"type"`
				}
				if json.Unmarshal([]byte(data), &e) == nil && e.Type == "message_stop" {
					stops++
				}
			}
		}
		if stops != 1 || strings.Count(w.Body.String(), "event: message_stop\n") != 1 {
			t.Errorf("hold %v: %d message_stop in the data, event lines:\n%s", hold, stops, w.Body.String())
		}
	}
}
