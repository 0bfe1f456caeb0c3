package clienttest

import (
	"encoding/json"
	"net/http"
	"time"
)

// wantsToolCall reports whether a Messages, Responses, Chat Completions
// or Gemini body offers the tool r.Tool names and holds no tool result yet.
func (r *Recorder) wantsToolCall(body []byte) bool {
	if r.Tool == nil {
		return false
	}
	type named struct {
		Name string `json:"name"`
	}
	var in struct {
		Tools []struct {
			Name     string  `json:"name"`
			Tools    []named `json:"tools"` // a namespace's members
			Function named   `json:"function"`
			// Gemini's
			FunctionDeclarations []named `json:"functionDeclarations"`
		} `json:"tools"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Input    json.RawMessage `json:"input"`
		Contents []struct {
			Parts []struct {
				FunctionResponse json.RawMessage `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if json.Unmarshal(body, &in) != nil {
		return false
	}
	offered := false
	for _, t := range in.Tools {
		offered = offered || r.Tool.Namespace == "" && (t.Name == r.Tool.Name || t.Function.Name == r.Tool.Name)
		for _, m := range t.Tools {
			offered = offered || t.Name == r.Tool.Namespace && m.Name == r.Tool.Name
		}
		for _, f := range t.FunctionDeclarations {
			offered = offered || f.Name == r.Tool.Name
		}
	}
	if !offered {
		return false
	}
	for _, m := range in.Messages {
		if m.Role == "tool" {
			return false
		}
		var blocks []struct{ Type string }
		if json.Unmarshal(m.Content, &blocks) == nil {
			for _, b := range blocks {
				if b.Type == "tool_result" {
					return false
				}
			}
		}
	}
	for _, c := range in.Contents {
		for _, p := range c.Parts {
			if len(p.FunctionResponse) > 0 {
				return false
			}
		}
	}
	var items []struct{ Type string }
	if json.Unmarshal(in.Input, &items) == nil {
		for _, it := range items {
			if it.Type == "function_call_output" || it.Type == "custom_tool_call_output" {
				return false
			}
		}
	}
	return true
}

// answerMessagesTool streams (or returns) one tool_use block.
func (r *Recorder) answerMessagesTool(w http.ResponseWriter, model string, stream bool) {
	block := map[string]any{"type": "tool_use", "id": "toolu_clienttest", "name": r.Tool.Name,
		"input": r.Tool.Input}
	msg := map[string]any{"id": "msg_clienttest_tool", "type": "message", "role": "assistant",
		"model": model, "stop_reason": "tool_use", "stop_sequence": nil, "content": []any{block},
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 5}}
	if !stream {
		writeJSON(w, msg)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	start := map[string]any{"id": "msg_clienttest_tool", "type": "message", "role": "assistant",
		"model": model, "stop_reason": nil, "stop_sequence": nil, "content": []any{},
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 1}}
	sse(w, "message_start", map[string]any{"type": "message_start", "message": start})
	sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0,
		"content_block": map[string]any{"type": "tool_use", "id": "toolu_clienttest",
			"name": r.Tool.Name, "input": map[string]any{}}})
	sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
		"delta": map[string]any{"type": "input_json_delta", "partial_json": string(r.Tool.Input)}})
	sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	sse(w, "message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": "tool_use", "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 5}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}

// answerResponsesTool streams (or returns) one function_call item.
func (r *Recorder) answerResponsesTool(w http.ResponseWriter, model string, stream bool) {
	item := map[string]any{"type": "function_call", "id": "fc_clienttest", "call_id": "call_clienttest",
		"name": r.Tool.Name, "arguments": string(r.Tool.Input), "status": "completed"}
	if r.Tool.Namespace != "" {
		item["namespace"] = r.Tool.Namespace
	}
	usage := map[string]any{"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
		"input_tokens_details":  map[string]any{"cached_tokens": 0},
		"output_tokens_details": map[string]any{"reasoning_tokens": 0}}
	resp := func(status string, output []any, u any) map[string]any {
		return map[string]any{"id": "resp_clienttest_tool", "object": "response",
			"created_at": time.Now().Unix(), "status": status, "model": model,
			"output": output, "usage": u, "error": nil, "incomplete_details": nil}
	}
	if !stream {
		writeJSON(w, resp("completed", []any{item}, usage))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	seq := 0
	ev := func(typ string, v map[string]any) {
		v["type"] = typ
		v["sequence_number"] = seq
		seq++
		sse(w, typ, v)
	}
	ev("response.created", map[string]any{"response": resp("in_progress", []any{}, nil)})
	open := map[string]any{"type": "function_call", "id": "fc_clienttest", "call_id": "call_clienttest",
		"name": r.Tool.Name, "arguments": "", "status": "in_progress"}
	if r.Tool.Namespace != "" {
		open["namespace"] = r.Tool.Namespace
	}
	ev("response.output_item.added", map[string]any{"output_index": 0, "item": open})
	ev("response.function_call_arguments.delta", map[string]any{"item_id": "fc_clienttest",
		"output_index": 0, "delta": string(r.Tool.Input)})
	ev("response.function_call_arguments.done", map[string]any{"item_id": "fc_clienttest",
		"output_index": 0, "arguments": string(r.Tool.Input)})
	ev("response.output_item.done", map[string]any{"output_index": 0, "item": item})
	ev("response.completed", map[string]any{"response": resp("completed", []any{item}, usage)})
}
