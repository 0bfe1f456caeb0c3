package e2e

import (
	"encoding/json"
	"strings"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Fake upstreams that refuse what each vendor documents refusing, with the
// vendor's own 400, and otherwise answer: a translation that sends a
// request the vendor takes passes, one it refuses fails as it would in
// production. Each rule cites where its wording was seen.

// strictAnthropic answers like Anthropic's Messages API.
func strictAnthropic(answer string) upstreamtest.Script {
	return func(_ int, r upstreamtest.Request) upstreamtest.Step {
		if msg := anthropicRefuses(r.Body); msg != "" {
			b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]string{"type": "invalid_request_error", "message": msg}})
			return upstreamtest.Step{Status: 400, Body: string(b)}
		}
		return upstreamtest.Step{Body: answer}
	}
}

func anthropicRefuses(body []byte) string {
	var req struct {
		Messages *[]struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
		Stop []string `json:"stop_sequences"`
	}
	if json.Unmarshal(body, &req) != nil {
		return "There was an issue with the format of your request"
	}
	switch {
	case req.Messages == nil:
		return "messages: Input should be a valid list"
	case len(*req.Messages) == 0:
		return "messages: at least one message is required"
	}
	for _, s := range req.Stop {
		if strings.TrimSpace(s) == "" { // seen with stop ["\n"] (the compatibility audit)
			return "stop_sequences: each stop sequence must contain non-whitespace"
		}
	}
	for _, m := range *req.Messages {
		for _, b := range m.Content {
			if b.Type == "text" && strings.TrimSpace(b.Text) == "" { // anthropics/claude-code#23440, #59812
				if b.Text == "" {
					return "messages: text content blocks must be non-empty"
				}
				return "messages: text content blocks must contain non-whitespace text"
			}
		}
	}
	return ""
}

// strictGemini answers like Gemini's generateContent.
func strictGemini(answer string) upstreamtest.Script {
	return func(_ int, r upstreamtest.Request) upstreamtest.Step {
		if msg := geminiRefuses(r.Body); msg != "" {
			b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": 400, "message": msg, "status": "INVALID_ARGUMENT"}})
			return upstreamtest.Step{Status: 400, Body: string(b)}
		}
		return upstreamtest.Step{Body: answer}
	}
}

func geminiRefuses(body []byte) string {
	var req struct {
		Contents []struct {
			Parts []map[string]any `json:"parts"`
		} `json:"contents"`
		Tools []struct {
			FunctionDeclarations []json.RawMessage `json:"functionDeclarations"`
		} `json:"tools"`
		ToolConfig json.RawMessage `json:"toolConfig"`
	}
	if json.Unmarshal(body, &req) != nil {
		return "Invalid JSON payload received."
	}
	if len(req.Contents) == 0 {
		return "* GenerateContentRequest.contents: contents is not specified\n"
	}
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if t, ok := p["text"].(string); len(p) == 0 || ok && t == "" { // zuisong/gemini-openai-proxy#83
				return "Unable to submit request because it has an empty text parameter. Add a value to the parameter and try again."
			}
		}
	}
	decls := 0
	for _, t := range req.Tools {
		decls += len(t.FunctionDeclarations)
	}
	if len(req.ToolConfig) > 0 && decls == 0 { // pydantic/pydantic-ai#5791, UKGovernmentBEIS/inspect_ai#2462
		return "Function calling config is set without function_declarations."
	}
	return ""
}

// strictOpenAI answers like OpenAI's Chat Completions.
func strictOpenAI(answer string) upstreamtest.Script {
	return func(_ int, r upstreamtest.Request) upstreamtest.Step {
		var req struct {
			Tools             []json.RawMessage `json:"tools"`
			ToolChoice        json.RawMessage   `json:"tool_choice"`
			ParallelToolCalls json.RawMessage   `json:"parallel_tool_calls"`
		}
		_ = json.Unmarshal(r.Body, &req)
		for _, m := range []struct {
			param string
			set   bool
		}{{"tool_choice", len(req.ToolChoice) > 0}, {"parallel_tool_calls", len(req.ParallelToolCalls) > 0}} {
			if m.set && len(req.Tools) == 0 { // what internal/door/messages/turns.go drops tool_choice for
				b, _ := json.Marshal(map[string]any{"error": map[string]any{"type": "invalid_request_error", "param": m.param, "code": nil,
					"message": "Invalid value for '" + m.param + "': '" + m.param + "' is only allowed when 'tools' are specified."}})
				return upstreamtest.Step{Status: 400, Body: string(b)}
			}
		}
		return upstreamtest.Step{Body: answer}
	}
}
