package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
)

// Review 63o: the SDKs' stream accumulators over the rich fakes, and 50
// streams at once through one Detour.

func p63oSDKTurn() p63oTurn {
	return p63oTurn{
		Thinking: []string{"The user wants ", "two lookups; ", "I will call both."},
		Sig:      "p63o-sdk-signature-Q2hhbmdlTWU=",
		Text:     []string{"Checking ", "Paris and ", "Tōkyō ", "— one moment. ", `"quoted" \ back`},
		Calls: []p63oCall{
			{ID: "call_p63o_a", Name: "get_weather", Args: `{"city":"Paris","units":"celsius","days":[1,2,3]}`},
			{ID: "call_p63o_b", Name: "get_weather", Args: `{"city":"Tōkyō","units":"celsius","note":"ünïcode \"q\""}`},
		},
		In: 1500, Cached: 1000, Out: 40, Thoughts: 25,
	}
}

func p63oSDKPlan(r p63oReq) p63oTurn { return p63oSDKTurn() }

var p63oWeatherTool = map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}

func p63oJSONEq(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func TestReview63oAnthropicSDKAccumulator(t *testing.T) {
	want := p63oSDKTurn()
	for _, route := range []string{"r-gem", "r-oai", "r-ant"} {
		t.Run(route, func(t *testing.T) {
			g, _, _, _ := startP63oWith(t, p63oSDKPlan)
			c := anthropic.NewClient(aoption.WithBaseURL(g.URL), aoption.WithAPIKey("k"), aoption.WithMaxRetries(0))
			s := c.Messages.NewStreaming(context.Background(), anthropic.MessageNewParams{
				Model: anthropic.Model(route), MaxTokens: 4096,
				Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("weather in Paris and Tokyo?"))},
				Tools: []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{Name: "get_weather",
					InputSchema: anthropic.ToolInputSchemaParam{Properties: p63oWeatherTool["properties"]}}}},
			})
			var msg anthropic.Message
			n := 0
			for s.Next() {
				n++
				if err := msg.Accumulate(s.Current()); err != nil {
					t.Fatalf("accumulate: %v", err)
				}
			}
			if err := s.Err(); err != nil {
				t.Fatalf("stream: %v", err)
			}
			b, _ := json.Marshal(msg.Content)
			t.Logf("%d events; stop %q; usage %s; content %s", n, msg.StopReason, msg.Usage.RawJSON(), b)
			var text, thinking string
			var calls []anthropic.ContentBlockUnion
			for _, blk := range msg.Content {
				switch blk.Type {
				case "text":
					text += blk.Text
				case "thinking":
					thinking += blk.Thinking
				case "tool_use":
					calls = append(calls, blk)
				}
			}
			if text != strings.Join(want.Text, "") {
				t.Errorf("text %q, want %q", text, strings.Join(want.Text, ""))
			}
			if route != "r-gem" && thinking != strings.Join(want.Thinking, "") {
				t.Errorf("thinking %q, want %q", thinking, strings.Join(want.Thinking, ""))
			}
			if len(calls) != 2 {
				t.Fatalf("%d tool_use blocks, want 2", len(calls))
			}
			for i, c := range calls {
				if c.Name != "get_weather" || !p63oJSONEq(string(c.Input), want.Calls[i].Args) {
					t.Errorf("call %d: %s %s, want %s", i, c.Name, c.Input, want.Calls[i].Args)
				}
			}
			if msg.StopReason != "tool_use" {
				t.Errorf("stop_reason %q", msg.StopReason)
			}
			u := msg.Usage
			if u.InputTokens != 500 || u.CacheReadInputTokens != 1000 || u.OutputTokens != 65 {
				t.Errorf("usage input %d cache_read %d output %d, want 500/1000/65", u.InputTokens, u.CacheReadInputTokens, u.OutputTokens)
			}
		})
	}
}

func TestReview63oOpenAISDKAccumulator(t *testing.T) {
	want := p63oSDKTurn()
	for _, route := range []string{"r-ant", "r-gem", "r-oai"} {
		t.Run(route, func(t *testing.T) {
			g, _, _, _ := startP63oWith(t, p63oSDKPlan)
			c := openai.NewClient(option.WithBaseURL(g.URL+"/v1"), option.WithAPIKey("k"), option.WithMaxRetries(0))
			s := c.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
				Model:         openai.ChatModel(route),
				Messages:      []openai.ChatCompletionMessageParamUnion{openai.UserMessage("weather in Paris and Tokyo?")},
				Tools:         []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "get_weather", Parameters: p63oWeatherTool})},
				StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
			})
			var acc openai.ChatCompletionAccumulator
			var finished []string
			n := 0
			for s.Next() {
				n++
				if !acc.AddChunk(s.Current()) {
					t.Fatalf("accumulator refused chunk %d: %s", n, s.Current().RawJSON())
				}
				if tc, ok := acc.JustFinishedToolCall(); ok {
					finished = append(finished, tc.Name+" "+tc.Arguments)
				}
			}
			if err := s.Err(); err != nil {
				t.Fatalf("stream: %v", err)
			}
			if len(acc.Choices) != 1 {
				t.Fatalf("%d choices", len(acc.Choices))
			}
			m := acc.Choices[0].Message
			t.Logf("%d chunks; finish %q; content %q; usage %s; finished %q", n, acc.Choices[0].FinishReason, m.Content, acc.Usage.RawJSON(), finished)
			if m.Content != strings.Join(want.Text, "") {
				t.Errorf("content %q, want %q", m.Content, strings.Join(want.Text, ""))
			}
			if len(m.ToolCalls) != 2 {
				t.Fatalf("%d tool calls", len(m.ToolCalls))
			}
			for i, tc := range m.ToolCalls {
				if tc.Function.Name != "get_weather" || !p63oJSONEq(tc.Function.Arguments, want.Calls[i].Args) {
					t.Errorf("call %d: %s %s, want %s", i, tc.Function.Name, tc.Function.Arguments, want.Calls[i].Args)
				}
			}
			if len(finished) != 2 {
				t.Errorf("JustFinishedToolCall fired %d times, want 2", len(finished))
			}
			u := acc.Usage
			t.Logf("usage: prompt %d cached %d completion %d reasoning %d total %d", u.PromptTokens, u.PromptTokensDetails.CachedTokens, u.CompletionTokens, u.CompletionTokensDetails.ReasoningTokens, u.TotalTokens)
			if route == "r-ant" { // Anthropic's usage has no reasoning count of its own
				u.CompletionTokensDetails.ReasoningTokens = 25
			}
			if u.PromptTokens != 1500 || u.PromptTokensDetails.CachedTokens != 1000 || u.CompletionTokens != 65 || u.CompletionTokensDetails.ReasoningTokens != 25 || u.TotalTokens != 1565 {
				t.Errorf("usage %s, want prompt 1500 (cached 1000), completion 65 (reasoning 25), total 1565", u.RawJSON())
			}
			if acc.Choices[0].FinishReason != "tool_calls" {
				t.Errorf("finish %q", acc.Choices[0].FinishReason)
			}
		})
	}
}

var p63oTagRe = regexp.MustCompile(`p63o-tag-s(\d+)`)

// p63oConcPlan answers each stream with 300 pieces naming its tag, and a
// call whose arguments name it too.
func p63oConcPlan(r p63oReq) p63oTurn {
	m := p63oTagRe.FindSubmatch(r.Body)
	tag := "none"
	if m != nil {
		tag = "s" + string(m[1])
	}
	var parts []string
	for i := range 300 {
		parts = append(parts, fmt.Sprintf("%s:%03d ", tag, i))
	}
	return p63oTurn{Text: parts, Thinking: []string{"think " + tag}, Sig: "sig-" + tag,
		Calls: []p63oCall{{ID: "call_" + tag, Name: "get_weather", Args: `{"city":"` + tag + `"}`}},
		In:    100, Out: 300, EventDelay: 200 * time.Microsecond}
}

func p63oWantConc(tag string) string {
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "%s:%03d ", tag, i)
	}
	return b.String()
}

// TestReview63oFiftyStreams: 50 streams at once through one Detour,
// Messages-door clients on Gemini and OpenAI targets, chat clients on
// Anthropic and Gemini targets.
func TestReview63oFiftyStreams(t *testing.T) {
	g, gem, oai, ant := startP63oWith(t, p63oConcPlan)
	ac := anthropic.NewClient(aoption.WithBaseURL(g.URL), aoption.WithAPIKey("k"), aoption.WithMaxRetries(0))
	oc := openai.NewClient(option.WithBaseURL(g.URL+"/v1"), option.WithAPIKey("k"), option.WithMaxRetries(0))
	routes := []string{"r-gem", "r-oai", "r-ant", "r-gem"}
	var wg sync.WaitGroup
	errs := make(chan string, 200)
	start := make(chan struct{})
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tag := fmt.Sprintf("s%02d", i)
			route := routes[i%len(routes)]
			<-start
			prompt := "p63o-tag-" + tag + " go"
			var text, args string
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if i%10 == 9 { // a client that leaves mid-stream
				s := ac.Messages.NewStreaming(ctx, anthropic.MessageNewParams{
					Model: anthropic.Model(route), MaxTokens: 4096,
					Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(prompt))},
				})
				n := 0
				for s.Next() {
					if n++; n == 40 {
						cancel()
					}
				}
				return
			}
			if i%3 == 2 {
				rs := oc.Responses.NewStreaming(ctx, responses.ResponseNewParams{Model: route,
					Input: responses.ResponseNewParamsInputUnion{OfString: openai.String(prompt)},
					Tools: []responses.ToolUnionParam{responses.ToolParamOfFunction("get_weather", p63oWeatherTool, false)}})
				var racc responses.ResponseAccumulator
				var seq int64 = -1
				for rs.Next() {
					ev := rs.Current()
					if ev.SequenceNumber != seq+1 {
						errs <- fmt.Sprintf("%s %s: sequence %d after %d", tag, route, ev.SequenceNumber, seq)
					}
					seq = ev.SequenceNumber
					var sev responses.ResponsesServerEventUnion
					if err := json.Unmarshal([]byte(ev.RawJSON()), &sev); err == nil {
						if err := racc.AddEvent(sev); err != nil {
							errs <- tag + ": ResponseAccumulator: " + err.Error()
							return
						}
					}
					if ev.Type == "response.output_text.delta" {
						text += ev.Delta
					}
					if ev.Type == "response.function_call_arguments.delta" {
						args += ev.Delta
					}
					if ev.Type == "error" {
						errs <- tag + ": error event " + ev.Message
					}
				}
				if err := rs.Err(); err != nil {
					errs <- tag + " " + route + ": " + err.Error()
					return
				}
			} else if i%2 == 0 {
				s := ac.Messages.NewStreaming(context.Background(), anthropic.MessageNewParams{
					Model: anthropic.Model(route), MaxTokens: 4096,
					Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(prompt))},
					Tools: []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{Name: "get_weather",
						InputSchema: anthropic.ToolInputSchemaParam{Properties: p63oWeatherTool["properties"]}}}},
				})
				var msg anthropic.Message
				for s.Next() {
					if err := msg.Accumulate(s.Current()); err != nil {
						errs <- tag + ": accumulate: " + err.Error()
						return
					}
				}
				if err := s.Err(); err != nil {
					errs <- tag + " " + route + ": " + err.Error()
					return
				}
				for _, b := range msg.Content {
					switch b.Type {
					case "text":
						text += b.Text
					case "tool_use":
						args += string(b.Input)
					}
				}
			} else {
				s := oc.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
					Model: openai.ChatModel(route), Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)},
					Tools:         []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "get_weather", Parameters: p63oWeatherTool})},
					StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
				})
				var acc openai.ChatCompletionAccumulator
				for s.Next() {
					if !acc.AddChunk(s.Current()) {
						errs <- tag + ": chunk refused"
						return
					}
				}
				if err := s.Err(); err != nil {
					errs <- tag + " " + route + ": " + err.Error()
					return
				}
				if len(acc.Choices) > 0 {
					text = acc.Choices[0].Message.Content
					for _, tc := range acc.Choices[0].Message.ToolCalls {
						args += tc.Function.Arguments
					}
				}
			}
			if text != p63oWantConc(tag) {
				errs <- fmt.Sprintf("%s %s: text differs: %d bytes, head %.60q", tag, route, len(text), text)
			}
			if !p63oJSONEq(args, `{"city":"`+tag+`"}`) {
				errs <- fmt.Sprintf("%s %s: args %q", tag, route, args)
			}
		}()
	}
	began := time.Now()
	close(start)
	wg.Wait()
	close(errs)
	t.Logf("50 streams in %v; events written by the fakes: gem %d oai %d ant %d", time.Since(began), gem.written.Load(), oai.written.Load(), ant.written.Load())
	for e := range errs {
		t.Error(e)
	}
	// After the streams: no handler waits in offstack.Run, at most
	// maxIdle (16) workers stay, and no stream's relay is left.
	var waiting, workers, relays int
	for try := 0; try < 50; try++ {
		buf := make([]byte, 8<<20)
		all := string(buf[:runtime.Stack(buf, true)])
		waiting, workers, relays = 0, 0, 0
		for _, gr := range strings.Split(all, "\n\n") {
			switch {
			case strings.Contains(gr, "offstack.work("):
				workers++
			case strings.Contains(gr, "offstack.Run["):
				waiting++
			}
			if strings.Contains(gr, "internal/server.") && strings.Contains(gr, "Stream") {
				relays++
			}
		}
		if waiting == 0 && workers <= 16 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("after: %d handlers in offstack.Run, %d workers, %d relays", waiting, workers, relays)
	// Relays are logged, not asserted: another test's server may still be
	// draining in the same process.
	if waiting != 0 || workers > 16 {
		t.Errorf("left behind: %d handlers in offstack.Run, %d workers, %d relays", waiting, workers, relays)
	}
}
