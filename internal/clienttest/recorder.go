package clienttest

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
)

// Request is one recorded HTTP request.
type Request struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Query  string `json:"query,omitempty"`
	// Headers holds each header's values; secrets are masked (see Mask).
	Headers map[string][]string `json:"headers"`
	// Body is the request body: JSON as sent, or a JSON string for
	// anything else (null when empty).
	Body json.RawMessage `json:"body"`
}

// secretHeaders are masked in recordings, whatever their value.
var secretHeaders = map[string]bool{
	"authorization": true, "x-api-key": true, "api-key": true,
	"cookie": true, "proxy-authorization": true, "x-goog-api-key": true,
}

// Mask replaces a secret header's value, keeping an auth scheme word
// ("Bearer ***") so the recording still shows how the key travels.
func Mask(name, value string) string {
	if !secretHeaders[strings.ToLower(name)] {
		return value
	}
	if scheme, _, ok := strings.Cut(value, " "); ok {
		return scheme + " ***"
	}
	return "***"
}

// Recorder is a loopback server recording every request and answering
// the Messages and Responses APIs with one short text turn (Reply). The
// zero value is not usable; call NewRecorder.
type Recorder struct {
	// URL is the server's base, http://127.0.0.1:PORT (no /v1).
	URL string
	// Reply is the assistant text every model call answers.
	Reply string
	// Tool, when not nil, makes a model call that offers a tool of that
	// name and carries no tool result yet answer with a call of it instead
	// of Reply, so the recording shows the client's tool round trip.
	Tool *ToolCall
	// Parallel, when above 1, makes that tool answer carry that many calls
	// of Tool at once (ids suffixed _2, _3, …), as models calling tools in
	// parallel do. Set it before the first request.
	Parallel int
	// Preamble, when set, is text the tool answer carries before its
	// calls ("Let me check."), as models often write.
	Preamble string
	// Object, when set, is a JSON value (text) a request asking for
	// structured output gets: as its text when it asks in its dialect's
	// own way (response_format, text.format, responseMimeType,
	// output_config.format), as the input of the tool it forces when it
	// asks through a tool (tool_choice naming one tool other than Tool's).
	// Set it before the first request.
	Object string

	srv  *http.Server
	ln   net.Listener
	mu   sync.Mutex
	reqs []Request
}

// ToolCall is the tool call a Recorder answers with (see Recorder.Tool).
type ToolCall struct {
	Name string
	// Namespace, for a Responses tool inside a "namespace" tool, is put
	// on the function_call item as "namespace".
	Namespace string
	// Input is the call's arguments, a JSON object.
	Input json.RawMessage
}

// NewRecorder starts a Recorder on 127.0.0.1 answering reply, or tool
// (nil for none) first. Reply and Tool are not to be changed afterwards.
func NewRecorder(reply string, tool *ToolCall) (*Recorder, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &Recorder{URL: "http://" + ln.Addr().String(), Reply: reply, Tool: tool, ln: ln}
	r.srv = &http.Server{Handler: http.HandlerFunc(r.serve)}
	go r.srv.Serve(ln) //nolint:errcheck // ends with Close
	return r, nil
}

// Close stops the server.
func (r *Recorder) Close() { r.srv.Close() }

// Requests returns a copy of the requests recorded so far, in arrival order.
func (r *Recorder) Requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Request(nil), r.reqs...)
}

func (r *Recorder) record(req *http.Request, body []byte) {
	h := map[string][]string{}
	keys := make([]string, 0, len(req.Header))
	for k := range req.Header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range req.Header[k] {
			h[strings.ToLower(k)] = append(h[strings.ToLower(k)], Mask(k, v))
		}
	}
	rec := Request{Method: req.Method, Path: req.URL.Path, Query: req.URL.RawQuery, Headers: h}
	switch {
	case len(body) == 0:
		rec.Body = json.RawMessage("null")
	case json.Valid(body):
		rec.Body = append(json.RawMessage(nil), body...)
	default:
		s, _ := json.Marshal(string(body))
		rec.Body = s
	}
	r.mu.Lock()
	r.reqs = append(r.reqs, rec)
	r.mu.Unlock()
}

func (r *Recorder) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(req.Body, 64<<20))
	r.record(req, body)
	p := strings.TrimSuffix(req.URL.Path, "/")
	switch {
	case req.Method == http.MethodPost && strings.HasSuffix(p, "/messages/count_tokens"):
		writeJSON(w, map[string]any{"input_tokens": len(body) / 4})
	case req.Method == http.MethodPost && strings.HasSuffix(p, "/messages"):
		r.answerMessages(w, body)
	case req.Method == http.MethodPost && strings.HasSuffix(p, "/responses"):
		r.answerResponses(w, body)
	case req.Method == http.MethodPost && strings.HasSuffix(p, "/chat/completions"):
		r.answerChat(w, body)
	case req.Method == http.MethodPost && strings.HasSuffix(p, "/embeddings"):
		r.answerEmbeddings(w, body)
	case req.Method == http.MethodPost && strings.HasSuffix(p, ":countTokens"):
		writeJSON(w, map[string]any{"totalTokens": len(body) / 4})
	case req.Method == http.MethodPost && strings.HasSuffix(p, ":batchEmbedContents"):
		r.answerGeminiEmbeddings(w, body)
	case req.Method == http.MethodPost && strings.Contains(p, "/models/") &&
		(strings.HasSuffix(p, ":generateContent") || strings.HasSuffix(p, ":streamGenerateContent")):
		r.answerGemini(w, p, body)
	case req.Method == http.MethodGet && strings.Contains(p, "/models/"):
		// One model, in both shapes at once (OpenAI's and Anthropic's).
		id := p[strings.LastIndex(p, "/models/")+len("/models/"):]
		writeJSON(w, map[string]any{"id": id, "object": "model", "owned_by": "clienttest", "created": 0,
			"type": "model", "display_name": id, "created_at": "1970-01-01T00:00:00Z"})
	case req.Method == http.MethodGet && strings.HasSuffix(p, "/models"):
		// Both shapes at once: Anthropic/OpenAI read "data", Codex's
		// model catalogue reads "models" (empty: use built-in defaults).
		writeJSON(w, map[string]any{"object": "list", "data": []any{}, "models": []any{}, "has_more": false})
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"type":"error","error":{"type":"not_found_error","message":"clienttest recorder: no such path"}}`)
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v) //nolint:errcheck // the client may be gone
}

// sse writes one server-sent event with a JSON payload.
func sse(w http.ResponseWriter, event string, v any) {
	b, _ := json.Marshal(v)
	io.WriteString(w, "event: "+event+"\ndata: "+string(b)+"\n\n")
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
