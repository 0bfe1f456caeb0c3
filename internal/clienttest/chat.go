package clienttest

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
)

// answerChat answers a Chat Completions request with Reply, or with a call
// of r.Tool, as a chat.completion or as a chunk stream ending in [DONE]
// (with a usage chunk when stream_options.include_usage asks for one).
func (r *Recorder) answerChat(w http.ResponseWriter, body []byte) {
	var in struct {
		Model         string `json:"model"`
		Stream        bool   `json:"stream"`
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	json.Unmarshal(body, &in) //nolint:errcheck // a bad body still gets the reply
	reply := r.reply(body)
	msg := map[string]any{"role": "assistant", "content": reply}
	finish := "stop"
	var ids []string
	var call *toolAnswer
	if a := r.toolAnswer(body); a != nil {
		finish = "tool_calls"
		ids = a.callIDs("call_clienttest")
		var calls []any
		for _, id := range ids {
			calls = append(calls, map[string]any{"id": id, "type": "function",
				"function": map[string]any{"name": a.Tool.Name, "arguments": string(a.Tool.Input)}})
		}
		var content any // null unless a preamble
		if a.Preamble != "" {
			content = a.Preamble
		}
		call = a
		msg = map[string]any{"role": "assistant", "content": content, "tool_calls": calls}
	}
	usage := map[string]any{"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}
	if !in.Stream {
		writeJSON(w, map[string]any{"id": "chatcmpl-clienttest", "object": "chat.completion",
			"created": 1764489600, "model": in.Model, "usage": usage,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(choices []any, u any) {
		v := map[string]any{"id": "chatcmpl-clienttest", "object": "chat.completion.chunk",
			"created": 1764489600, "model": in.Model, "choices": choices}
		if u != nil {
			v["usage"] = u
		}
		data(w, v)
	}
	delta := func(d map[string]any, fin any) []any {
		return []any{map[string]any{"index": 0, "delta": d, "finish_reason": fin}}
	}
	chunk(delta(map[string]any{"role": "assistant", "content": ""}, nil), nil)
	if ids != nil {
		if call.Preamble != "" {
			chunk(delta(map[string]any{"content": call.Preamble}, nil), nil)
		}
		for i, id := range ids {
			chunk(delta(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": id,
				"type": "function", "function": map[string]any{"name": call.Tool.Name, "arguments": ""}}}}, nil), nil)
			chunk(delta(map[string]any{"tool_calls": []any{map[string]any{"index": i,
				"function": map[string]any{"arguments": string(call.Tool.Input)}}}}, nil), nil)
		}
	} else {
		chunk(delta(map[string]any{"content": reply}, nil), nil)
	}
	chunk(delta(map[string]any{}, finish), nil)
	if in.StreamOptions.IncludeUsage {
		chunk([]any{}, usage)
	}
	io.WriteString(w, "data: [DONE]\n\n")
}

// vector is the embedding the recorder gives input i: dims values
// (3 when the request names no dimensions), exact in float32.
func vector(i, dims int) []float64 {
	v := make([]float64, dims)
	for j := range v {
		v[j] = float64(i+1) + float64(j)/4
	}
	return v
}

// answerEmbeddings answers an OpenAI embeddings request with one vector
// per input (see vector), as floats or, for encoding_format "base64",
// little-endian float32 values in base64 as OpenAI does.
func (r *Recorder) answerEmbeddings(w http.ResponseWriter, body []byte) {
	var in struct {
		Model          string          `json:"model"`
		Input          json.RawMessage `json:"input"`
		Dimensions     int             `json:"dimensions"`
		EncodingFormat string          `json:"encoding_format"`
	}
	json.Unmarshal(body, &in) //nolint:errcheck // a bad body gets one vector
	n := 1
	var many []json.RawMessage
	if json.Unmarshal(in.Input, &many) == nil && len(many) > 0 && many[0][0] != '0' && (many[0][0] < '1' || many[0][0] > '9') {
		n = len(many)
	}
	if in.Dimensions <= 0 {
		in.Dimensions = 3
	}
	data := make([]any, n)
	for i := range data {
		var emb any = vector(i, in.Dimensions)
		if in.EncodingFormat == "base64" {
			emb = Base64Floats(vector(i, in.Dimensions))
		}
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": emb}
	}
	writeJSON(w, map[string]any{"object": "list", "data": data, "model": in.Model,
		"usage": map[string]any{"prompt_tokens": 2 * n, "total_tokens": 2 * n}})
}

// Base64Floats is values as OpenAI encodes an embedding for
// encoding_format "base64": little-endian float32s, standard base64.
func Base64Floats(values []float64) string {
	raw := make([]byte, 4*len(values))
	for i, f := range values {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(float32(f)))
	}
	return base64.StdEncoding.EncodeToString(raw)
}

// data writes one data-only server-sent event with a JSON payload.
func data(w http.ResponseWriter, v any) {
	b, _ := json.Marshal(v)
	fmt.Fprintf(w, "data: %s\n\n", b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
