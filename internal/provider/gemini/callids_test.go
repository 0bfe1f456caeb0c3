package gemini

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// TestRepeatedFunctionCallIDsAreMadeUnique: a client pairs each tool result
// with its call by id, so two calls of one answer must never share one.
// Gemini's own id is kept the first time it is seen; a repeat (in the same
// answer, or a later chunk of the same stream) gets a generated id.
func TestRepeatedFunctionCallIDsAreMadeUnique(t *testing.T) {
	call := func(id, city string) string {
		return `{"functionCall":{"id":"` + id + `","name":"get_weather","args":{"city":"` + city + `"}}}`
	}
	whole := `{"candidates":[{"content":{"role":"model","parts":[` + call("fc-1", "Paris") + `,` + call("fc-1", "Rome") + `,` + call("fc-2", "Oslo") + `]},"finishReason":"STOP"}]}`
	out, err := Adapter{}.Response([]byte(whole), testEP)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Choices []struct {
			Message struct {
				ToolCalls []struct{ ID string } `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(out, &c); err != nil || len(c.Choices) != 1 {
		t.Fatalf("%v: %s", err, out)
	}
	var ids []string
	for _, tc := range c.Choices[0].Message.ToolCalls {
		ids = append(ids, tc.ID)
	}
	if len(ids) != 3 || ids[0] != "fc-1" || ids[2] != "fc-2" || ids[1] == "fc-1" || ids[1] == "" || ids[1] == "fc-2" {
		t.Errorf("whole answer's tool call ids = %q, want fc-1, a generated one, fc-2", ids)
	}

	in := `data: {"candidates":[{"content":{"role":"model","parts":[` + call("fc-1", "Paris") + `]},"index":0}]}` + "\n\n" +
		`data: {"candidates":[{"content":{"role":"model","parts":[` + call("fc-1", "Rome") + `]},"finishReason":"STOP","index":0}]}` + "\n\n"
	var all []byte
	for _, ev := range adaptertest.Events(t, Adapter{}.Stream(strings.NewReader(in), testEP)) {
		all = append(all, bytes.Join(ev.Chunks, []byte("\n"))...)
	}
	if n := bytes.Count(all, []byte(`"id":"fc-1"`)); n != 1 {
		t.Errorf("stream carries id fc-1 %d times, want once:\n%s", n, all)
	}
	if !bytes.Contains(all, []byte(`"id":"call_`)) {
		t.Errorf("the repeated call got no generated id:\n%s", all)
	}
}

// TestToolResultsFollowTheirCallsOrder: Gemini pairs a turn's
// functionResponse parts with the model's functionCall parts by name and
// position, so results sent in another order than the calls (allowed by
// OpenAI and Anthropic, which pair by id) go in the calls' order, or two
// calls to one function would get each other's results.
func TestToolResultsFollowTheirCallsOrder(t *testing.T) {
	body := `{"model":"m","messages":[
	 {"role":"user","content":"Weather in Paris and Rome, and the time?"},
	 {"role":"assistant","tool_calls":[
	  {"id":"a","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},
	  {"id":"b","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Rome\"}"}},
	  {"id":"c","type":"function","function":{"name":"get_time","arguments":"{}"}}]},
	 {"role":"tool","tool_call_id":"c","content":"{\"time\":\"12:00\"}"},
	 {"role":"tool","tool_call_id":"b","content":"{\"rome\":21}"},
	 {"role":"tool","tool_call_id":"a","content":"{\"paris\":14}"},
	 {"role":"user","content":"Thanks."}]}`
	out, err := Translate(adaptertest.ClientRequest(t, []byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Contents []struct {
			Role  string
			Parts []struct {
				Text             string
				FunctionResponse *struct {
					Name     string
					Response json.RawMessage
				} `json:"functionResponse"`
			}
		}
	}
	if err := json.Unmarshal(out, &g); err != nil || len(g.Contents) != 3 {
		t.Fatalf("%v: %s", err, out)
	}
	var got []string
	for _, p := range g.Contents[2].Parts {
		if p.FunctionResponse != nil {
			got = append(got, p.FunctionResponse.Name+string(p.FunctionResponse.Response))
		} else {
			got = append(got, "text:"+p.Text)
		}
	}
	want := []string{`get_weather{"paris":14}`, `get_weather{"rome":21}`, `get_time{"time":"12:00"}`, "text:Thanks."}
	if strings.Join(got, " | ") != strings.Join(want, " | ") {
		t.Errorf("last turn's parts:\n got %q\nwant %q", got, want)
	}

	// Results already in order stay as they are; a result naming a
	// function but no call of the history goes where it was sent.
	body = `{"model":"m","messages":[
	 {"role":"user","content":"go"},
	 {"role":"assistant","tool_calls":[
	  {"id":"a","type":"function","function":{"name":"f","arguments":"{}"}},
	  {"id":"b","type":"function","function":{"name":"g","arguments":"{}"}}]},
	 {"role":"tool","tool_call_id":"a","content":"1"},
	 {"role":"tool","tool_call_id":"zz","name":"h","content":"3"},
	 {"role":"tool","tool_call_id":"b","content":"2"}]}`
	out, err = Translate(&provider.Request{Body: []byte(body)})
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &g); err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	for _, p := range g.Contents[len(g.Contents)-1].Parts {
		got = append(got, p.FunctionResponse.Name)
	}
	if strings.Join(got, ",") != "f,h,g" {
		t.Errorf("results in order with an unpaired one: got %v, want f,h,g", got)
	}
}
