package openai

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/chat"
)

// Probe 66a: real SUCCESS answers of OpenAI-compatible providers, whole and
// streamed, as published in testdata/success (each file with its source
// beside it, *.source; see testdata/success/README.md). Every file is read
// as the gateway reads it (the stream through Adapter.Stream, a whole answer
// through ResponseUsage) and the facts a client and a budget depend on are
// checked against its *.want.json, written by reading the transcript alone:
// the text, the reasoning and the tool calls the client assembles from what
// is relayed, in order; the usage the record counts (prompt, completion,
// total, cached, reasoning); the finish reason; and, for a stream, that
// nothing is malformed or an error, that every chunk adding to the answer is
// content (it commits the stream and restarts idle_timeout), and that the
// answer is finished and ends. A transcript whose text or usage stops being
// read fails here. A *.sse file (probe 66o: recorded cassettes) is the wire
// body as recorded, served unchanged; a *.chunks.txt is framed as its
// source's harness frames it.

type successWant struct {
	Source    string `json:"source"`
	Text      string `json:"text"`
	Reasoning string `json:"reasoning"`
	Finish    string `json:"finish"`
	ToolCalls []struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"tool_calls"`
	Usage successUsage `json:"usage"`
}

type successUsage struct {
	Prompt     int `json:"prompt"`
	Completion int `json:"completion"`
	Total      int `json:"total"`
	Cached     int `json:"cached"`
	Reasoning  int `json:"reasoning"`
}

func usageFacts(u *provider.Usage) successUsage {
	if u == nil {
		return successUsage{}
	}
	r := 0
	if u.CompletionTokensDetails != nil {
		r = u.CompletionTokensDetails.ReasoningTokens
	}
	return successUsage{Prompt: u.PromptTokens, Completion: u.CompletionTokens, Total: u.TotalTokens, Cached: u.Cached(), Reasoning: r}
}

// successAnswer is what a client assembles from the chunks relayed to it.
type successAnswer struct {
	text, reasoning, finish string
	calls                   map[int]*[2]string
}

func (a *successAnswer) toolCalls() [][2]string {
	var out [][2]string
	for i := 0; i < len(a.calls); i++ {
		if c := a.calls[i]; c != nil {
			out = append(out, *c)
		}
	}
	return out
}

// add reads one relayed chunk as a client does, and reports whether it
// added anything to the answer.
func (a *successAnswer) add(t *testing.T, data []byte) bool {
	t.Helper()
	var c chat.StreamChunk
	if err := chat.ReadStreamChunk(data, &c); err != nil {
		t.Fatalf("a relayed chunk a client cannot read: %v: %.300s", err, data)
	}
	added := false
	for _, ch := range c.Choices {
		d := ch.Delta
		if d.Content != nil && *d.Content != "" {
			a.text += *d.Content
			added = true
		}
		if th := d.Thinking(); th != "" {
			a.reasoning += th
			added = true
		}
		for _, tc := range d.ToolCalls {
			if a.calls == nil {
				a.calls = map[int]*[2]string{}
			}
			e := a.calls[tc.Index]
			if e == nil {
				e = new([2]string)
				a.calls[tc.Index] = e
			}
			e[0] += tc.Function.Name
			e[1] += tc.Function.Arguments
			if tc.Function.Name != "" || tc.Function.Arguments != "" {
				added = true
			}
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			a.finish = *ch.FinishReason
		}
	}
	return added
}

// successStream frames a published chunks file as the source's own test
// harness serves it (the Vercel AI SDK's prepareChunksFixtureResponse): each
// non-blank line one "data:" event, then "data: [DONE]".
func successStream(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		b.WriteString("data: ")
		b.Write(sc.Bytes())
		b.WriteString("\n\n")
	}
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

func TestPublishedSuccessAnswers(t *testing.T) {
	wants, err := filepath.Glob("testdata/success/*.want.json")
	if err != nil || len(wants) < 20 {
		t.Fatalf("%d expectations (%v)", len(wants), err)
	}
	for _, wp := range wants {
		name := strings.TrimSuffix(filepath.Base(wp), ".want.json")
		t.Run(name, func(t *testing.T) {
			var want successWant
			b, err := os.ReadFile(wp)
			if err != nil || json.Unmarshal(b, &want) != nil || want.Source == "" {
				t.Fatalf("%s: no readable expectation with its source (%v)", wp, err)
			}
			var got successAnswer
			var usage *provider.Usage
			switch {
			case strings.HasSuffix(name, ".stream"):
				base := "testdata/success/" + strings.TrimSuffix(name, ".stream")
				var body []byte
				if raw, err := os.ReadFile(base + ".sse"); err == nil {
					body = raw // a recorded wire body (probe 66o), served as recorded
				} else {
					body = successStream(t, base+".chunks.txt")
				}
				usage = replaySuccessStream(t, body, &got, want.Finish != "")
			case strings.HasSuffix(name, ".whole"):
				body, err := os.ReadFile("testdata/success/" + strings.TrimSuffix(name, ".whole") + ".json")
				if err != nil {
					t.Fatal(err)
				}
				out, raw, err := Adapter{}.ResponseUsage(body, provider.Endpoint{})
				if err != nil {
					t.Fatalf("a published answer refused: %v", err)
				}
				if usage, err = provider.ParseUsage(raw); err != nil {
					t.Fatalf("usage unread: %v", err)
				}
				// As a client reads it: the answer as one stream of chunks
				// (the form the doors and a stream client get it in).
				chunks, _, err := chat.WholeChunks(out)
				if err != nil {
					t.Fatalf("the answer as relayed does not read as a chat completion: %v", err)
				}
				for _, c := range chunks {
					got.add(t, c)
				}
			default:
				t.Fatalf("%s: neither .stream nor .whole", wp)
			}
			if u := usageFacts(usage); u != want.Usage {
				t.Errorf("usage read %+v, the transcript says %+v", u, want.Usage)
			}
			if got.text != want.Text {
				t.Errorf("text relayed (%d bytes) %.200q…, the transcript's (%d bytes) %.200q…", len(got.text), got.text, len(want.Text), want.Text)
			}
			if got.reasoning != want.Reasoning {
				t.Errorf("reasoning relayed (%d bytes) %.200q…, the transcript's (%d bytes) %.200q…", len(got.reasoning), got.reasoning, len(want.Reasoning), want.Reasoning)
			}
			if got.finish != want.Finish {
				t.Errorf("finish reason relayed %q, the transcript's %q", got.finish, want.Finish)
			}
			calls := got.toolCalls()
			if len(calls) != len(want.ToolCalls) {
				t.Fatalf("tool calls relayed %q, the transcript has %d", calls, len(want.ToolCalls))
			}
			for i, c := range want.ToolCalls {
				if calls[i] != [2]string{c.Name, c.Arguments} {
					t.Errorf("tool call %d relayed %q, the transcript's %q(%s)", i, calls[i], c.Name, c.Arguments)
				}
			}
		})
	}
}

// replaySuccessStream reads body through the adapter as dispatch does,
// gathers what is relayed into got and returns the usage the attempt
// records (the last an event reported); finishes: the transcript says a
// finish reason.
func replaySuccessStream(t *testing.T, body []byte, got *successAnswer, finishes bool) *provider.Usage {
	t.Helper()
	st := Adapter{}.Stream(bytes.NewReader(body), provider.Endpoint{})
	var usage *provider.Usage
	finished, done, content := false, false, false
	for n := 0; ; n++ {
		ev, err := st.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("event %d: %v", n, err)
		}
		if ev.Malformed || ev.Error {
			t.Fatalf("event %d read as malformed %v / an error %v: %.300s", n, ev.Malformed, ev.Error, ev.Raw)
		}
		if ev.Usage != nil {
			usage = ev.Usage
		}
		if ev.Finished {
			finished = true
		}
		if ev.Reopened {
			finished = false
		}
		if ev.Done {
			done = true
		}
		content = content || ev.Content
		for _, c := range ev.Chunks {
			if got.add(t, c) && !ev.Content {
				// Not content: held back before the commit, no restart of
				// idle_timeout after it, a stream of it "ended before content".
				t.Errorf("event %d adds to the answer but is not content: %.300s", n, c)
			}
		}
	}
	// Snowflake Cortex's recorded streams say no finish reason at all and
	// end with [DONE], which finishes them (docs/behaviour.md, "Cut
	// detection"): a finish is required where the transcript has one.
	if !content || finishes && !finished || !done {
		t.Errorf("stream read as content %v, finished %v, ended by [DONE] %v", content, finished, done)
	}
	return usage
}
