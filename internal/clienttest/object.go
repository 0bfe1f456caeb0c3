package clienttest

import "encoding/json"

// Object is the structured answer the node scripts' schemas describe
// (e2e/testdata/node/lib.mjs: {city: string, sunny: boolean}), for
// Recorder.Object.
const Object = `{"city":"Paris","sunny":true}`

// toolAnswer is the tool call one answer carries: r.Tool (with r.Parallel
// and r.Preamble), or a structured-output tool the request forces,
// answered with r.Object.
type toolAnswer struct {
	Tool     *ToolCall
	Parallel int
	Preamble string
}

// toolAnswer returns the tool call a model call is to answer with, or nil
// for a text answer: r.Tool when wantsToolCall, else, when r.Object is
// set, a call of the tool the request forces (tool_choice naming one
// tool, as structured output through a tool asks) with r.Object as its
// input.
func (r *Recorder) toolAnswer(body []byte) *toolAnswer {
	if r.wantsToolCall(body) {
		return &toolAnswer{Tool: r.Tool, Parallel: r.Parallel, Preamble: r.Preamble}
	}
	if r.Object == "" {
		return nil
	}
	if name := forcedTool(body); name != "" {
		return &toolAnswer{Tool: &ToolCall{Name: name, Input: json.RawMessage(r.Object)}}
	}
	return nil
}

// reply is the text a model call answers: r.Object when it is set and the
// request asks for JSON output, else r.Reply.
func (r *Recorder) reply(body []byte) string {
	if r.Object != "" && wantsObject(body) {
		return r.Object
	}
	return r.Reply
}

// forcedTool returns the name of the one tool a Messages, Chat
// Completions, Responses or Gemini request forces, or "".
func forcedTool(body []byte) string {
	var in struct {
		ToolChoice json.RawMessage `json:"tool_choice"`
		ToolConfig struct {
			FunctionCallingConfig struct {
				Mode                 string   `json:"mode"`
				AllowedFunctionNames []string `json:"allowedFunctionNames"`
			} `json:"functionCallingConfig"`
		} `json:"toolConfig"`
	}
	if json.Unmarshal(body, &in) != nil {
		return ""
	}
	var tc struct {
		Type     string `json:"type"`
		Name     string `json:"name"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if json.Unmarshal(in.ToolChoice, &tc) == nil {
		switch {
		case tc.Type == "tool" && tc.Name != "": // Messages
			return tc.Name
		case tc.Type == "function" && tc.Function.Name != "": // Chat Completions
			return tc.Function.Name
		case tc.Type == "function" && tc.Name != "": // Responses
			return tc.Name
		}
	}
	if fc := in.ToolConfig.FunctionCallingConfig; fc.Mode == "ANY" && len(fc.AllowedFunctionNames) == 1 {
		return fc.AllowedFunctionNames[0]
	}
	return ""
}

// wantsObject reports whether a request asks for JSON output in its
// dialect's own way: response_format (Chat Completions), text.format
// (Responses), responseMimeType application/json (Gemini),
// output_config.format or output_format (Messages).
func wantsObject(body []byte) bool {
	type format struct {
		Type string `json:"type"`
	}
	var in struct {
		ResponseFormat format `json:"response_format"`
		Text           struct {
			Format format `json:"format"`
		} `json:"text"`
		GenerationConfig struct {
			ResponseMimeType string `json:"responseMimeType"`
		} `json:"generationConfig"`
		OutputConfig struct {
			Format format `json:"format"`
		} `json:"output_config"`
		OutputFormat format `json:"output_format"`
	}
	if json.Unmarshal(body, &in) != nil {
		return false
	}
	json := func(f format) bool { return f.Type == "json_schema" || f.Type == "json_object" }
	return json(in.ResponseFormat) || json(in.Text.Format) || json(in.OutputConfig.Format) ||
		json(in.OutputFormat) || in.GenerationConfig.ResponseMimeType == "application/json"
}
