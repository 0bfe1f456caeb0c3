package gemini

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// TestReview39iResultsFollowCallsOfMergedAssistantTurns: a client that sends
// two assistant messages in a row (each with its tool calls; Gemini gets them
// as one model content) and then the results in the calls' order relies on
// each call of one function getting its own result. Gemini pairs by name and
// position within the content, so positions must count every call of the
// merged content, not restart at each message (review 39i: the results of
// the second and third calls were swapped).
func TestReview39iResultsFollowCallsOfMergedAssistantTurns(t *testing.T) {
	body := `{"model":"m","messages":[
	 {"role":"user","content":"Weather in Paris, Rome and Oslo?"},
	 {"role":"assistant","tool_calls":[
	  {"id":"a","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},
	  {"id":"b","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Rome\"}"}}]},
	 {"role":"assistant","tool_calls":[
	  {"id":"c","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Oslo\"}"}}]},
	 {"role":"tool","tool_call_id":"a","content":"{\"paris\":14}"},
	 {"role":"tool","tool_call_id":"b","content":"{\"rome\":21}"},
	 {"role":"tool","tool_call_id":"c","content":"{\"oslo\":3}"}]}`
	out, err := Translate(adaptertest.ClientRequest(t, []byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Contents []struct {
			Role  string
			Parts []struct {
				FunctionCall *struct {
					Name string
					Args json.RawMessage
				} `json:"functionCall"`
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
	var calls, results []string
	for _, p := range g.Contents[1].Parts {
		if p.FunctionCall != nil {
			calls = append(calls, string(p.FunctionCall.Args))
		}
	}
	for _, p := range g.Contents[2].Parts {
		results = append(results, string(p.FunctionResponse.Response))
	}
	if got, want := strings.Join(calls, " "), `{"city":"Paris"} {"city":"Rome"} {"city":"Oslo"}`; got != want {
		t.Fatalf("calls %s, want %s", got, want)
	}
	if got, want := strings.Join(results, " "), `{"paris":14} {"rome":21} {"oslo":3}`; got != want {
		t.Errorf("results %s, want %s (the calls' order)", got, want)
	}
}
