package e2e

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
)

// An allowed_tools choice (the Chat Completions reference; openai-go
// ChatCompletionAllowedToolChoiceParam: the full tool list stays in the
// request, for the prompt cache, and the model may call only a subset) is
// served by every vendor: OpenAI gets it as sent, Claude is offered the
// listed tools alone, Gemini declares all of them under mode ANY with
// allowedFunctionNames (docs/doors.md, "Chat Completions to Claude and
// Gemini targets"). Before, Claude and Gemini targets refused it, with a
// message that read as if the request were malformed.
func TestAllowedToolsChoiceReachesEveryVendor(t *testing.T) {
	fs := r40gTextFakes(t)
	g := start(t, clientsCfg, fs)
	tool := func(name string) openai.ChatCompletionToolUnionParam {
		return openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{Name: name,
			Parameters: shared.FunctionParameters{"type": "object", "properties": map[string]any{}}})
	}
	for _, rt := range r40gRoutes {
		_, err := sdk(g).Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
			Model:    openai.ChatModel(rt.route),
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is the weather in Paris?")},
			Tools:    []openai.ChatCompletionToolUnionParam{tool("get_weather"), tool("get_time"), tool("send_mail")},
			ToolChoice: openai.ChatCompletionToolChoiceOptionUnionParam{OfAllowedTools: &openai.ChatCompletionAllowedToolChoiceParam{
				AllowedTools: openai.ChatCompletionAllowedToolsParam{Mode: "required",
					Tools: []map[string]any{{"type": "function", "function": map[string]any{"name": "get_weather"}}}}}},
		})
		if err != nil {
			t.Fatalf("%s: %v", rt.route, err)
		}
		reqs := fs[rt.upstream].Requests()
		if len(reqs) == 0 {
			t.Fatalf("%s: no upstream call", rt.route)
		}
		var body struct {
			ToolChoice json.RawMessage `json:"tool_choice"`
			Tools      []struct {
				Name                 string `json:"name"`
				FunctionDeclarations []struct {
					Name string `json:"name"`
				} `json:"functionDeclarations"`
			} `json:"tools"`
			ToolConfig struct {
				FunctionCallingConfig struct {
					Mode                 string   `json:"mode"`
					AllowedFunctionNames []string `json:"allowedFunctionNames"`
				} `json:"functionCallingConfig"`
			} `json:"toolConfig"`
		}
		if err := json.Unmarshal(reqs[len(reqs)-1].Body, &body); err != nil {
			t.Fatal(err)
		}
		switch rt.upstream {
		case "openai":
			if len(body.Tools) != 3 || !sameJSON(string(body.ToolChoice), `{"type":"allowed_tools","allowed_tools":{"mode":"required","tools":[{"type":"function","function":{"name":"get_weather"}}]}}`) {
				t.Errorf("openai: tools %d, tool_choice %s: want the request as sent", len(body.Tools), body.ToolChoice)
			}
		case "anthropic":
			if len(body.Tools) != 1 || body.Tools[0].Name != "get_weather" || !sameJSON(string(body.ToolChoice), `{"type":"any"}`) {
				t.Errorf("claude: tools %+v, tool_choice %s: want get_weather alone, any", body.Tools, body.ToolChoice)
			}
		case "gemini":
			fc := body.ToolConfig.FunctionCallingConfig
			if len(body.Tools) != 1 || len(body.Tools[0].FunctionDeclarations) != 3 || fc.Mode != "ANY" || len(fc.AllowedFunctionNames) != 1 || fc.AllowedFunctionNames[0] != "get_weather" {
				t.Errorf("gemini: tools %+v, config %+v: want three declarations, ANY, [get_weather]", body.Tools, fc)
			}
		}
	}
}
