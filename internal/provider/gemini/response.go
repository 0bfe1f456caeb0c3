package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/chat"
)

// now stamps "created", newID names answers without a responseId, and
// newCallPrefix makes one answer's tool call ids ("call_<prefix><n>")
// unique across a conversation: a history with two "call_0" would be
// refused by a vendor that wants unique ids (Anthropic) after a failover.
// Tests replace them.
var (
	now           = time.Now
	newID         = chat.NewID
	newCallPrefix = defaultCallPrefix
)

func defaultCallPrefix() string { return strings.TrimPrefix(chat.NewID(), "chatcmpl-")[:8] + "_" }

// answer is a GenerateContentResponse, whole or one stream chunk.
type answer struct {
	Candidates     []candidate `json:"candidates"`
	PromptFeedback *struct {
		BlockReason string `json:"blockReason"`
	} `json:"promptFeedback"`
	UsageMetadata *usageMetadata  `json:"usageMetadata"`
	ModelVersion  string          `json:"modelVersion"`
	ResponseID    string          `json:"responseId"`
	Error         json.RawMessage `json:"error"`
}

type candidate struct {
	Content *struct {
		Parts []part `json:"parts"`
	} `json:"content"`
	FinishReason string `json:"finishReason"`
	Index        *int   `json:"index"`
}

type usageMetadata struct {
	PromptTokenCount     int `json:"promptTokenCount"`
	CandidatesTokenCount int `json:"candidatesTokenCount"`
	ThoughtsTokenCount   int `json:"thoughtsTokenCount"`
	TotalTokenCount      int `json:"totalTokenCount"`
	// CachedContentTokenCount is the part of the prompt read from the cache.
	CachedContentTokenCount int `json:"cachedContentTokenCount"`
	// ToolUsePromptTokenCount counts the results of the tools Gemini ran
	// itself (search grounding, URL context, code execution), given to the
	// model as input: beside the prompt's count, inside the total.
	ToolUsePromptTokenCount int `json:"toolUsePromptTokenCount"`
	// The audio in the prompt, in its cached part and in the candidates,
	// from the counts by modality (ModalityTokenCount, modality AUDIO):
	// Gemini prices audio input apart from text (docs/config.md, "Usage
	// and cost").
	PromptAudio     audioCount `json:"promptTokensDetails"`
	CacheAudio      audioCount `json:"cacheTokensDetails"`
	CandidatesAudio audioCount `json:"candidatesTokensDetails"`
}

// audioCount is the tokenCount of the AUDIO entries of a list of Gemini's
// ModalityTokenCount, read leniently: a list it cannot read counts 0 and
// fails nothing else of the usage.
type audioCount int

// UnmarshalJSON reads b's AUDIO tokens; it never fails.
func (c *audioCount) UnmarshalJSON(b []byte) error {
	*c = 0
	var list []struct {
		Modality   string         `json:"modality"`
		TokenCount provider.Count `json:"tokenCount"`
	}
	if json.Unmarshal(b, &list) != nil {
		return nil
	}
	n := 0
	for _, m := range list {
		if m.Modality == "AUDIO" {
			n = addCounts(n, int(m.TokenCount))
		}
	}
	*c = audioCount(n)
	return nil
}

// UnmarshalJSON reads a count that is not a plain integer (3.0, 37.25) as
// its floor (provider.WholeCounts): one such count failed the whole
// answer or stream event around it (hostile 52).
func (u *usageMetadata) UnmarshalJSON(b []byte) error {
	type plain usageMetadata
	return json.Unmarshal(provider.WholeCounts(b), (*plain)(u))
}

// usage is the answer's usage in OpenAI's terms: the prompt's tokens and
// the tools' results are input, the candidates' and the thoughts' output.
func (u *usageMetadata) usage() *provider.Usage {
	p := addCounts(u.PromptTokenCount, u.ToolUsePromptTokenCount)
	c := addCounts(u.CandidatesTokenCount, u.ThoughtsTokenCount)
	t := u.TotalTokenCount
	if t <= 0 { // none said, or an upstream's nonsense (review 51b: a negative count reached the client)
		t = addCounts(p, c)
	}
	out := &provider.Usage{PromptTokens: p, CompletionTokens: c, TotalTokens: t}
	if u.CachedContentTokenCount > 0 {
		out.PromptTokensDetails = &provider.TokenDetails{CachedTokens: u.CachedContentTokenCount}
	}
	if u.ThoughtsTokenCount > 0 { // billed as output, and said to be reasoning
		out.CompletionTokensDetails = &provider.OutputDetails{ReasoningTokens: u.ThoughtsTokenCount}
	}
	if a := max(int(u.PromptAudio)-max(int(u.CacheAudio), 0), 0); a > 0 { // uncached audio: cached is priced as cached
		if out.PromptTokensDetails == nil {
			out.PromptTokensDetails = &provider.TokenDetails{}
		}
		out.PromptTokensDetails.AudioTokens = provider.Count(a)
	}
	if a := int(u.CandidatesAudio); a > 0 {
		if out.CompletionTokensDetails == nil {
			out.CompletionTokensDetails = &provider.OutputDetails{}
		}
		out.CompletionTokensDetails.AudioTokens = provider.Count(a)
	}
	return out
}

// counts reports whether u holds any token count: Vertex's usage of a
// chunk before the last holds only its trafficType.
func (u *usageMetadata) counts() bool {
	return u.PromptTokenCount > 0 || u.CandidatesTokenCount > 0 || u.ThoughtsTokenCount > 0 ||
		u.TotalTokenCount > 0 || u.CachedContentTokenCount > 0 || u.ToolUsePromptTokenCount > 0
}

func (a *answer) isError() bool {
	return len(a.Error) > 0 && !bytes.Equal(a.Error, []byte("null"))
}

// blocked is the prompt's block reason, "" when it was not blocked: the
// enum's default (BLOCK_REASON_UNSPECIFIED, which go-genai spells
// BLOCKED_REASON_UNSPECIFIED) blocks nothing, as the classifier reads it.
func (a *answer) blocked() string {
	if a.PromptFeedback == nil {
		return ""
	}
	switch r := a.PromptFeedback.BlockReason; r {
	case "BLOCK_REASON_UNSPECIFIED", "BLOCKED_REASON_UNSPECIFIED":
		return ""
	default:
		return r
	}
}

// index is the candidate's own index, else its position.
func (c *candidate) index(pos int) int {
	if c.Index != nil {
		return *c.Index
	}
	return pos
}

// text concatenates the candidate's text parts, thoughts left out.
func (c *candidate) text() (string, bool) {
	if c.Content == nil {
		return "", false
	}
	var b strings.Builder
	found := false
	for _, p := range c.Content.Parts {
		if p.Text != "" && !p.Thought {
			b.WriteString(p.Text)
			found = true
		}
	}
	return b.String(), found
}

// images returns the candidate's images (inlineData parts of an image/*
// type, thoughts left out) as data: URLs.
func (c *candidate) images() []chat.Part {
	if c.Content == nil {
		return nil
	}
	var out []chat.Part
	for _, p := range c.Content.Parts {
		if b := p.InlineData; b != nil && !p.Thought && strings.HasPrefix(b.MimeType, "image/") && b.Data != "" {
			out = append(out, chat.Part{Type: "image_url", ImageURL: &chat.ImageURL{URL: "data:" + b.MimeType + ";base64," + b.Data}})
		}
	}
	return out
}

// callIDs gives one answer's function calls their ids: the id Gemini
// sent, unless it is missing or repeats one already given in this answer
// (two calls with one id would reach the client as one, and Anthropic
// refuses such a history after a failover); then "call_<prefix><n>".
type callIDs struct {
	n      int    // calls so far
	prefix string // newCallPrefix's
	given  []string
}

func (c *callIDs) next(id string) string {
	c.n++
	if id == "" || slices.Contains(c.given, id) || len(c.given) >= provider.MaxParts {
		return "call_" + c.prefix + strconv.Itoa(c.n-1)
	}
	c.given = append(c.given, id)
	return id
}

// calls returns the candidate's function calls, their ids from ids, each
// with the thought signature it carries, sealed for the endpoint ep.
func (c *candidate) calls(ids *callIDs, ep provider.Endpoint) []chat.ToolCall {
	if c.Content == nil {
		return nil
	}
	var out []chat.ToolCall
	for _, p := range c.Content.Parts {
		if p.FunctionCall == nil || reservedName(p.FunctionCall.Name) { // an answer (structured.go)
			continue
		}
		if len(out) >= provider.MaxParts {
			break // more calls than any answer makes: dropped, never built (hostile 51b)
		}
		args := "{}"
		var buf bytes.Buffer
		if json.Compact(&buf, p.FunctionCall.Args) == nil && buf.String() != "null" {
			args = buf.String()
		}
		out = append(out, chat.ToolCall{ID: ids.next(p.FunctionCall.ID), Type: "function",
			Function:     chat.FunctionCall{Name: p.FunctionCall.Name, Arguments: args},
			ExtraContent: signatureExtra(ep, p.ThoughtSignature)})
	}
	return out
}

// Response translates a generateContent answer into a chat.completion. A
// body with an error, no candidates, or only blocked candidates without
// content is an error.
func (Adapter) Response(body []byte, ep provider.Endpoint) ([]byte, error) {
	var a answer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, fmt.Errorf("gemini: %w", err)
	}
	if a.isError() {
		return nil, errors.New("gemini: answer is an error")
	}
	if len(a.Candidates) == 0 {
		if r := a.blocked(); r != "" {
			return nil, a.noAnswer(fmt.Sprintf("gemini: prompt blocked (%s)", r), nil)
		}
		return nil, errors.New("gemini: answer has no candidates")
	}
	c := chat.Completion{ID: a.ResponseID, Object: "chat.completion", Created: now().Unix(), Model: a.ModelVersion}
	if c.ID == "" {
		c.ID = newID()
	}
	if c.Model == "" {
		c.Model = ep.Model
	}
	ids, blocked, empty := callIDs{prefix: newCallPrefix()}, 0, 0
	flagged := "" // the finishReason of a candidate that called a function and was filtered
	for pos := range a.Candidates {
		cand := &a.Candidates[pos]
		text, hasText := cand.text()
		if a, ok := cand.answer(); ok {
			// The structured answer is the content, alone: text beside
			// it would not parse.
			text, hasText = a, true
		}
		tcs := cand.calls(&ids, ep)
		msg := chat.ResponseMessage{Role: "assistant", ToolCalls: tcs, Images: cand.images()}
		if hasText || len(tcs) == 0 {
			msg.Content = &text
		}
		fr := finishReason(cand.FinishReason, len(tcs) > 0)
		if len(tcs) > 0 && filtered(cand.FinishReason) {
			flagged = cand.FinishReason
		}
		if !hasText && len(tcs) == 0 && len(msg.Images) == 0 {
			switch {
			case fr == chat.FinishContentFilter:
				blocked++
			case cand.FinishReason != "" && !normalStop(cand.FinishReason):
				empty++ // ended without content, and not as a normal stop
			}
		}
		c.Choices = append(c.Choices, chat.Choice{Index: cand.index(pos), Message: msg, FinishReason: fr})
	}
	if blocked == len(a.Candidates) {
		return nil, a.noAnswer(fmt.Sprintf("gemini: every candidate was blocked without content (%s)", a.Candidates[0].FinishReason), nil)
	}
	if flagged != "" {
		// A call the filter flagged is never handed to the client to run:
		// no answer, judged by its digest (the finishReason may lie past
		// what the classifier reads: a call's args or a thoughtSignature of
		// several KB; review 60b), a refusal as the stream's is.
		return nil, a.noAnswer(fmt.Sprintf("gemini: a filter flagged a candidate's function call (%s)", flagged), nil)
	}
	if a.UsageMetadata != nil {
		c.Usage = a.UsageMetadata.usage()
	}
	out := chat.Marshal(c)
	if blocked+empty == len(a.Candidates) {
		return nil, a.noAnswer(fmt.Sprintf("gemini: no candidate has content (%s)", a.Candidates[0].FinishReason), out)
	}
	return out, nil
}

// maxDigested bounds the candidates a digest lists (a digest must stay
// well within classify.MaxBody).
const maxDigested = 16

// noAnswer is the provider.NoAnswer for a, whose digest is its prompt
// feedback and each candidate's index and finishReason, as sent.
func (a *answer) noAnswer(msg string, answer []byte) *provider.NoAnswer {
	type digestCandidate struct {
		FinishReason string `json:"finishReason,omitempty"`
		Index        *int   `json:"index,omitempty"`
	}
	var d struct {
		PromptFeedback *struct {
			BlockReason string `json:"blockReason"`
		} `json:"promptFeedback,omitempty"`
		Candidates []digestCandidate `json:"candidates,omitempty"`
	}
	d.PromptFeedback = a.PromptFeedback
	for i := range a.Candidates[:min(len(a.Candidates), maxDigested)] {
		c := &a.Candidates[i]
		d.Candidates = append(d.Candidates, digestCandidate{FinishReason: c.FinishReason, Index: c.Index})
	}
	b, _ := json.Marshal(d)
	return &provider.NoAnswer{Msg: msg, Digest: b, Answer: answer}
}

// finishReason maps Gemini's finishReason: a filter's is content_filter,
// calls or not (a client told tool_calls would run what the filter
// flagged, and never see the filter; the stream fails there instead:
// stream.go); otherwise any function call makes it tool_calls, as OpenAI
// reports it.
func finishReason(r string, called bool) string {
	switch {
	case filtered(r):
		return chat.FinishContentFilter
	case called:
		return chat.FinishToolCalls
	case r == "MAX_TOKENS":
		return chat.FinishLength
	default: // STOP, OTHER, MALFORMED_FUNCTION_CALL, FINISH_REASON_UNSPECIFIED…
		return chat.FinishStop
	}
}

// filtered reports a finishReason that says a filter cut the answer.
func filtered(r string) bool {
	switch r {
	case "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY",
		"IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION", "MODEL_ARMOR":
		return true
	}
	return false
}

// FailedUsage is the usage an answer reports that Response will not
// translate (a prompt block, a candidate ended with no content), so the
// gateway can tell whether the model counted tokens for it; nil when it
// does not parse or reports none.
func (Adapter) FailedUsage(body []byte) *provider.Usage {
	var a struct {
		UsageMetadata *usageMetadata `json:"usageMetadata"`
	}
	if json.Unmarshal(body, &a) != nil || a.UsageMetadata == nil {
		return nil
	}
	return a.UsageMetadata.usage()
}

// addCounts adds two reported counts, each negative one as 0, saturating
// at math.MaxInt: an upstream's absurd counts never wrap to a negative sum
// that would read as nothing used.
func addCounts(a, b int) int {
	a, b = max(a, 0), max(b, 0)
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}
