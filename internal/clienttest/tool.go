package clienttest

import (
	"encoding/json"
	"net/http"
	"strconv"
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

// callIDs are the ids of the calls a tool answer carries: prefix, then
// prefix_2, prefix_3… when r.Parallel asks for more than one.
func (a *toolAnswer) callIDs(prefix string) []string {
	ids := []string{prefix}
	for i := 2; i <= a.Parallel; i++ {
		ids = append(ids, prefix+"_"+strconv.Itoa(i))
	}
	return ids
}

// answerMessagesTool streams (or returns) one tool_use block per call.
func (r *Recorder) answerMessagesTool(w http.ResponseWriter, model string, stream bool, a *toolAnswer) {
	ids := a.callIDs("toolu_clienttest")
	var blocks []any
	if a.Preamble != "" {
		blocks = append(blocks, map[string]any{"type": "text", "text": a.Preamble})
	}
	for _, id := range ids {
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": id, "name": a.Tool.Name, "input": a.Tool.Input})
	}
	msg := map[string]any{"id": "msg_clienttest_tool", "type": "message", "role": "assistant",
		"model": model, "stop_reason": "tool_use", "stop_sequence": nil, "content": blocks,
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
	first := 0
	if a.Preamble != "" {
		first = 1
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": a.Preamble}})
		sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	}
	for i, id := range ids {
		i += first
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i,
			"content_block": map[string]any{"type": "tool_use", "id": id,
				"name": a.Tool.Name, "input": map[string]any{}}})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(a.Tool.Input)}})
		sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	sse(w, "message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": "tool_use", "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 5}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}

// answerResponsesTool streams (or returns) one function_call item per call.
func (r *Recorder) answerResponsesTool(w http.ResponseWriter, model string, stream bool, a *toolAnswer) {
	item := func(n int, status, args string) map[string]any {
		suffix := a.callIDs("")[n]
		it := map[string]any{"type": "function_call", "id": "fc_clienttest" + suffix, "call_id": "call_clienttest" + suffix,
			"name": a.Tool.Name, "arguments": args, "status": status}
		if a.Tool.Namespace != "" {
			it["namespace"] = a.Tool.Namespace
		}
		return it
	}
	var done, pre []any // pre: the preamble's message item, if any
	if a.Preamble != "" {
		pre = []any{map[string]any{"type": "message", "id": "msg_clienttest_pre", "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": a.Preamble, "annotations": []any{}}}}}
	}
	for n := range a.callIDs("") {
		done = append(done, item(n, "completed", string(a.Tool.Input)))
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
		writeJSON(w, resp("completed", append(pre, done...), usage))
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
	if pre != nil {
		part := map[string]any{"type": "output_text", "text": a.Preamble, "annotations": []any{}}
		ev("response.output_item.added", map[string]any{"output_index": 0, "item": map[string]any{"type": "message",
			"id": "msg_clienttest_pre", "status": "in_progress", "role": "assistant", "content": []any{}}})
		ev("response.content_part.added", map[string]any{"item_id": "msg_clienttest_pre", "output_index": 0,
			"content_index": 0, "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
		ev("response.output_text.delta", map[string]any{"item_id": "msg_clienttest_pre", "output_index": 0,
			"content_index": 0, "delta": a.Preamble})
		ev("response.output_text.done", map[string]any{"item_id": "msg_clienttest_pre", "output_index": 0,
			"content_index": 0, "text": a.Preamble})
		ev("response.content_part.done", map[string]any{"item_id": "msg_clienttest_pre", "output_index": 0,
			"content_index": 0, "part": part})
		ev("response.output_item.done", map[string]any{"output_index": 0, "item": pre[0]})
	}
	for n := range done {
		id := item(n, "", "")["id"]
		at := n + len(pre)
		ev("response.output_item.added", map[string]any{"output_index": at, "item": item(n, "in_progress", "")})
		ev("response.function_call_arguments.delta", map[string]any{"item_id": id,
			"output_index": at, "delta": string(a.Tool.Input)})
		ev("response.function_call_arguments.done", map[string]any{"item_id": id,
			"output_index": at, "arguments": string(a.Tool.Input)})
		ev("response.output_item.done", map[string]any{"output_index": at, "item": done[n]})
	}
	ev("response.completed", map[string]any{"response": resp("completed", append(pre, done...), usage)})
}
