package clienttest

import (
	"encoding/json"
	"net/http"
	"strings"
)

// answerGemini answers generateContent and streamGenerateContent (?alt=sse)
// with Reply, or with a functionCall of r.Tool.
func (r *Recorder) answerGemini(w http.ResponseWriter, path string, body []byte) {
	model, _, _ := strings.Cut(path[strings.LastIndex(path, "/models/")+len("/models/"):], ":")
	parts := []any{map[string]any{"text": r.reply(body)}}
	if a := r.toolAnswer(body); a != nil {
		parts = nil
		if a.Preamble != "" {
			parts = append(parts, map[string]any{"text": a.Preamble})
		}
		for range a.callIDs("") {
			parts = append(parts, map[string]any{"functionCall": map[string]any{"name": a.Tool.Name, "args": a.Tool.Input}})
		}
	}
	answer := map[string]any{
		"candidates": []any{map[string]any{"index": 0, "finishReason": "STOP",
			"content": map[string]any{"role": "model", "parts": parts}}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 2, "totalTokenCount": 12},
		"modelVersion":  model, "responseId": "clienttest"}
	if !strings.HasSuffix(path, ":streamGenerateContent") {
		writeJSON(w, answer)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	data(w, answer)
}

// answerGeminiEmbeddings answers batchEmbedContents with one vector per
// request (see vector), outputDimensionality values long (3 by default).
func (r *Recorder) answerGeminiEmbeddings(w http.ResponseWriter, body []byte) {
	var in struct {
		Requests []struct {
			OutputDimensionality int `json:"outputDimensionality"`
		} `json:"requests"`
	}
	json.Unmarshal(body, &in) //nolint:errcheck // a bad body gets no vectors
	out := make([]any, len(in.Requests))
	for i, q := range in.Requests {
		dims := q.OutputDimensionality
		if dims <= 0 {
			dims = 3
		}
		out[i] = map[string]any{"values": vector(i, dims)}
	}
	writeJSON(w, map[string]any{"embeddings": out})
}
