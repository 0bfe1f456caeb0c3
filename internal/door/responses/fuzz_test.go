package responses

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzTranslate: any body either translates to a canonical chat body that
// is valid JSON or is refused with an *Error; it never panics.
func FuzzTranslate(f *testing.F) {
	for _, c := range translateCases {
		f.Add([]byte(c.in))
	}
	f.Add([]byte(`{"model":"m","input":[{"type":"function_call_output","call_id":"c","output":[{"type":"input_image"}]}]}`))
	f.Add([]byte(`{"input":[null,{"role":"user","content":null}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := Translate(body)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if !json.Valid(r.Chat) {
			t.Fatalf("invalid chat body %q", r.Chat)
		}
	})
}

// FuzzFromCompletion: any upstream-derived body gives a valid response
// object or an error, never a panic.
func FuzzFromCompletion(f *testing.F) {
	f.Add([]byte(chatExample))
	f.Add([]byte(`{"choices":[{"message":{"tool_calls":[{"id":"a","function":{"name":"f","arguments":"{"}}]},"finish_reason":"length"}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		out, err := FromCompletion(body, nil, 1)
		if err == nil && !json.Valid(out) {
			t.Fatalf("invalid response %q", out)
		}
	})
}

// FuzzStream: any sequence of chunks (split on newlines) yields well-formed
// frames with consecutive sequence numbers and one terminal event.
func FuzzStream(f *testing.F) {
	var all bytes.Buffer
	for _, c := range openAIChunks {
		all.WriteString(c + "\n")
	}
	f.Add(all.Bytes(), false)
	f.Add([]byte(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":3,"function":{"arguments":"x"}}]}}]}`+"\n"+`{"choices":[{"index":0,"delta":{"content":"y"}}]}`), true)
	f.Fuzz(func(t *testing.T, chunks []byte, fail bool) {
		s := NewStream(nil, "m", 1)
		var out []byte
		for _, c := range bytes.Split(chunks, []byte("\n")) {
			b, _ := s.Chunk(c)
			out = append(out, b...)
		}
		if fail {
			out = append(out, s.Fail("server_error", "server_error", "cut")...)
		} else {
			out = append(out, s.End()...)
		}
		frames := parseFrames(t, out)
		checkSequence(t, frames)
		// One end: completed, incomplete, or (Fail) the error event alone
		// or right before response.failed.
		terminal := 0
		for i, fr := range frames {
			switch fr.Event {
			case "response.completed", "response.incomplete", "response.failed":
				terminal++
			case "error":
				if i+1 < len(frames) && frames[i+1].Event != "response.failed" {
					t.Fatalf("error event followed by %s", frames[i+1].Event)
				}
				if i+1 == len(frames) {
					terminal++
				}
			}
		}
		if terminal != 1 || len(s.End()) != 0 {
			t.Fatalf("%d terminal events", terminal)
		}
	})
}
