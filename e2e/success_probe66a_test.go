package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Probe 66a: real SUCCESS answers of OpenAI-compatible providers, as their
// published recordings have them (internal/provider/openai/testdata/success,
// each with its source), served by a loopback upstream with the status and
// content type the vendor answers with, through a real gateway: a stream to
// openai-go (include_usage), a whole answer to the chat door and to the
// Messages door. The record is ok with one attempt, its usage is the
// transcript's, and the client gets the transcript's text, reasoning, tool
// calls and finish reason.

const p66aCfg = `
providers:
  - {name: up, dialect: openai, base_url: "{up}", api_key: ` + secret + `}
targets:
  - {name: t, model: m, providers: [up]}
routes:
  - {name: r, targets: [t]}
`

type p66aWant struct {
	Text      string `json:"text"`
	Reasoning string `json:"reasoning"`
	Finish    string `json:"finish"`
	ToolCalls []struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"tool_calls"`
	Usage struct {
		Prompt     int `json:"prompt"`
		Completion int `json:"completion"`
		Total      int `json:"total"`
		Cached     int `json:"cached"`
		Reasoning  int `json:"reasoning"`
	} `json:"usage"`
}

const p66aDir = "../internal/provider/openai/testdata/success/"

// p66aSSE frames a published chunks file as its source's harness serves it:
// a "data:" event a line, then [DONE].
func p66aSSE(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) != "" {
			b.WriteString("data: " + sc.Text() + "\n\n")
		}
	}
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

func TestProbe66aPublishedSuccessThroughTheGateway(t *testing.T) {
	wants, _ := filepath.Glob(p66aDir + "*.want.json")
	if len(wants) < 20 {
		t.Fatalf("%d transcripts", len(wants))
	}
	for _, wp := range wants {
		name := strings.TrimSuffix(filepath.Base(wp), ".want.json")
		var want p66aWant
		b, _ := os.ReadFile(wp)
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		if base, ok := strings.CutSuffix(name, ".stream"); ok {
			t.Run(name, func(t *testing.T) {
				if raw, err := os.ReadFile(p66aDir + base + ".sse"); err == nil {
					p66aStream(t, string(raw), &want) // a recorded wire body (probe 66o), as recorded
					return
				}
				p66aStream(t, p66aSSE(t, p66aDir+base+".chunks.txt"), &want)
			})
			continue
		}
		base := strings.TrimSuffix(name, ".whole")
		body, err := os.ReadFile(p66aDir + base + ".json")
		if err != nil {
			t.Fatal(err)
		}
		t.Run(name+"/chat", func(t *testing.T) { p66aWholeChat(t, string(body), &want) })
		t.Run(name+"/messages", func(t *testing.T) { p66aWholeMessages(t, string(body), &want) })
	}
}

func p66aGateway(t *testing.T, st upstreamtest.Step) *gateway {
	return start(t, p66aCfg, fakes(t, map[string]upstreamtest.Script{"up": upstreamtest.Steps(st)}))
}

// p66aRecord checks the one attempt's outcome and usage.
func p66aRecord(t *testing.T, g *gateway, w *p66aWant) {
	t.Helper()
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "t/up ok done")
	u := d.Attempts[0].Usage
	if u == nil {
		t.Fatalf("no usage recorded; the transcript's %+v", w.Usage)
	}
	// Output: completion_tokens, or what total_tokens counts beyond the
	// prompt where more (xAI's reasoning beside it), docs/config.md.
	out := max(w.Usage.Completion, w.Usage.Total-w.Usage.Prompt)
	got := [4]int{u.PromptTokens, u.CompletionTokens, u.CachedTokens, u.ReasoningTokens}
	if wantU := [4]int{w.Usage.Prompt, out, w.Usage.Cached, min(w.Usage.Reasoning, out)}; got != wantU {
		t.Errorf("recorded usage prompt/output/cached/reasoning %v, the transcript's %v", got, wantU)
	}
}

func p66aStream(t *testing.T, sse string, w *p66aWant) {
	g := p66aGateway(t, upstreamtest.Step{Body: sse, Header: map[string]string{"Content-Type": "text/event-stream"}})
	c := openaiSDK(g)
	s := c.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{Model: "r",
		Messages:      []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: param.NewOpt(true)}})
	var acc openai.ChatCompletionAccumulator
	reasoning := ""
	// What a client reads chunk by chunk (probe 66o): openai-go's
	// accumulator drops a chunk whose id is not the first's (Groq's
	// compound models give every chunk its own id) and clears the finish
	// reason on a later chunk whose finish_reason is null (OpenRouter's
	// usage chunk), as it would from the vendor directly.
	text, finish := "", ""
	var usage openai.CompletionUsage // the last a chunk carried (Perplexity's is a running count on every chunk, which the accumulator sums)
	for s.Next() {
		ch := s.Current()
		acc.AddChunk(ch)
		if ch.JSON.Usage.Valid() {
			usage = ch.Usage
		}
		for _, c := range ch.Choices {
			text += c.Delta.Content
			if c.FinishReason != "" {
				finish = c.FinishReason
			}
		}
		var raw struct {
			Choices []struct {
				Delta struct {
					ReasoningContent string `json:"reasoning_content"`
					Reasoning        string `json:"reasoning"`
				} `json:"delta"`
			} `json:"choices"`
		}
		_ = json.Unmarshal([]byte(ch.RawJSON()), &raw)
		for _, c := range raw.Choices {
			if c.Delta.ReasoningContent != "" {
				reasoning += c.Delta.ReasoningContent
			} else {
				reasoning += c.Delta.Reasoning
			}
		}
	}
	if err := s.Err(); err != nil {
		t.Fatalf("openai-go: %v", err)
	}
	p66aRecord(t, g, w)
	if len(acc.Choices) != 1 {
		t.Fatalf("%d choices", len(acc.Choices))
	}
	m := acc.Choices[0]
	if text != w.Text || reasoning != w.Reasoning || finish != w.Finish {
		t.Errorf("client got text %d bytes, reasoning %d, finish %q; the transcript's %d, %d, %q",
			len(text), len(reasoning), finish, len(w.Text), len(w.Reasoning), w.Finish)
	}
	if len(m.Message.ToolCalls) != len(w.ToolCalls) {
		t.Fatalf("client got %d tool calls, the transcript %d", len(m.Message.ToolCalls), len(w.ToolCalls))
	}
	for i, tc := range w.ToolCalls {
		if f := m.Message.ToolCalls[i].Function; f.Name != tc.Name || f.Arguments != tc.Arguments {
			t.Errorf("tool call %d %s(%s), the transcript's %s(%s)", i, f.Name, f.Arguments, tc.Name, tc.Arguments)
		}
	}
	// A transcript whose count is only Groq's x_groq (no top-level usage)
	// reaches the client as it came: the record has the count (above).
	if p66oTopUsage(sse) && (usage.PromptTokens != int64(w.Usage.Prompt) || usage.CompletionTokens != int64(w.Usage.Completion)) {
		t.Errorf("client's usage %d/%d, the transcript's %d/%d", usage.PromptTokens, usage.CompletionTokens, w.Usage.Prompt, w.Usage.Completion)
	}
}

func p66aWholeChat(t *testing.T, body string, w *p66aWant) {
	g := p66aGateway(t, upstreamtest.Step{Body: body})
	c := openaiSDK(g)
	r, err := c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: "r",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}})
	if err != nil {
		t.Fatalf("openai-go: %v", err)
	}
	p66aRecord(t, g, w)
	m := r.Choices[0]
	if m.Message.Content != w.Text || m.FinishReason != w.Finish {
		t.Errorf("client got text %q (%d bytes), finish %q; the transcript's %d bytes, %q", m.Message.Content, len(m.Message.Content), m.FinishReason, len(w.Text), w.Finish)
	}
	if int(r.Usage.PromptTokens) != w.Usage.Prompt || int(r.Usage.CompletionTokens) != w.Usage.Completion {
		t.Errorf("client's usage %d/%d, the transcript's %d/%d", r.Usage.PromptTokens, r.Usage.CompletionTokens, w.Usage.Prompt, w.Usage.Completion)
	}
}

// p66aWholeMessages: the same answer at the Messages door, translated.
func p66aWholeMessages(t *testing.T, body string, w *p66aWant) {
	g := p66aGateway(t, upstreamtest.Step{Body: body})
	r := g.raw(t, http.MethodPost, "/v1/messages", `{"model":"r","max_tokens":4096,"messages":[{"role":"user","content":"hi"}]}`)
	if r.Status != 200 {
		t.Fatalf("status %d: %.300s", r.Status, r.Body)
	}
	p66aRecord(t, g, w)
	var m struct {
		Content []struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			Thinking string `json:"thinking"`
		} `json:"content"`
	}
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatal(err)
	}
	text, thinking := "", ""
	for _, b := range m.Content {
		text += b.Text
		thinking += b.Thinking
	}
	if text != w.Text || thinking != w.Reasoning {
		t.Errorf("Messages client got text %d bytes, thinking %d; the transcript's %d, %d", len(text), len(thinking), len(w.Text), len(w.Reasoning))
	}
}

// p66oTopUsage reports whether a transcript has a chunk with a top-level
// usage (Groq's older streams count only in x_groq, which a client of the
// vendor's own API reads no usage from either).
func p66oTopUsage(sse string) bool {
	for _, line := range strings.Split(sse, "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var c struct {
			Usage json.RawMessage `json:"usage"`
		}
		if json.Unmarshal([]byte(data), &c) == nil && len(c.Usage) > 0 && string(c.Usage) != "null" {
			return true
		}
	}
	return false
}
