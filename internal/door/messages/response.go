package messages

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/detour-llm/detour/internal/provider/chat"
)

// completion is the part of a canonical chat.completion the door reads.
type completion struct {
	ID      string         `json:"id"`
	Model   string         `json:"model"`
	Choices []answerChoice `json:"choices"`
	Usage   *chat.Usage    `json:"usage"`
}

type answerChoice struct {
	Index   int `json:"index"`
	Message struct {
		said
		ToolCalls []chat.ToolCall `json:"tool_calls"`
	} `json:"message"`
	FinishReason string `json:"finish_reason"`
	// StopReason is vLLM's name for the stop string that ended the answer
	// (a string), or the stop token (a number, ignored).
	StopReason json.RawMessage `json:"stop_reason"`
}

// Usage is Anthropic's usage object. InputTokens excludes the tokens read
// from the prompt cache, which CacheReadInputTokens counts, and those
// written to it, which CacheCreationInputTokens counts (OpenAI's
// prompt_tokens includes both); the writes are said when an upstream
// reported some (a relay of Claude: docs/config.md, "Usage and cost").
type Usage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"` // always, as Anthropic sends it (0 when none)
	// CacheCreation splits the writes by the cache's lifetime, where the
	// upstream did (LiteLLM's cache_creation_token_details, relaying
	// Claude): Anthropic's own member.
	CacheCreation *CacheCreation `json:"cache_creation,omitempty"`
	// OutputTokensDetails says how many of OutputTokens were the model's
	// thinking, where the upstream said (Gemini's thoughtsTokenCount,
	// OpenAI's reasoning_tokens): Anthropic's member, which both Anthropic
	// SDKs read (probe 51b: it was never written, and clients counted no
	// thinking).
	OutputTokensDetails *OutputTokensDetails `json:"output_tokens_details,omitempty"`
}

// OutputTokensDetails is Anthropic's usage.output_tokens_details.
type OutputTokensDetails struct {
	ThinkingTokens int `json:"thinking_tokens"`
}

// CacheCreation is Anthropic's usage.cache_creation.
type CacheCreation struct {
	Ephemeral5m int `json:"ephemeral_5m_input_tokens"`
	Ephemeral1h int `json:"ephemeral_1h_input_tokens"`
}

// anthropicUsage is canonical usage u in Anthropic's terms.
func anthropicUsage(u *chat.Usage) Usage {
	if u == nil {
		return Usage{}
	}
	cached, written := max(u.Cached(), 0), max(u.CacheWrite(), 0)
	// What the prompt holds beyond the cache's reads and writes, each taken
	// within [0, prompt]: an upstream's counts past reason never wrap it.
	in := max(u.PromptTokens, 0)
	in -= min(max(cached, 0), in)
	in -= min(written, in)
	// A count below 0 is an upstream's nonsense, never told to the client
	// as it came (hostile review 51b).
	out := Usage{InputTokens: in, OutputTokens: u.Output(),
		CacheReadInputTokens: min(cached, max(u.PromptTokens, 0)), CacheCreationInputTokens: written}
	if r := u.CompletionTokensDetails.ReasoningTokens; r > 0 {
		out.OutputTokensDetails = &OutputTokensDetails{ThinkingTokens: min(r, out.OutputTokens)}
	}
	if d := u.PromptTokensDetails; d != nil && d.CacheCreation != nil && written > 0 {
		hour := u.CacheWrite1h() // within [0, written]
		out.CacheCreation = &CacheCreation{Ephemeral5m: written - hour, Ephemeral1h: hour}
	}
	return out
}

// Block is one content block of an answer.
type Block struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text,omitempty"`
	Thinking  *string         `json:"thinking,omitempty"`
	Signature *string         `json:"signature,omitempty"`
	Data      string          `json:"data,omitempty"` // redacted_thinking's
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
}

// Message is Anthropic's answer body.
type Message struct {
	ID           string  `json:"id"`
	Type         string  `json:"type"`
	Role         string  `json:"role"`
	Model        string  `json:"model"`
	Content      []Block `json:"content"`
	StopReason   *string `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
	Usage        Usage   `json:"usage"`
}

// Answer translates a canonical chat.completion body into an Anthropic
// Message body. model is what the client asked for, used when the body
// names none. Only the first choice is read (the door never asks for n>1).
// An error means the body is not a usable completion: no choices, or a
// tool call whose arguments are not a JSON object in an answer that was
// not cut at its length limit (one that was keeps the call's whole members:
// chat.CutArguments).
func Answer(body []byte, model string) ([]byte, error) {
	var c completion
	if err := json.Unmarshal(body, &c); err != nil {
		return nil, fmt.Errorf("messages: completion: %w", err)
	}
	if len(c.Choices) == 0 {
		return nil, errors.New("messages: completion has no choices")
	}
	ch := &c.Choices[0]
	m := Message{ID: c.ID, Type: "message", Role: "assistant", Model: c.Model, Content: []Block{},
		Usage: anthropicUsage(c.Usage)}
	if m.ID == "" {
		m.ID = NewID()
	}
	if m.Model == "" {
		m.Model = model
	}
	msg := &ch.Message
	if r := msg.reasoning(); r != "" {
		m.Content = append(m.Content, Block{Type: "thinking", Thinking: &r, Signature: chat.Ptr(ReasoningSignature)})
	}
	for _, t := range msg.texts() {
		if t != nil && *t != "" {
			m.Content = append(m.Content, Block{Type: "text", Text: t})
		}
	}
	for i, tc := range msg.ToolCalls {
		input, err := chat.Arguments(tc.Function.Arguments)
		switch {
		case err == nil:
		case ch.FinishReason == chat.FinishLength:
			// Cut at the length limit inside the call: the incomplete
			// block stays, as Anthropic's does (chat.CutArguments).
			input = chat.CutArguments(tc.Function.Arguments)
		default:
			return nil, fmt.Errorf("messages: tool_calls.%d: %w", i, err)
		}
		id := tc.ID
		if id == "" {
			id = NewToolID()
		} else {
			id = chat.AnthropicToolID(id) // the client hands it back, maybe to Claude itself
		}
		if sig := chat.TaggedSignature(tc.ExtraContent); sig != "" {
			m.Content = append(m.Content, Block{Type: "redacted_thinking", Data: sig}) // docs/doors.md, "Gemini thought signatures"
		}
		m.Content = append(m.Content, Block{Type: "tool_use", ID: id, Name: tc.Function.Name, Input: input})
	}
	reason, seq := StopReason(ch.FinishReason, ch.StopReason, len(msg.ToolCalls) > 0, msg.refused())
	m.StopReason = &reason
	m.StopSequence = seq
	return json.Marshal(m)
}

// said is what a canonical answer's message, or a chunk's delta
// (chat.StreamDelta's Said), says that the door reads: text, a refusal,
// and reasoning text.
type said chat.Said

// reasoning is the reasoning text an OpenAI-compatible upstream sent
// (reasoning_content as DeepSeek and vLLM name it, reasoning as OpenRouter
// does), "" when none.
func (s *said) reasoning() string { return (*chat.Said)(s).Thinking() }

// texts are the content and the refusal, each a text block (or delta) for
// the client when not empty.
func (s *said) texts() [2]*string { return [2]*string{s.Content, s.Refusal} }

// refused reports refusal text: the model declined (OpenAI's structured
// outputs put it in refusal, not content).
func (s *said) refused() bool { return s.Refusal != nil && *s.Refusal != "" }

// StopReason maps a finish_reason to Anthropic's stop_reason: stop →
// end_turn (stop_sequence when the upstream named the stop string it met,
// as vLLM does in "stop_reason"), length → max_tokens, tool_calls and
// function_call → tool_use, content_filter → refusal. Anything else (or
// none) is end_turn, or tool_use when the answer called tools, or refusal
// when it carried refusal text.
func StopReason(finish string, stopReason json.RawMessage, calledTools, refused bool) (reason string, sequence *string) {
	switch finish {
	case chat.FinishLength:
		return "max_tokens", nil
	case chat.FinishToolCalls, "function_call":
		return "tool_use", nil
	case chat.FinishContentFilter:
		return "refusal", nil
	}
	switch {
	case calledTools:
		return "tool_use", nil
	case refused:
		// OpenAI's refusal text (finish "stop"): a client that reads
		// only stop_reason (@ai-sdk/anthropic, @langchain/anthropic)
		// would parse "I'm sorry…" as its structured answer (probe c50b).
		return "refusal", nil
	}
	var s string
	if len(stopReason) > 0 && stopReason[0] == '"' && json.Unmarshal(stopReason, &s) == nil && s != "" {
		return "stop_sequence", &s
	}
	return "end_turn", nil
}

// NewID returns "msg_" and 24 random hex digits, for answers whose upstream
// gave no id.
func NewID() string { return "msg_" + randHex() }

// NewToolID returns "toolu_" and 24 random hex digits, for tool calls whose
// upstream gave no id.
func NewToolID() string { return "toolu_" + randHex() }

func randHex() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
