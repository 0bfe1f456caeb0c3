package responses

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// review51b: the output_text.done event is now written by hand (stream_close.go);
// its comment says "as json.Marshal would write the event's struct". This
// feeds text with the characters json.Marshal escapes specially (HTML's <>&,
// U+2028/U+2029, control bytes, quotes, backslashes, non-ASCII) and compares
// the event's data with json.Marshal of the same struct decoded from it.
func TestR51bHandWrittenTextDoneIsWhatMarshalWrites(t *testing.T) {
	s := NewStream(nil, "m", 1)
	text := "a<b>&c\u2028d\u2029e\"f\\g\x01\x1f\th\ni\u00e9\U0001F600 </script>"
	piece, _ := json.Marshal(text)
	var out strings.Builder
	for _, c := range []string{
		`{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":` + string(piece) + `}}]}`,
		`{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
	} {
		b, err := s.Chunk([]byte(c))
		if err != nil {
			t.Fatal(err)
		}
		out.Write(b)
	}
	out.Write(s.End())
	found := false
	for _, l := range strings.Split(out.String(), "\n") {
		data, ok := strings.CutPrefix(l, "data: ")
		if !ok || !strings.Contains(data, `"response.output_text.done"`) {
			continue
		}
		found = true
		var ev struct {
			Type           string `json:"type"`
			SequenceNumber int    `json:"sequence_number"`
			ItemID         string `json:"item_id"`
			OutputIndex    int    `json:"output_index"`
			ContentIndex   int    `json:"content_index"`
			Text           string `json:"text"`
			Logprobs       []any  `json:"logprobs"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("done event does not parse: %v\n%s", err, data)
		}
		if ev.Text != text {
			t.Errorf("text %q, want %q", ev.Text, text)
		}
		want, _ := json.Marshal(struct {
			ItemID       string `json:"item_id"`
			OutputIndex  int    `json:"output_index"`
			ContentIndex int    `json:"content_index"`
			Text         string `json:"text"`
			Logprobs     []any  `json:"logprobs"`
		}{ev.ItemID, ev.OutputIndex, ev.ContentIndex, ev.Text, []any{}})
		inner := bytes.TrimPrefix(want, []byte("{"))
		if !strings.Contains(data, string(inner)) {
			t.Errorf("done event's members differ from json.Marshal's:\n got %s\nwant …%s", data, inner)
		}
	}
	if !found {
		t.Fatalf("no output_text.done in\n%s", out.String())
	}
}

// review51b: End marks only the item at index len(Output)-1 incomplete
// (s.cut). A call named before the text started and still waiting for its
// arguments stays open under the message (review 48b's shape); when its
// arguments come after the text and the limit cuts them, the item cut is
// the call (index 0), not the message (index 1, the last in Output). The
// call closes "completed" with arguments that are not JSON — what probe
// 51b fixed (clients ran broken arguments).
func TestR51bCutCallBeforeAnOpenMessageClosesCompleted(t *testing.T) {
	s := NewStream(nil, "m", 1)
	var out strings.Builder
	for _, c := range []string{
		`{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}}]}}]}`,
		`{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"Checking."}}]}`,
		`{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":\"Pa"}}]}}]}`,
		`{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"length"}]}`,
	} {
		b, err := s.Chunk([]byte(c))
		if err != nil {
			t.Fatal(err)
		}
		out.Write(b)
	}
	out.Write(s.End())
	for _, l := range strings.Split(out.String(), "\n") {
		data, ok := strings.CutPrefix(l, "data: ")
		if !ok || !strings.Contains(data, `"response.output_item.done"`) {
			continue
		}
		var ev struct {
			Item struct {
				Type, Status, Arguments string
			} `json:"item"`
		}
		json.Unmarshal([]byte(data), &ev)
		if ev.Item.Type == "function_call" && !json.Valid([]byte(ev.Item.Arguments)) && ev.Item.Status != "incomplete" {
			t.Errorf("a call cut mid-arguments (%q) closed %q; want incomplete\n%s", ev.Item.Arguments, ev.Item.Status, data)
		}
	}
}
