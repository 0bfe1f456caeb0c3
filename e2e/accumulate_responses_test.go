package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/responses"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// TestAccResponsesEvents: openai-go's Responses stream over Anthropic and
// Gemini streams, every event switched over by its union, their indexes
// and ids checked against each other and the final response.completed.
func TestAccResponsesEvents(t *testing.T) {
	for _, tc := range chatCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			fs := accFakes(t, tc.dialect, upstreamtest.Step{Events: tc.events})
			g := start(t, accCfg, fs)
			p := say(tc.target, "What's the weather like?")
			p.Tools = []responses.ToolUnionParam{
				responses.ToolParamOfFunction("get_weather", map[string]any{"type": "object", "properties": map[string]any{"location": map[string]any{"type": "string"}}}, false),
				responses.ToolParamOfFunction("get_current_temperature", map[string]any{"type": "object", "properties": map[string]any{"location": map[string]any{"type": "string"}}}, false),
			}
			s := sdk(g).Responses.NewStreaming(context.Background(), p)
			var raw []string
			seq := int64(-1)
			var completed *responses.Response
			type item struct {
				id, typ    string
				text, args strings.Builder
				parts      int
				done       bool
			}
			items := map[int64]*item{}
			var respID string
			var racc responses.ResponseAccumulator
			for s.Next() {
				ev := s.Current()
				raw = append(raw, ev.RawJSON())
				var sev responses.ResponsesServerEventUnion
				if err := json.Unmarshal([]byte(ev.RawJSON()), &sev); err != nil {
					t.Errorf("%s: %v", ev.Type, err)
				} else if err := racc.AddEvent(sev); err != nil {
					t.Errorf("the SDK's ResponseAccumulator refused %s: %v", ev.RawJSON(), err)
				}
				if ev.SequenceNumber != seq+1 {
					t.Errorf("sequence_number %d after %d: %s", ev.SequenceNumber, seq, ev.RawJSON())
				}
				seq = ev.SequenceNumber
				at := func(out int64, id string) *item {
					it := items[out]
					if it == nil || it.id != id {
						t.Errorf("event for output %d item %q, which was not added: %s", out, id, ev.RawJSON())
						return &item{}
					}
					if it.done {
						t.Errorf("event after the item was done: %s", ev.RawJSON())
					}
					return it
				}
				switch v := ev.AsAny().(type) {
				case responses.ResponseCreatedEvent:
					respID = v.Response.ID
				case responses.ResponseInProgressEvent:
					if v.Response.ID != respID {
						t.Errorf("response id %q, created %q", v.Response.ID, respID)
					}
				case responses.ResponseOutputItemAddedEvent:
					if items[v.OutputIndex] != nil || int(v.OutputIndex) != len(items) {
						t.Errorf("output_item.added at %d with %d items: %s", v.OutputIndex, len(items), ev.RawJSON())
					}
					items[v.OutputIndex] = &item{id: v.Item.ID, typ: v.Item.Type}
				case responses.ResponseContentPartAddedEvent:
					it := at(v.OutputIndex, v.ItemID)
					if v.ContentIndex != int64(it.parts) {
						t.Errorf("content_part.added %d, want %d", v.ContentIndex, it.parts)
					}
					it.parts++
				case responses.ResponseTextDeltaEvent:
					it := at(v.OutputIndex, v.ItemID)
					if v.ContentIndex != int64(it.parts-1) {
						t.Errorf("output_text.delta content_index %d", v.ContentIndex)
					}
					it.text.WriteString(v.Delta)
				case responses.ResponseTextDoneEvent:
					it := at(v.OutputIndex, v.ItemID)
					if v.Text != it.text.String() {
						t.Errorf("output_text.done %q, deltas %q", v.Text, it.text.String())
					}
				case responses.ResponseContentPartDoneEvent:
					at(v.OutputIndex, v.ItemID)
				case responses.ResponseFunctionCallArgumentsDeltaEvent:
					at(v.OutputIndex, v.ItemID).args.WriteString(v.Delta)
				case responses.ResponseFunctionCallArgumentsDoneEvent:
					it := at(v.OutputIndex, v.ItemID)
					if v.Arguments != it.args.String() {
						t.Errorf("function_call_arguments.done %q, deltas %q", v.Arguments, it.args.String())
					}
				case responses.ResponseOutputItemDoneEvent:
					it := at(v.OutputIndex, v.Item.ID)
					it.done = true
					switch it.typ {
					case "message":
						if v.Item.Content[0].Text != it.text.String() {
							t.Errorf("message done %q, deltas %q", v.Item.Content[0].Text, it.text.String())
						}
					case "function_call":
						if v.Item.Arguments.OfString != it.args.String() {
							t.Errorf("function_call done %q, deltas %q", v.Item.Arguments.OfString, it.args.String())
						}
					}
				case responses.ResponseCompletedEvent:
					r := v.Response
					completed = &r
				default:
					t.Errorf("an event of no expected variant %T: %s", v, ev.RawJSON())
				}
			}
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			defer func() {
				if t.Failed() {
					t.Logf("events:\n%s", strings.Join(raw, "\n"))
				}
			}()
			if completed == nil {
				t.Fatal("no response.completed")
			}
			for i, it := range items {
				if !it.done {
					t.Errorf("output %d never done", i)
				}
			}
			if rr, err := racc.ReconstructedResponse(); err != nil || rr.OutputText() != tc.content || len(rr.Output) != len(completed.Output) {
				t.Errorf("ResponseAccumulator: %v, %+v", err, rr)
			}
			r := completed
			if r.ID != respID || r.Status != "completed" || r.Model != tc.model || r.OutputText() != tc.content {
				t.Errorf("completed: id %q status %q model %q text %q", r.ID, r.Status, r.Model, r.OutputText())
			}
			var calls []responses.ResponseFunctionToolCall
			for i, o := range r.Output {
				if it := items[int64(i)]; it == nil || it.id != o.ID || it.typ != o.Type {
					t.Errorf("output %d %q %q not as streamed", i, o.ID, o.Type)
				}
				if o.Type == "function_call" {
					calls = append(calls, o.AsFunctionCall())
				}
			}
			if len(calls) != len(tc.calls) {
				t.Fatalf("function calls: %+v", r.Output)
			}
			for i, w := range tc.calls {
				c := calls[i]
				if !sameID(c.CallID, w.id) || c.Name != w.name || !sameJSON(c.Arguments, w.args) || c.Status != "completed" {
					t.Errorf("function call %d: %q %q %q %q", i, c.CallID, c.Name, c.Arguments, c.Status)
				}
			}
			if u := r.Usage; u.InputTokens != tc.usage[0] || u.OutputTokens != tc.usage[1] || u.TotalTokens != tc.usage[2] ||
				u.OutputTokensDetails.ReasoningTokens != tc.reasoning {
				t.Errorf("usage %d/%d/%d reasoning %d, want %v %d", u.InputTokens, u.OutputTokens, u.TotalTokens,
					u.OutputTokensDetails.ReasoningTokens, tc.usage, tc.reasoning)
			}
			wantSteps(t, g.recs.wait(t, 1), tc.target+"/"+tc.dialect+" ok done")
		})
	}
}
