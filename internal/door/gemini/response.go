package gemini

import (
	"encoding/json"
	"errors"

	"github.com/detour-llm/detour/internal/provider/chat"
)

// GenerateContentResponse, as the door writes it: one candidate, Gemini's
// finish reasons, usageMetadata, modelVersion (the route the client named)
// and responseId (the canonical answer's id).
type outAnswer struct {
	Candidates    []outCandidate `json:"candidates"`
	UsageMetadata *outUsage      `json:"usageMetadata,omitempty"`
	ModelVersion  string         `json:"modelVersion"`
	ResponseID    string         `json:"responseId,omitempty"`
}

type outCandidate struct {
	Content      *outContent `json:"content,omitempty"`
	FinishReason string      `json:"finishReason,omitempty"`
	Index        int         `json:"index"`
}

type outContent struct {
	Role  string    `json:"role"`
	Parts []outPart `json:"parts"`
}

type outPart struct {
	Text             *string  `json:"text,omitempty"`
	Thought          bool     `json:"thought,omitempty"`
	InlineData       *outBlob `json:"inlineData,omitempty"`
	FunctionCall     *outCall `json:"functionCall,omitempty"`
	ThoughtSignature string   `json:"thoughtSignature,omitempty"`
}

type outBlob struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"`
}

type outCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type outUsage struct {
	PromptTokenCount        int `json:"promptTokenCount"`
	CandidatesTokenCount    int `json:"candidatesTokenCount"`
	TotalTokenCount         int `json:"totalTokenCount"`
	ThoughtsTokenCount      int `json:"thoughtsTokenCount,omitempty"`
	CachedContentTokenCount int `json:"cachedContentTokenCount,omitempty"`
}

// completion is the part of a canonical chat.completion the door reads.
type completion struct {
	ID      string `json:"id"`
	Choices []struct {
		Message struct {
			chat.Said
			ToolCalls []chat.ToolCall `json:"tool_calls"`
			Images    []chat.Part     `json:"images"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *chat.Usage `json:"usage"`
}

// Answer translates a canonical chat.completion into a
// GenerateContentResponse for the route model; the model's reasoning
// becomes a thought part first when thoughts (the client asked for them).
func Answer(body []byte, model string, thoughts bool) ([]byte, error) {
	var c completion
	if err := json.Unmarshal(body, &c); err != nil {
		return nil, err
	}
	if len(c.Choices) == 0 {
		return nil, errors.New("gemini door: the answer has no choices")
	}
	ch := &c.Choices[0]
	m := &ch.Message
	var parts []outPart
	if r := m.Thinking(); thoughts && r != "" {
		parts = append(parts, outPart{Text: &r, Thought: true})
	}
	if m.Content != nil && *m.Content != "" {
		parts = append(parts, outPart{Text: m.Content})
	} else if m.Refusal != nil && *m.Refusal != "" {
		parts = append(parts, outPart{Text: m.Refusal})
	}
	for _, img := range m.Images {
		if p, ok := imagePart(img); ok {
			parts = append(parts, p)
		}
	}
	for _, tc := range m.ToolCalls {
		parts = append(parts, callPart(tc.ID, tc.Function.Name, tc.Function.Arguments, tc.ExtraContent))
	}
	if parts == nil {
		parts = []outPart{}
	}
	out := outAnswer{Candidates: []outCandidate{{Content: &outContent{Role: "model", Parts: parts},
		FinishReason: FinishReason(ch.FinishReason)}}, UsageMetadata: usage(c.Usage), ModelVersion: model, ResponseID: c.ID}
	return json.Marshal(out)
}

// FinishReason is a canonical finish_reason in Gemini's words: stop and
// tool_calls → STOP (Gemini ends a call with STOP), length → MAX_TOKENS,
// content_filter → SAFETY, anything else → OTHER; "" (none yet) → "".
func FinishReason(r string) string {
	switch r {
	case "":
		return ""
	case chat.FinishStop, chat.FinishToolCalls, "function_call":
		return "STOP"
	case chat.FinishLength:
		return "MAX_TOKENS"
	case chat.FinishContentFilter:
		return "SAFETY"
	}
	return "OTHER"
}

// callPart is a canonical tool call as a functionCall part; its args the
// arguments as a JSON object (what HistoryArguments makes of a malformed
// one), its sealed thought signature, when it carries one, the part's.
func callPart(id, name, args string, extra json.RawMessage) outPart {
	a := chat.HistoryArguments(args)
	if len(a) == 0 || a[0] != '{' {
		a = json.RawMessage("{}")
	}
	return outPart{FunctionCall: &outCall{ID: id, Name: name, Args: a}, ThoughtSignature: chat.TaggedSignature(extra)}
}

// imagePart is a canonical image (a data: URL) as inlineData.
func imagePart(p chat.Part) (outPart, bool) {
	if p.ImageURL == nil {
		return outPart{}, false
	}
	mt, data, ok := chat.DataURL(p.ImageURL.URL)
	if !ok {
		return outPart{}, false
	}
	return outPart{InlineData: &outBlob{MimeType: mt, Data: data}}, true
}

// usage is canonical usage as usageMetadata: the prompt's tokens (cached
// ones included, as Gemini counts them), the candidates' without the
// thoughts, which Gemini counts apart.
func usage(u *chat.Usage) *outUsage {
	if u == nil {
		return nil
	}
	thoughts := max(u.CompletionTokensDetails.ReasoningTokens, 0)
	prompt, out := max(u.PromptTokens, 0), max(u.Output(), 0)
	thoughts = min(thoughts, out)
	total := max(u.TotalTokens, prompt+out)
	return &outUsage{PromptTokenCount: prompt, CandidatesTokenCount: out - thoughts, TotalTokenCount: total,
		ThoughtsTokenCount: thoughts, CachedContentTokenCount: min(max(u.Cached(), 0), prompt)}
}
