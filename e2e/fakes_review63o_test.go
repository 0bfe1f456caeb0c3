package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Review 63o: fake upstreams of each dialect (small Go servers) answering
// with realistic event streams, for the real clients driven through
// Detour after today's stream changes (offstack decoding, ParseUsage).

type p63oCall struct{ ID, Name, Args string }

// p63oTurn is one answer a fake streams (or returns whole).
type p63oTurn struct {
	Thinking []string // reasoning pieces (Anthropic thinking_delta, Gemini thought parts, chat reasoning_content)
	Sig      string   // Anthropic signature_delta / Gemini thoughtSignature
	Text     []string // text pieces
	Calls    []p63oCall
	// Usage as the upstream counts it: In is the whole prompt, Cached
	// the part of it read from cache; Out the visible output, Thoughts
	// the reasoning.
	In, Cached, Out, Thoughts int
	ErrAfter                  bool          // a mid-stream error event after the text
	Stall                     bool          // after the text, hold until the client leaves
	EventDelay                time.Duration // before each event
}

type p63oReq struct {
	N      int
	Path   string
	Body   []byte
	Steps  int  // tool results the request carries
	Tools  bool // the request offers tools
	Stream bool
}

type p63oFake struct {
	*httptest.Server
	dialect string
	plan    func(r p63oReq) p63oTurn
	mu      sync.Mutex
	reqs    []p63oReq
	n       atomic.Int32
	left    atomic.Int32 // stalled streams whose client left
	stalled chan struct{}
	written atomic.Int64 // events written
}

func newP63oFake(t *testing.T, dialect string, plan func(r p63oReq) p63oTurn) *p63oFake {
	f := &p63oFake{dialect: dialect, plan: plan, stalled: make(chan struct{}, 64)}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *p63oFake) requests() []p63oReq {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]p63oReq(nil), f.reqs...)
}

func (f *p63oFake) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := p63oReq{N: int(f.n.Add(1)), Path: r.URL.Path, Body: body}
	var in struct {
		Stream   bool              `json:"stream"`
		Tools    []json.RawMessage `json:"tools"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Contents []struct {
			Parts []struct {
				FunctionResponse json.RawMessage `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	_ = json.Unmarshal(body, &in)
	req.Tools = len(in.Tools) > 0
	switch f.dialect {
	case "gemini":
		req.Stream = strings.Contains(r.URL.Path, "streamGenerateContent")
		for _, c := range in.Contents {
			for _, p := range c.Parts {
				if len(p.FunctionResponse) > 0 {
					req.Steps++
				}
			}
		}
	case "openai":
		req.Stream = in.Stream
		for _, m := range in.Messages {
			if m.Role == "tool" {
				req.Steps++
			}
		}
	case "anthropic":
		req.Stream = in.Stream
		if strings.HasSuffix(r.URL.Path, "/count_tokens") {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"input_tokens":1234}`)
			return
		}
		for _, m := range in.Messages {
			var blocks []struct{ Type string }
			if json.Unmarshal(m.Content, &blocks) == nil {
				for _, b := range blocks {
					if b.Type == "tool_result" {
						req.Steps++
					}
				}
			}
		}
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	turn := f.plan(req)
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, f.whole(turn))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(200)
	fl := w.(http.Flusher)
	fl.Flush()
	send := func(ev string) bool {
		if turn.EventDelay > 0 {
			time.Sleep(turn.EventDelay)
		}
		if r.Context().Err() != nil {
			return false
		}
		if !strings.HasPrefix(ev, "event:") {
			ev = "data: " + ev
		}
		if _, err := io.WriteString(w, ev+"\n\n"); err != nil {
			return false
		}
		fl.Flush()
		f.written.Add(1)
		return true
	}
	stall := func() {
		f.stalled <- struct{}{}
		<-r.Context().Done()
		f.left.Add(1)
	}
	switch f.dialect {
	case "gemini":
		f.gemini(turn, send, stall)
	case "openai":
		f.chat(turn, send, stall)
	case "anthropic":
		f.anthropic(turn, send, stall)
	}
}

func p63oJS(v any) string { b, _ := json.Marshal(v); return string(b) }

// pieces cuts s into n pieces (the last holding the rest).
func p63oPieces(s string, n int) []string {
	if len(s) < n {
		return []string{s}
	}
	var out []string
	step := len(s) / n
	for i := 0; i < n-1; i++ {
		out = append(out, s[i*step:(i+1)*step])
	}
	return append(out, s[(n-1)*step:])
}

func (f *p63oFake) gemini(t p63oTurn, send func(string) bool, stall func()) {
	usage := func(final bool) map[string]any {
		u := map[string]any{"promptTokenCount": t.In, "totalTokenCount": t.In,
			"promptTokensDetails": []any{map[string]any{"modality": "TEXT", "tokenCount": t.In}}}
		if t.Cached > 0 {
			u["cachedContentTokenCount"] = t.Cached
		}
		if final {
			u["candidatesTokenCount"] = t.Out
			if t.Thoughts > 0 {
				u["thoughtsTokenCount"] = t.Thoughts
			}
			u["totalTokenCount"] = t.In + t.Out + t.Thoughts
		}
		return u
	}
	chunk := func(parts []any, finish string, final bool) string {
		c := map[string]any{"content": map[string]any{"parts": parts, "role": "model"}, "index": 0}
		if finish != "" {
			c["finishReason"] = finish
		}
		return p63oJS(map[string]any{"candidates": []any{c}, "usageMetadata": usage(final),
			"modelVersion": "gemini-3-pro-preview", "responseId": "p63o-gem-resp"})
	}
	type part = map[string]any
	var evs [][]any
	for _, p := range t.Thinking {
		evs = append(evs, []any{part{"text": p, "thought": true}})
	}
	for _, p := range t.Text {
		evs = append(evs, []any{part{"text": p}})
	}
	if len(t.Calls) > 0 {
		var ps []any
		for i, c := range t.Calls {
			p := part{"functionCall": map[string]any{"name": c.Name, "args": json.RawMessage(c.Args)}}
			if i == 0 && t.Sig != "" {
				p["thoughtSignature"] = t.Sig
			}
			ps = append(ps, p)
		}
		evs = append(evs, ps)
	} else if t.Sig != "" && len(evs) > 0 {
		last := evs[len(evs)-1][0].(part)
		last["thoughtSignature"] = t.Sig
	}
	for i, ps := range evs {
		if (t.ErrAfter || t.Stall) && i == len(evs)-1 && len(t.Calls) > 0 {
			break
		}
		final := i == len(evs)-1 && !t.ErrAfter && !t.Stall
		fin := ""
		if final {
			fin = "STOP"
		}
		if !send(chunk(ps, fin, final)) {
			return
		}
	}
	if t.ErrAfter {
		send(`{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`)
		return
	}
	if t.Stall {
		stall()
	}
}

func (f *p63oFake) chat(t p63oTurn, send func(string) bool, stall func()) {
	chunk := func(delta map[string]any, finish any) string {
		return p63oJS(map[string]any{"id": "chatcmpl-p63o", "object": "chat.completion.chunk", "created": 1765000000,
			"model": "qwen3-coder-plus", "system_fingerprint": "fp_p63o",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}}})
	}
	if !send(chunk(map[string]any{"role": "assistant", "content": ""}, nil)) {
		return
	}
	for _, p := range t.Thinking {
		if !send(chunk(map[string]any{"reasoning_content": p}, nil)) {
			return
		}
	}
	for _, p := range t.Text {
		if !send(chunk(map[string]any{"content": p}, nil)) {
			return
		}
	}
	if t.ErrAfter {
		send(`{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`)
		return
	}
	if t.Stall {
		stall()
		return
	}
	for i, c := range t.Calls {
		if !send(chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c.ID, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""}}}}, nil)) {
			return
		}
		for _, p := range p63oPieces(c.Args, 3) {
			if !send(chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": p}}}}, nil)) {
				return
			}
		}
	}
	finish := "stop"
	if len(t.Calls) > 0 {
		finish = "tool_calls"
	}
	send(chunk(map[string]any{}, finish))
	send(p63oJS(map[string]any{"id": "chatcmpl-p63o", "object": "chat.completion.chunk", "created": 1765000000,
		"model": "qwen3-coder-plus", "choices": []any{},
		"usage": map[string]any{"prompt_tokens": t.In, "completion_tokens": t.Out + t.Thoughts, "total_tokens": t.In + t.Out + t.Thoughts,
			"prompt_tokens_details":     map[string]any{"cached_tokens": t.Cached},
			"completion_tokens_details": map[string]any{"reasoning_tokens": t.Thoughts}}}))
	send("[DONE]")
}

func (f *p63oFake) anthropic(t p63oTurn, send func(string) bool, stall func()) {
	ev := func(name string, v any) bool { return send("event: " + name + "\ndata: " + p63oJS(v)) }
	type m = map[string]any
	if !ev("message_start", m{"type": "message_start", "message": m{"id": "msg_01P63o", "type": "message", "role": "assistant",
		"model": "claude-sonnet-4-5-20250929", "content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": m{"input_tokens": t.In - t.Cached, "cache_creation_input_tokens": 0, "cache_read_input_tokens": t.Cached,
			"output_tokens": 1, "service_tier": "standard"}}}) {
		return
	}
	ev("ping", m{"type": "ping"})
	i := 0
	if len(t.Thinking) > 0 {
		ev("content_block_start", m{"type": "content_block_start", "index": i, "content_block": m{"type": "thinking", "thinking": "", "signature": ""}})
		for _, p := range t.Thinking {
			if !ev("content_block_delta", m{"type": "content_block_delta", "index": i, "delta": m{"type": "thinking_delta", "thinking": p}}) {
				return
			}
		}
		ev("content_block_delta", m{"type": "content_block_delta", "index": i, "delta": m{"type": "signature_delta", "signature": t.Sig}})
		ev("content_block_stop", m{"type": "content_block_stop", "index": i})
		i++
	}
	if len(t.Text) > 0 {
		ev("content_block_start", m{"type": "content_block_start", "index": i, "content_block": m{"type": "text", "text": ""}})
		for _, p := range t.Text {
			if !ev("content_block_delta", m{"type": "content_block_delta", "index": i, "delta": m{"type": "text_delta", "text": p}}) {
				return
			}
		}
		if t.ErrAfter {
			ev("error", m{"type": "error", "error": m{"type": "overloaded_error", "message": "Overloaded"}, "request_id": "req_011p63o"})
			return
		}
		if t.Stall {
			stall()
			return
		}
		ev("content_block_stop", m{"type": "content_block_stop", "index": i})
		i++
	}
	for _, c := range t.Calls {
		ev("content_block_start", m{"type": "content_block_start", "index": i, "content_block": m{"type": "tool_use", "id": c.ID, "name": c.Name, "input": m{}}})
		ev("content_block_delta", m{"type": "content_block_delta", "index": i, "delta": m{"type": "input_json_delta", "partial_json": ""}})
		for _, p := range p63oPieces(c.Args, 3) {
			if !ev("content_block_delta", m{"type": "content_block_delta", "index": i, "delta": m{"type": "input_json_delta", "partial_json": p}}) {
				return
			}
		}
		ev("content_block_stop", m{"type": "content_block_stop", "index": i})
		i++
	}
	stop := "end_turn"
	if len(t.Calls) > 0 {
		stop = "tool_use"
	}
	ev("message_delta", m{"type": "message_delta", "delta": m{"stop_reason": stop, "stop_sequence": nil},
		"usage": m{"input_tokens": t.In - t.Cached, "cache_creation_input_tokens": 0, "cache_read_input_tokens": t.Cached, "output_tokens": t.Out + t.Thoughts}})
	ev("message_stop", m{"type": "message_stop"})
}

// whole is the turn as a non-streamed answer.
func (f *p63oFake) whole(t p63oTurn) string {
	text := strings.Join(t.Text, "")
	switch f.dialect {
	case "gemini":
		var parts []any
		if len(t.Thinking) > 0 {
			parts = append(parts, map[string]any{"text": strings.Join(t.Thinking, ""), "thought": true})
		}
		if text != "" {
			parts = append(parts, map[string]any{"text": text})
		}
		for _, c := range t.Calls {
			parts = append(parts, map[string]any{"functionCall": map[string]any{"name": c.Name, "args": json.RawMessage(c.Args)}, "thoughtSignature": t.Sig})
		}
		return p63oJS(map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"parts": parts, "role": "model"}, "finishReason": "STOP", "index": 0}},
			"usageMetadata": map[string]any{"promptTokenCount": t.In, "candidatesTokenCount": t.Out, "totalTokenCount": t.In + t.Out}, "modelVersion": "gemini-3-pro-preview"})
	case "openai":
		msg := map[string]any{"role": "assistant", "content": text}
		var tcs []any
		for _, c := range t.Calls {
			tcs = append(tcs, map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Args}})
		}
		finish := "stop"
		if len(tcs) > 0 {
			msg["tool_calls"] = tcs
			finish = "tool_calls"
		}
		return p63oJS(map[string]any{"id": "chatcmpl-p63o", "object": "chat.completion", "created": 1765000000, "model": "qwen3-coder-plus",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
			"usage":   map[string]any{"prompt_tokens": t.In, "completion_tokens": t.Out, "total_tokens": t.In + t.Out}})
	default:
		var blocks []any
		if text != "" {
			blocks = append(blocks, map[string]any{"type": "text", "text": text})
		}
		stop := "end_turn"
		for _, c := range t.Calls {
			blocks = append(blocks, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": json.RawMessage(c.Args)})
			stop = "tool_use"
		}
		return p63oJS(map[string]any{"id": "msg_01P63o", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": blocks,
			"stop_reason": stop, "stop_sequence": nil, "usage": map[string]any{"input_tokens": t.In, "output_tokens": t.Out}})
	}
}

// p63oCfg is a gateway over the three fakes: routes r-gem, r-oai, r-ant.
const p63oCfg = `
providers:
  - {name: gem, dialect: gemini, base_url: "{gem}", api_key: ` + secret + `}
  - {name: oai, dialect: openai, base_url: "{oai}/v1", api_key: ` + secret + `}
  - {name: ant, dialect: anthropic, base_url: "{ant}", api_key: ` + secret + `}
targets:
  - {name: g3, model: gemini-3-pro-preview, providers: [gem]}
  - {name: qwen, model: qwen3-coder-plus, providers: [oai]}
  - {name: sonnet, model: claude-sonnet-4-5, providers: [ant]}
routes:
  - {name: r-gem, targets: [g3]}
  - {name: r-oai, targets: [qwen]}
  - {name: r-ant, targets: [sonnet]}
`

// startP63o serves p63oCfg over the three fakes.
// startP63oWith starts the three fakes, each answering by plan, and the
// gateway in front of them.
func startP63oWith(t *testing.T, plan func(r p63oReq) p63oTurn) (g *gateway, gem, oai, ant *p63oFake) {
	gem, oai, ant = newP63oFake(t, "gemini", plan), newP63oFake(t, "openai", plan), newP63oFake(t, "anthropic", plan)
	return startP63o(t, gem, oai, ant), gem, oai, ant
}

func startP63o(t *testing.T, gem, oai, ant *p63oFake) *gateway {
	cfg := strings.NewReplacer("{gem}", gem.URL, "{oai}", oai.URL, "{ant}", ant.URL).Replace(p63oCfg)
	return start(t, cfg, nil)
}

// p63oHome makes a throwaway HOME with a work directory.
func p63oHome(t *testing.T) (home, work string) {
	home = t.TempDir()
	work = filepath.Join(home, "work")
	for _, d := range []string{work, filepath.Join(home, "tmp"), filepath.Join(home, ".config")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return home, work
}

func p63oEnv(home string) []string {
	return []string{
		"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"), "TMPDIR=" + filepath.Join(home, "tmp"),
		"LANG=C.UTF-8", "TERM=dumb", "NO_COLOR=1", "NO_PROXY=127.0.0.1,localhost",
	}
}

type p63oRun struct {
	Stdout, Stderr string
	Err            error
	Took           time.Duration
}

// p63oExec runs bin; with interrupt set, it sends SIGINT when interrupt
// is closed (then waits for the exit).
func p63oExec(t *testing.T, bin string, args, env []string, dir string, interrupt <-chan struct{}) p63oRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env, cmd.Dir, cmd.Stdin = env, dir, strings.NewReader("")
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 5 * time.Second
	began := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if interrupt != nil {
		go func() {
			select {
			case <-interrupt:
				cmd.Process.Signal(os.Interrupt)
			case <-ctx.Done():
			}
		}()
	}
	err := cmd.Wait()
	if ctx.Err() != nil {
		err = fmt.Errorf("timed out: %w", ctx.Err())
	}
	return p63oRun{Stdout: out.String(), Stderr: errb.String(), Err: err, Took: time.Since(began)}
}

func p63oBin(t *testing.T, name string) string {
	dir := os.Getenv("DETOUR_CLIENTS_DIR")
	p := filepath.Join(dir, "node_modules", ".bin", name)
	if _, err := os.Stat(p); dir == "" || err != nil {
		t.Skipf("%s not installed (DETOUR_CLIENTS_DIR)", name)
	}
	return p
}
