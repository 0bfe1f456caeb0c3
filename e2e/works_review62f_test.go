package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

const p62fPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

// p62fRich is a chat request touching most of what a client sends.
const p62fRich = `{"model":"%s","messages":[
 {"role":"system","content":"Be brief."},
 {"role":"developer","content":[{"type":"text","text":"Use metric."}]},
 {"role":"user","content":[{"type":"text","text":"Weather in Paris and Rome? See these."},
   {"type":"image_url","image_url":{"url":"data:image/png;base64,` + p62fPNG + `","detail":"low"}},
   {"type":"image_url","image_url":{"url":"https://example.com/pic.webp"}},
   {"type":"input_audio","input_audio":{"data":"UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=","format":"wav"}},
   {"type":"file","file":{"filename":"a.pdf","file_data":"data:application/pdf;base64,JVBERi0xLjQK"}}]},
 {"role":"assistant","content":"Checking.","tool_calls":[
   {"id":"c_p","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},
   {"id":"c_r","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Rome\"}"}}]},
 {"role":"tool","tool_call_id":"c_r","content":"{\"c\":20}"},
 {"role":"tool","tool_call_id":"c_p","content":[{"type":"text","text":"14C"}]},
 {"role":"user","content":"And tomorrow?"}],
 "tools":[{"type":"function","function":{"name":"get_weather","strict":true,"parameters":{"type":"object","additionalProperties":false,
   "properties":{"city":{"type":"string","description":"city"},"day":{"type":["string","null"],"format":"date"},
   "unit":{"anyOf":[{"type":"string","enum":["c","f"]},{"type":"null"}]}},"required":["city","day","unit"]}}}],
 "tool_choice":"required","parallel_tool_calls":false,
 "stop":["a","b","c","d","e","f"],"n":2,"seed":7,"temperature":0.3,"top_p":0.9,"max_completion_tokens":300,
 "reasoning_effort":"low","user":"u1"%s}`

const p62fTwoCands = `{"candidates":[
 {"content":{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris","day":"2026-12-08","unit":"c"}},"thoughtSignature":"c2lnMQ=="},{"functionCall":{"name":"get_weather","args":{"city":"Rome","day":"2026-12-08","unit":"c"}}}]},"finishReason":"STOP","index":0},
 {"content":{"role":"model","parts":[{"text":"thinking...","thought":true},{"text":"Mild in both."}]},"finishReason":"STOP","index":1}],
 "usageMetadata":{"promptTokenCount":120,"cachedContentTokenCount":100,"candidatesTokenCount":30,"thoughtsTokenCount":50,"totalTokenCount":200,
   "promptTokensDetails":[{"modality":"TEXT","tokenCount":100},{"modality":"IMAGE","tokenCount":20}]},
 "modelVersion":"gemini-2.5-flash","responseId":"resp-62f"}`

// The rich request is one Gemini takes, and the answer with two candidates
// reaches openai-go as OpenAI documents it.
func TestReview62fRichRequestWhole(t *testing.T) {
	g, fs, refused := p62fGateway(t, script(upstreamtest.Step{Body: p62fTwoCands}))
	r := g.raw(t, http.MethodPost, "/v1/chat/completions", fmtRich("g25", ""), "Authorization", "Bearer k")
	if r.Status != 200 {
		t.Fatalf("%d %s (refused %q)", r.Status, r.Body, *refused)
	}
	reqs := fs["gemini"].Requests()
	t.Logf("sent %s", reqs[0].Body)
	var c openai.ChatCompletion
	if err := json.Unmarshal(r.Body, &c); err != nil {
		t.Fatal(err)
	}
	t.Logf("answer %s", r.Body)
	if len(c.Choices) != 2 || len(c.Choices[0].Message.ToolCalls) != 2 || c.Choices[0].FinishReason != "tool_calls" ||
		c.Choices[1].Message.Content != "Mild in both." || c.Choices[1].FinishReason != "stop" {
		t.Errorf("choices %+v", c.Choices)
	}
	u := c.Usage
	if u.PromptTokens != 120 || u.PromptTokensDetails.CachedTokens != 100 || u.CompletionTokens != 80 || u.CompletionTokensDetails.ReasoningTokens != 50 || u.TotalTokens != 200 {
		t.Errorf("usage %+v", u)
	}
}

func fmtRich(model, extra string) string {
	return strings.Replace(strings.Replace(p62fRich, "%s", model, 1), "%s", extra, 1)
}

// Streamed, n=2, the candidates finishing in different chunks, and the
// openai-go accumulator reading it.
func TestReview62fStreamTwoCandidates(t *testing.T) {
	ev := []string{
		`{"candidates":[{"content":{"role":"model","parts":[{"text":"Par"}]},"index":0},{"content":{"role":"model","parts":[{"text":"Ro"}]},"index":1}],"usageMetadata":{"promptTokenCount":12,"totalTokenCount":12},"modelVersion":"gemini-2.5-flash","responseId":"s62f"}`,
		`{"candidates":[{"content":{"role":"model","parts":[{"text":"is"}]},"finishReason":"STOP","index":0},{"content":{"role":"model","parts":[{"text":"me"}]},"index":1}],"usageMetadata":{"promptTokenCount":12,"candidatesTokenCount":3,"totalTokenCount":15},"modelVersion":"gemini-2.5-flash","responseId":"s62f"}`,
		`{"candidates":[{"content":{"role":"model","parts":[{"text":"!"}]},"finishReason":"STOP","index":1}],"usageMetadata":{"promptTokenCount":12,"candidatesTokenCount":5,"thoughtsTokenCount":7,"totalTokenCount":24},"modelVersion":"gemini-2.5-flash","responseId":"s62f"}`,
	}
	g, _, refused := p62fGateway(t, script(upstreamtest.Step{Events: ev}))
	st := sdk(g).Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{Model: "g25",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("two cities")}, N: openai.Int(2),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}})
	var acc openai.ChatCompletionAccumulator
	for st.Next() {
		acc.AddChunk(st.Current())
	}
	if err := st.Err(); err != nil {
		t.Fatalf("%v (refused %q)", err, *refused)
	}
	c := acc.ChatCompletion
	if len(c.Choices) != 2 || c.Choices[0].Message.Content != "Paris" || c.Choices[1].Message.Content != "Rome!" {
		t.Errorf("choices %+v", c.Choices)
	}
	if c.Usage.TotalTokens != 24 || c.Usage.CompletionTokensDetails.ReasoningTokens != 7 {
		t.Errorf("usage %+v", c.Usage)
	}
}

// A filter that cuts a streamed answer midway: the client sees the text
// so far and finish_reason content_filter.
func TestReview62fStreamSafetyMidway(t *testing.T) {
	ev := []string{
		`{"candidates":[{"content":{"role":"model","parts":[{"text":"Here is how"}]},"index":0}],"modelVersion":"gemini-2.5-flash"}`,
		`{"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"SAFETY","index":0,"safetyRatings":[{"category":"HARM_CATEGORY_DANGEROUS_CONTENT","probability":"HIGH","blocked":true}]}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":3,"totalTokenCount":8},"modelVersion":"gemini-2.5-flash"}`,
	}
	g, _, _ := p62fGateway(t, script(upstreamtest.Step{Events: ev}))
	st := sdk(g).Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{Model: "g25",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("x")}})
	var acc openai.ChatCompletionAccumulator
	for st.Next() {
		acc.AddChunk(st.Current())
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	c := acc.ChatCompletion
	if len(c.Choices) != 1 || c.Choices[0].Message.Content != "Here is how" || c.Choices[0].FinishReason != "content_filter" {
		t.Errorf("choices %+v", c.Choices)
	}
}
