package responses

import (
	"encoding/json"
	"testing"
)

// TestStreamCallArgumentsDoneNamesFunctionC47c: OpenAI's
// response.function_call_arguments.done event carries the function's
// name ("name: The name of the function that was called", the Responses
// streaming reference; the OpenAPI-generated clients show it:
// https://docs.rs/crate/openai-client-base/0.12.0/source/docs/ResponseFunctionCallArgumentsDoneEvent.md),
// and clients read it there (async-openai declared it required,
// 64bit/async-openai#472). Each call's event names its own function, with
// item_id, output_index and arguments as before.
func TestStreamCallArgumentsDoneNamesFunction(t *testing.T) {
	frames := encode(t, []string{
		`{"id":"c","model":"gpt-4.1","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":"{\"city\":"}}]},"finish_reason":null}]}`,
		`{"id":"c","model":"gpt-4.1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]},"finish_reason":null}]}`,
		`{"id":"c","model":"gpt-4.1","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"get_time","arguments":"{}"}}]},"finish_reason":null}]}`,
		`{"id":"c","model":"gpt-4.1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
	})
	type done struct {
		ItemID      *string `json:"item_id"`
		Name        *string `json:"name"`
		OutputIndex *int    `json:"output_index"`
		Arguments   *string `json:"arguments"`
	}
	var got []done
	items := map[int]string{} // output_index → the item's id
	for _, f := range frames {
		switch f.Event {
		case "response.output_item.added":
			var a struct {
				OutputIndex int `json:"output_index"`
				Item        struct {
					ID string `json:"id"`
				} `json:"item"`
			}
			if err := json.Unmarshal(f.Data, &a); err != nil {
				t.Fatal(err)
			}
			items[a.OutputIndex] = a.Item.ID
		case "response.function_call_arguments.done":
			var d done
			if err := json.Unmarshal(f.Data, &d); err != nil {
				t.Fatal(err)
			}
			got = append(got, d)
		}
	}
	want := []struct {
		name, args string
		index      int
	}{{"get_weather", `{"city":"Paris"}`, 0}, {"get_time", `{}`, 1}}
	if len(got) != len(want) {
		t.Fatalf("%d function_call_arguments.done events, want %d", len(got), len(want))
	}
	for i, w := range want {
		d := got[i]
		if d.Name == nil || *d.Name != w.name {
			t.Errorf("event %d: name %v, want %q", i, strp(d.Name), w.name)
		}
		if d.OutputIndex == nil || *d.OutputIndex != w.index || d.Arguments == nil || *d.Arguments != w.args ||
			d.ItemID == nil || *d.ItemID != items[w.index] || *d.ItemID == "" {
			t.Errorf("event %d: item_id %v output_index %v arguments %v; want %q %d %q",
				i, strp(d.ItemID), d.OutputIndex, strp(d.Arguments), items[w.index], w.index, w.args)
		}
	}
}

func strp(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}
