package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/chat"
)

// now stamps "created"; tests replace it.
var now = time.Now

// answer is the part of a Messages answer the adapter reads.
type answer struct {
	Type       string          `json:"type"`
	ID         string          `json:"id"`
	Model      string          `json:"model"`
	Content    []answerBlock   `json:"content"`
	StopReason string          `json:"stop_reason"`
	Usage      *usage          `json:"usage"`
	Error      json.RawMessage `json:"error"`
}

type answerBlock struct {
	Type  string          `json:"type"`
	Text  string          `json:"text"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type usage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	// CacheCreation splits CacheCreationInputTokens by the cache's lifetime
	// (the 1-hour writes are billed at twice the input price, the 5-minute
	// ones at 1.25 times it: https://platform.claude.com/docs/en/about-claude/pricing);
	// nil when the answer does not say. Kept raw and read leniently
	// (provider.ParseCacheCreation): a shape Detour cannot read fails
	// nothing, it only leaves the split unknown.
	CacheCreation json.RawMessage `json:"cache_creation"`
	// OutputTokensDetails counts the output tokens the model spent on its
	// thinking (Anthropic's usage.output_tokens_details.thinking_tokens,
	// within output_tokens); nil when the answer does not say.
	OutputTokensDetails *struct {
		ThinkingTokens int `json:"thinking_tokens"`
	} `json:"output_tokens_details"`
	// Speed is "fast" for an answer served in fast mode, which Anthropic
	// bills at six times the model's price
	// (https://platform.claude.com/docs/en/build-with-claude/fast-mode).
	Speed string `json:"speed"`
	// ServerToolUse counts the uses of Anthropic's server tools the answer
	// ran ({"web_search_requests": 1, "web_fetch_requests": 0}): web search
	// is billed per use beside the tokens, "$10 per 1,000 searches"
	// (https://platform.claude.com/docs/en/about-claude/pricing). Kept raw
	// and read leniently (serverTools): a shape Detour cannot read fails
	// nothing, it only counts no use. nil when the answer does not say.
	ServerToolUse json.RawMessage `json:"server_tool_use"`
}

// serverTools reads a usage's server_tool_use: its web search and web
// fetch counts, each 0 where it is not a whole number of at most 18
// digits (provider.Count; a fraction was floored before, as every count
// is: provider.WholeCounts), and both 0 where it is not an object.
func serverTools(raw json.RawMessage) (searches, fetches int) {
	var c struct {
		WebSearchRequests provider.Count `json:"web_search_requests"`
		WebFetchRequests  provider.Count `json:"web_fetch_requests"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &c) != nil {
		return 0, 0
	}
	return int(c.WebSearchRequests), int(c.WebFetchRequests)
}

// UnmarshalJSON reads a count that is not a plain integer (3.0, 37.25) as
// its floor (provider.WholeCounts): one such count failed the whole
// message or stream event around it (hostile 52). Where the answer lists
// usage.iterations (server-side compaction's extra sampling step), each
// count is their sum: "The top-level input_tokens and output_tokens do
// not include compaction iteration usage … To calculate total tokens
// consumed and billed for a request, sum across all entries in the
// usage.iterations array" (Anthropic's compaction guide); before round 53
// a key paid for the last step alone (hostile 53: $0.14 of a $1.13 bill).
func (u *usage) UnmarshalJSON(b []byte) error {
	type plain usage
	var w struct {
		plain
		Iterations []struct {
			InputTokens              int `json:"input_tokens"`
			OutputTokens             int `json:"output_tokens"`
			CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
			CacheReadInputTokens     int `json:"cache_read_input_tokens"`
		} `json:"iterations"`
	}
	if err := json.Unmarshal(provider.WholeCounts(b), &w); err != nil {
		return err
	}
	*u = usage(w.plain)
	if len(w.Iterations) == 0 {
		return nil
	}
	var in, out, write, read int
	for _, it := range w.Iterations {
		in += min(max(it.InputTokens, 0), 1<<53)
		out += min(max(it.OutputTokens, 0), 1<<53)
		write += min(max(it.CacheCreationInputTokens, 0), 1<<53)
		read += min(max(it.CacheReadInputTokens, 0), 1<<53)
	}
	// Never less than the top level says: the sum is the bill where the
	// steps are listed whole.
	u.InputTokens, u.OutputTokens = max(u.InputTokens, in), max(u.OutputTokens, out)
	u.CacheCreationInputTokens, u.CacheReadInputTokens = max(u.CacheCreationInputTokens, write), max(u.CacheReadInputTokens, read)
	return nil
}

// prompt counts every input token, cached or not, as OpenAI's prompt_tokens
// does.
func (u *usage) prompt() int {
	n := 0
	for _, v := range [...]int{u.InputTokens, u.CacheCreationInputTokens, u.CacheReadInputTokens} {
		n += min(max(v, 0), 1<<53) // three of at most 2^53 cannot wrap
	}
	return n
}

// output is the output count, bounded as prompt's terms are.
func (u *usage) output() int { return min(max(u.OutputTokens, 0), 1<<53) }

// details is the cache reads and writes as OpenAI's prompt_tokens_details,
// the writes named as OpenRouter names them (cache_write_tokens), split by
// the cache's lifetime as LiteLLM names it (cache_creation_token_details)
// when the answer says; nil when neither. Writes are billed above plain input
// (https://platform.claude.com/docs/en/about-claude/pricing), so they are
// counted apart (docs/config.md, "Usage and cost").
func (u *usage) details() *provider.TokenDetails {
	if u.CacheReadInputTokens <= 0 && u.CacheCreationInputTokens <= 0 {
		return nil
	}
	d := &provider.TokenDetails{CachedTokens: max(u.CacheReadInputTokens, 0),
		CacheWriteTokens: max(u.CacheCreationInputTokens, 0)}
	if c := provider.ParseCacheCreation(u.CacheCreation); c != nil && d.CacheWriteTokens > 0 {
		h := min(max(c.Ephemeral1h, 0), d.CacheWriteTokens)
		d.CacheCreation = &provider.CacheCreation{Ephemeral5m: d.CacheWriteTokens - h, Ephemeral1h: h}
	}
	return d
}

// openai is u in OpenAI's terms.
func (u *usage) openai() *provider.Usage {
	p := u.prompt()
	out := &provider.Usage{PromptTokens: p, CompletionTokens: u.output(),
		TotalTokens: p + u.output(), PromptTokensDetails: u.details(), Fast: u.Speed == "fast"}
	out.WebSearches, out.WebFetches = serverTools(u.ServerToolUse)
	if d := u.OutputTokensDetails; d != nil && d.ThinkingTokens > 0 { // within the output, as reasoning_tokens is
		out.CompletionTokensDetails = &provider.OutputDetails{ReasoningTokens: min(d.ThinkingTokens, u.output())}
	}
	return out
}

// Response translates a Messages answer into a chat.completion. An error
// body, or anything that is not a message, is an error.
func (Adapter) Response(body []byte, ep provider.Endpoint) ([]byte, error) {
	var a answer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, fmt.Errorf("anthropic: %w", err)
	}
	if a.Type == "error" || len(a.Error) > 0 && string(a.Error) != "null" {
		return nil, errors.New("anthropic: answer is an error")
	}
	if a.Type != "message" && a.Content == nil {
		return nil, errors.New("anthropic: answer is not a message")
	}
	var text strings.Builder
	var calls []chat.ToolCall
	hasText := false
	var answer *string // the answer tool's input as text (structured.go)
	for _, b := range a.Content {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
			hasText = true
		case "tool_use":
			if reserved(b.Name) {
				if answer == nil {
					answer = chat.Ptr(answerText(b.Name, b.Input))
				}
				continue
			}
			args := "{}"
			var buf bytes.Buffer
			if json.Compact(&buf, b.Input) == nil && buf.String() != "null" {
				args = buf.String()
			}
			calls = append(calls, chat.ToolCall{ID: b.ID, Type: "function",
				Function: chat.FunctionCall{Name: b.Name, Arguments: args}})
		}
	}
	msg := chat.ResponseMessage{Role: "assistant", ToolCalls: calls}
	finish := finishReason(a.StopReason)
	switch {
	case answer != nil:
		// The structured answer is the content, alone: text beside it
		// would not parse.
		msg.Content = answer
		if len(calls) == 0 && finish == chat.FinishToolCalls {
			finish = chat.FinishStop
		}
	case hasText || len(calls) == 0:
		msg.Content = chat.Ptr(text.String())
	}
	c := chat.Completion{
		ID:      a.ID,
		Object:  "chat.completion",
		Created: now().Unix(),
		Model:   a.Model,
		Choices: []chat.Choice{{Message: msg, FinishReason: finish}},
	}
	if c.ID == "" {
		c.ID = chat.NewID()
	}
	if c.Model == "" {
		c.Model = ep.Model
	}
	if a.Usage != nil {
		c.Usage = a.Usage.openai()
	}
	return chat.Marshal(c), nil
}

// finishReason maps stop_reason to OpenAI's finish_reason.
func finishReason(stop string) string {
	switch stop {
	case "max_tokens", "model_context_window_exceeded":
		return chat.FinishLength
	case "tool_use":
		return chat.FinishToolCalls
	case "refusal":
		return chat.FinishContentFilter
	default: // end_turn, stop_sequence, pause_turn, and whatever comes next
		return chat.FinishStop
	}
}
