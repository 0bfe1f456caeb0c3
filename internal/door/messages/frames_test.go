package messages

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// sseFrame is one parsed "event: X\ndata: Y" frame.
type sseFrame struct {
	Event string
	Data  json.RawMessage
}

// parseFrames splits an SSE body into frames; ": " comment lines and
// frames without data are skipped.
func parseFrames(t testing.TB, body []byte) []sseFrame {
	t.Helper()
	var out []sseFrame
	for _, raw := range strings.Split(strings.ReplaceAll(string(body), "\r\n", "\n"), "\n\n") {
		var f sseFrame
		for _, line := range strings.Split(raw, "\n") {
			switch {
			case strings.HasPrefix(line, "event: "):
				f.Event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				f.Data = json.RawMessage(strings.TrimPrefix(line, "data: "))
			}
		}
		if f.Data == nil {
			continue
		}
		if !json.Valid(f.Data) {
			t.Fatalf("frame data is not JSON: %q", raw)
		}
		out = append(out, f)
	}
	return out
}

// accumulated is a Messages stream folded into the final message, as
// Anthropic's SDKs fold it (Message.Accumulate in anthropic-sdk-go).
type accumulated struct {
	ID, Model    string
	Blocks       []accBlock
	StopReason   string
	StopSequence *string
	InputTokens  int
	OutputTokens int
	CacheRead    int
	Error        string
}

type accBlock struct {
	Type, Text, Thinking, ID, Name string
	JSON                           string
}

// frameEvent is the union of the stream events accumulate reads.
type frameEvent struct {
	Type    string `json:"type"`
	Message struct {
		ID    string `json:"id"`
		Model string `json:"model"`
		Usage Usage  `json:"usage"`
	} `json:"message"`
	Index        int `json:"index"`
	ContentBlock struct {
		Type, Text, Thinking, ID, Name string
	} `json:"content_block"`
	Delta struct {
		Type         string  `json:"type"`
		Text         string  `json:"text"`
		Thinking     string  `json:"thinking"`
		PartialJSON  string  `json:"partial_json"`
		StopReason   string  `json:"stop_reason"`
		StopSequence *string `json:"stop_sequence"`
	} `json:"delta"`
	Usage *Usage `json:"usage"`
	Error *struct {
		Type string `json:"type"`
	} `json:"error"`
}

// accumulate folds frames and checks the order Anthropic's stream keeps:
// message_start first; every block started before its deltas, indexes
// consecutive, stopped once; message_delta then message_stop last (or an
// error frame last); each frame's event name equal to its data's type.
func accumulate(t testing.TB, frames []sseFrame) accumulated {
	t.Helper()
	var a accumulated
	open := map[int]bool{}
	stopped := map[int]bool{}
	for i, f := range frames {
		var ev frameEvent
		if err := json.Unmarshal(f.Data, &ev); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if ev.Type != f.Event {
			t.Errorf("frame %d: event %q carries type %q", i, f.Event, ev.Type)
		}
		if i == 0 && ev.Type != "message_start" && ev.Type != "error" {
			t.Errorf("first frame is %s", ev.Type)
		}
		switch ev.Type {
		case "message_start":
			if i != 0 {
				t.Errorf("message_start at frame %d", i)
			}
			a.ID, a.Model, a.InputTokens = ev.Message.ID, ev.Message.Model, ev.Message.Usage.InputTokens
		case "content_block_start":
			if ev.Index != len(a.Blocks) {
				t.Errorf("frame %d: block %d started, want %d", i, ev.Index, len(a.Blocks))
			}
			for j := range open {
				if open[j] && ev.Index != j {
					t.Errorf("frame %d: block %d started while %d is open", i, ev.Index, j)
				}
			}
			cb := ev.ContentBlock
			a.Blocks = append(a.Blocks, accBlock{Type: cb.Type, Text: cb.Text, Thinking: cb.Thinking, ID: cb.ID, Name: cb.Name})
			open[ev.Index] = true
		case "content_block_delta":
			if ev.Index >= len(a.Blocks) {
				t.Fatalf("frame %d: delta for block %d never started", i, ev.Index)
			}
			b := &a.Blocks[ev.Index]
			switch ev.Delta.Type {
			case "text_delta":
				b.Text += ev.Delta.Text
			case "thinking_delta":
				b.Thinking += ev.Delta.Thinking
			case "input_json_delta":
				b.JSON += ev.Delta.PartialJSON
			}
		case "content_block_stop":
			if !open[ev.Index] || stopped[ev.Index] {
				t.Errorf("frame %d: stop for block %d not open", i, ev.Index)
			}
			open[ev.Index], stopped[ev.Index] = false, true
		case "message_delta":
			a.StopReason, a.StopSequence = ev.Delta.StopReason, ev.Delta.StopSequence
			if u := ev.Usage; u != nil {
				a.OutputTokens = u.OutputTokens
				if u.InputTokens > 0 {
					a.InputTokens = u.InputTokens
				}
				a.CacheRead = u.CacheReadInputTokens
			}
		case "message_stop":
			if i != len(frames)-1 {
				t.Errorf("message_stop at frame %d of %d", i, len(frames))
			}
		case "error":
			if i != len(frames)-1 {
				t.Errorf("error at frame %d of %d", i, len(frames))
			}
			a.Error = ev.Error.Type
		}
	}
	for j, o := range open {
		if o {
			t.Errorf("block %d never stopped", j)
		}
	}
	return a
}

// compactJSON normalises accumulated tool input for comparison.
func compactJSON(t testing.TB, s string) string {
	t.Helper()
	if s == "" {
		return "{}"
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatalf("tool input %q: %v", s, err)
	}
	return b.String()
}
