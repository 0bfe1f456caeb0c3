package clienttest

import (
	"encoding/json"
	"net/http"
	"time"
)

// answerMessages answers a Messages request with one text block (Reply),
// as a Message or as Anthropic's SSE stream when the body asks for one.
func (r *Recorder) answerMessages(w http.ResponseWriter, body []byte) {
	var in struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	json.Unmarshal(body, &in) //nolint:errcheck // a bad body still gets the reply
	if a := r.toolAnswer(body); a != nil {
		r.answerMessagesTool(w, in.Model, in.Stream, a)
		return
	}
	reply := r.reply(body)
	usage := map[string]any{"input_tokens": 10, "output_tokens": 2,
		"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	msg := map[string]any{"id": "msg_clienttest", "type": "message", "role": "assistant",
		"model": in.Model, "stop_reason": "end_turn", "stop_sequence": nil, "usage": usage,
		"content": []any{map[string]any{"type": "text", "text": reply}}}
	if !in.Stream {
		writeJSON(w, msg)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	start := map[string]any{}
	for k, v := range msg {
		start[k] = v
	}
	start["content"] = []any{}
	start["stop_reason"] = nil
	start["usage"] = map[string]any{"input_tokens": 10, "output_tokens": 1}
	sse(w, "message_start", map[string]any{"type": "message_start", "message": start})
	sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0,
		"content_block": map[string]any{"type": "text", "text": ""}})
	sse(w, "ping", map[string]any{"type": "ping"})
	sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
		"delta": map[string]any{"type": "text_delta", "text": reply}})
	sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	sse(w, "message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 2}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}

// answerResponses answers a Responses request with one message item
// (Reply), as a response object or as the Responses SSE stream.
func (r *Recorder) answerResponses(w http.ResponseWriter, body []byte) {
	var in struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	json.Unmarshal(body, &in) //nolint:errcheck // a bad body still gets the reply
	if a := r.toolAnswer(body); a != nil {
		r.answerResponsesTool(w, in.Model, in.Stream, a)
		return
	}
	reply := r.reply(body)
	part := map[string]any{"type": "output_text", "text": reply, "annotations": []any{}}
	item := map[string]any{"type": "message", "id": "msg_clienttest", "status": "completed",
		"role": "assistant", "content": []any{part}}
	usage := map[string]any{"input_tokens": 10, "output_tokens": 2, "total_tokens": 12,
		"input_tokens_details":  map[string]any{"cached_tokens": 0},
		"output_tokens_details": map[string]any{"reasoning_tokens": 0}}
	resp := func(status string, output []any, u any) map[string]any {
		return map[string]any{"id": "resp_clienttest", "object": "response",
			"created_at": time.Now().Unix(), "status": status, "model": in.Model,
			"output": output, "usage": u, "error": nil, "incomplete_details": nil}
	}
	if !in.Stream {
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
	ev("response.in_progress", map[string]any{"response": resp("in_progress", []any{}, nil)})
	open := map[string]any{"type": "message", "id": "msg_clienttest", "status": "in_progress",
		"role": "assistant", "content": []any{}}
	ev("response.output_item.added", map[string]any{"output_index": 0, "item": open})
	ev("response.content_part.added", map[string]any{"item_id": "msg_clienttest", "output_index": 0,
		"content_index": 0, "part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
	ev("response.output_text.delta", map[string]any{"item_id": "msg_clienttest", "output_index": 0,
		"content_index": 0, "delta": reply})
	ev("response.output_text.done", map[string]any{"item_id": "msg_clienttest", "output_index": 0,
		"content_index": 0, "text": reply})
	ev("response.content_part.done", map[string]any{"item_id": "msg_clienttest", "output_index": 0,
		"content_index": 0, "part": part})
	ev("response.output_item.done", map[string]any{"output_index": 0, "item": item})
	ev("response.completed", map[string]any{"response": resp("completed", []any{item}, usage)})
}
