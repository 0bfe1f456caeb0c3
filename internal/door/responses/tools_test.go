package responses

import (
	"encoding/json"
	"strings"
	"testing"
)

// What Codex CLI sends when it is pointed at a Detour route (see
// e2e/testdata/clients): function tools, a namespace tool, web_search.
const codexTools = `{"model":"route","stream":true,"store":false,"include":["reasoning.encrypted_content"],"prompt_cache_key":"s1","client_metadata":{"x":"y"},
"tools":[{"type":"function","name":"exec_command","parameters":{"type":"object"},"strict":false},
{"type":"namespace","name":"multi_agent_v1","description":"sub-agents","tools":[{"type":"function","name":"wait_agent","description":"wait","parameters":{"type":"object"},"strict":false}]},
{"type":"web_search","external_web_access":false}],
"input":[{"type":"message","role":"developer","content":[{"type":"input_text","text":"sys"}]},{"type":"message","role":"user","content":[{"type":"input_text","text":"wait"}]},
{"type":"function_call","id":"fc_1","status":"completed","call_id":"call_1","name":"wait_agent","namespace":"multi_agent_v1","arguments":"{}"},
{"type":"function_call_output","call_id":"call_1","output":"no agent ids"}]}`

func chatOf(t *testing.T, r *Request) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Chat, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// Namespace tools are flattened, web_search dropped, the call in the input
// joined with its namespace; include, prompt_cache_key and client_metadata
// do not travel.
func TestTranslateCodexTools(t *testing.T) {
	r, err := Translate([]byte(codexTools))
	if err != nil {
		t.Fatal(err)
	}
	m := chatOf(t, r)
	var names []string
	for _, tl := range m["tools"].([]any) {
		names = append(names, tl.(map[string]any)["function"].(map[string]any)["name"].(string))
	}
	if strings.Join(names, ",") != "exec_command,multi_agent_v1__wait_agent" {
		t.Errorf("tools: %v", names)
	}
	msgs := m["messages"].([]any)
	call := msgs[2].(map[string]any)["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)
	if call["name"] != "multi_agent_v1__wait_agent" {
		t.Errorf("input call: %v", call)
	}
	for _, k := range []string{"include", "prompt_cache_key", "client_metadata", "store"} {
		if _, ok := m[k]; ok {
			t.Errorf("%s travelled: %s", k, r.Chat)
		}
	}
}

// A call to a flattened tool comes back with its namespace, whole and streamed.
func TestNamespaceCallMapsBack(t *testing.T) {
	r, err := Translate([]byte(codexTools))
	if err != nil {
		t.Fatal(err)
	}
	completion := `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,
"tool_calls":[{"id":"call_2","type":"function","function":{"name":"multi_agent_v1__wait_agent","arguments":"{\"timeout_ms\":10}"}},{"id":"call_3","type":"function","function":{"name":"exec_command","arguments":"{}"}}]}}]}`
	b, err := FromCompletion([]byte(completion), &r.Echo, 1)
	if err != nil {
		t.Fatal(err)
	}
	resp := decodeResponse(t, b)
	c0, c1 := resp.Output[0].AsFunctionCall(), resp.Output[1].AsFunctionCall()
	if c0.Name != "wait_agent" || c0.Namespace != "multi_agent_v1" || c1.Name != "exec_command" || c1.Namespace != "" {
		t.Errorf("output: %s", b)
	}

	s := NewStream(&r.Echo, "route", 1)
	var all []byte
	for _, c := range []string{
		`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_2","type":"function","function":{"name":"multi_agent_v1__wait_agent","arguments":""}}]}}]}`,
		`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`,
	} {
		out, err := s.Chunk([]byte(c))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, out...)
	}
	all = append(all, s.End()...)
	frames := parseFrames(t, all)
	checkSequence(t, frames)
	acc := accumulate(t, frames)
	if fc := acc.Output[0].AsFunctionCall(); fc.Name != "wait_agent" || fc.Namespace != "multi_agent_v1" {
		t.Errorf("streamed call: %+v", fc)
	}
	for _, f := range frames {
		if f.Event == "response.output_item.added" && !strings.Contains(string(f.Data), `"namespace":"multi_agent_v1"`) {
			t.Errorf("output_item.added without the namespace: %s", f.Data)
		}
	}
}

// An additional_tools item's tools (Codex's catalogue models) join the tool list.
func TestAdditionalToolsAreLifted(t *testing.T) {
	r, err := Translate([]byte(`{"model":"m","tools":[{"type":"function","name":"a"}],"input":[
{"type":"additional_tools","role":"developer","tools":[{"type":"namespace","name":"clock","tools":[{"type":"function","name":"sleep"}]},{"type":"function","name":"b"}]},
{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	m := chatOf(t, r)
	var names []string
	for _, tl := range m["tools"].([]any) {
		names = append(names, tl.(map[string]any)["function"].(map[string]any)["name"].(string))
	}
	if strings.Join(names, ",") != "a,clock__sleep,b" || len(m["messages"].([]any)) != 1 {
		t.Errorf("tools %v, chat %s", names, r.Chat)
	}
}

// web_search alone: no tools at all, not an empty list.
func TestWebSearchIsDropped(t *testing.T) {
	r, err := Translate([]byte(`{"model":"m","input":"hi","tools":[{"type":"web_search"},{"type":"web_search_preview_2025_03_11"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := chatOf(t, r)["tools"]; ok {
		t.Errorf("chat: %s", r.Chat)
	}
}

// Without a tool left to call (tools: [], as the Agents SDK sends, or only
// web_search, which is dropped), tool_choice and parallel_tool_calls are
// not sent: Chat Completions refuses both without tools, where the
// Responses API takes them (docs/doors.md, "Request"). The response object
// still echoes them.
func TestToolChoiceWithoutTools(t *testing.T) {
	for _, tools := range []string{`[]`, `[{"type":"web_search"}]`, `null`} {
		in := `{"model":"m","input":"hi","tools":` + tools + `,"tool_choice":"auto","parallel_tool_calls":false}`
		r, err := Translate([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", tools, err)
		}
		m := chatOf(t, r)
		for _, k := range []string{"tools", "tool_choice", "parallel_tool_calls"} {
			if _, ok := m[k]; ok {
				t.Errorf("tools %s: chat carries %s: %s", tools, k, r.Chat)
			}
		}
		if string(r.Echo.ToolChoice) != `"auto"` || r.Echo.ParallelToolCalls == nil || *r.Echo.ParallelToolCalls {
			t.Errorf("tools %s: echo %s %v", tools, r.Echo.ToolChoice, r.Echo.ParallelToolCalls)
		}
	}
	// With a function tool both still go.
	r, err := Translate([]byte(`{"model":"m","input":"hi","tools":[{"type":"web_search"},{"type":"function","name":"f"}],"tool_choice":"required","parallel_tool_calls":false}`))
	if err != nil {
		t.Fatal(err)
	}
	if m := chatOf(t, r); m["tool_choice"] != "required" || m["parallel_tool_calls"] != false {
		t.Errorf("chat: %s", r.Chat)
	}
}
