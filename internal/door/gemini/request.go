package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/detour-llm/detour/internal/provider/chat"
	"github.com/detour-llm/detour/internal/rawjson"
)

// Translated is a Gemini request in the canonical chat form.
type Translated struct {
	// Body is the canonical OpenAI Chat Completions JSON; nil on error.
	Body []byte
	// Thoughts: the client asked for the model's thoughts
	// (generationConfig.thinkingConfig.includeThoughts), which the answer
	// then carries as thought parts (Answer, Encoder).
	Thoughts bool
}

// outRequest is the canonical request the door writes.
type outRequest struct {
	Model               string              `json:"model"`
	Messages            []outMessage        `json:"messages"`
	MaxCompletionTokens *int                `json:"max_completion_tokens,omitempty"`
	Temperature         *float64            `json:"temperature,omitempty"`
	TopP                *float64            `json:"top_p,omitempty"`
	Stop                []string            `json:"stop,omitempty"`
	Seed                *int64              `json:"seed,omitempty"`
	PresencePenalty     *float64            `json:"presence_penalty,omitempty"`
	FrequencyPenalty    *float64            `json:"frequency_penalty,omitempty"`
	Stream              bool                `json:"stream,omitempty"`
	StreamOptions       *chat.StreamOptions `json:"stream_options,omitempty"`
	Tools               []chat.Tool         `json:"tools,omitempty"`
	ToolChoice          any                 `json:"tool_choice,omitempty"`
	ResponseFormat      *outFormat          `json:"response_format,omitempty"`
}

// outMessage is one canonical message: Content a string, a list of
// chat.Part, or nil (a model turn that only calls functions).
type outMessage struct {
	Role       string          `json:"role"`
	Content    any             `json:"content"`
	ToolCalls  []chat.ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

type outFormat struct {
	Type       string      `json:"type"`
	JSONSchema *outSchemaF `json:"json_schema,omitempty"`
}

type outSchemaF struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
}

// Translate reads a GenerateContentRequest body for the route or target
// model (from the URL: Gemini's body names none) and returns it in the
// canonical form, streamed when stream (streamGenerateContent). Errors are
// *Error; nothing a client sends panics (fuzz_test.go).
func Translate(body []byte, model string, stream bool) (Translated, error) {
	var t Translated
	top, err := obj(body, "request")
	if err != nil {
		return t, err
	}
	if top == nil {
		return t, invalid("request", "must be a GenerateContentRequest object")
	}
	out := outRequest{Model: model, Stream: stream}
	if stream {
		out.StreamOptions = &chat.StreamOptions{IncludeUsage: true}
	}
	if set(top["cachedContent"]) {
		return t, unsupported("cachedContent", "a Gemini context cache")
	}
	if sys, ok := top["systemInstruction"]; ok && set(sys) {
		text, err := systemText(sys)
		if err != nil {
			return t, err
		}
		if text != "" {
			out.Messages = append(out.Messages, outMessage{Role: "system", Content: text})
		}
	}
	contents, err := top.list("contents", "request")
	if err != nil {
		return t, err
	}
	if len(contents) == 0 {
		return t, invalid("contents", "must not be empty")
	}
	msgs, err := turns(contents)
	if err != nil {
		return t, err
	}
	out.Messages = append(out.Messages, msgs...)
	if out.Tools, err = tools(top); err != nil {
		return t, err
	}
	if out.ToolChoice, err = toolChoice(top, len(out.Tools) > 0); err != nil {
		return t, err
	}
	if t.Thoughts, err = generation(top, &out); err != nil {
		return t, err
	}
	t.Body, err = rawjson.Marshal(out)
	return t, err
}

// systemText is systemInstruction's text: a Content's text parts joined
// by newlines (its role is not read), or a string (what the SDKs take
// before they build the Content).
func systemText(raw json.RawMessage) (string, error) {
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '"' { // else an object: no failed decode into a string first (round 38)
		var s string
		if json.Unmarshal(t, &s) == nil {
			return s, nil
		}
	}
	c, err := obj(raw, "systemInstruction")
	if err != nil {
		return "", err
	}
	parts, err := c.list("parts", "systemInstruction")
	if err != nil {
		return "", err
	}
	var texts []string
	for i, p := range parts {
		where := fmt.Sprintf("systemInstruction.parts[%d]", i)
		po, err := obj(p, where)
		if err != nil {
			return "", err
		}
		if _, ok := po["text"]; !ok {
			return "", unsupported(where, "a system instruction part that is not text")
		}
		text, err := po.str("text", where)
		if err != nil {
			return "", err
		}
		if text != "" {
			texts = append(texts, text)
		}
	}
	return strings.Join(texts, "\n"), nil
}

// generation reads generationConfig into out; it reports whether the
// client asked for thoughts.
func generation(top object, out *outRequest) (thoughts bool, err error) {
	const where = "generationConfig"
	g, err := obj(top["generationConfig"], where)
	if err != nil || g == nil {
		return false, err
	}
	if out.Temperature, err = g.num("temperature", where); err != nil {
		return false, err
	}
	if out.TopP, err = g.num("topP", where); err != nil {
		return false, err
	}
	if out.PresencePenalty, err = g.num("presencePenalty", where); err != nil {
		return false, err
	}
	if out.FrequencyPenalty, err = g.num("frequencyPenalty", where); err != nil {
		return false, err
	}
	if out.Seed, err = g.integer("seed", where); err != nil {
		return false, err
	}
	n, err := g.integer("maxOutputTokens", where)
	if err != nil {
		return false, err
	}
	if n != nil {
		if *n < 1 || *n > 1<<31-1 {
			return false, invalid(where+".maxOutputTokens", "must be a whole number from 1")
		}
		v := int(*n)
		out.MaxCompletionTokens = &v
	}
	if c, err := g.integer("candidateCount", where); err != nil {
		return false, err
	} else if c != nil && *c > 1 {
		return false, unsupported(where+".candidateCount", "more than one candidate")
	}
	stops, err := g.list("stopSequences", where)
	if err != nil {
		return false, err
	}
	for i, s := range stops {
		var v string
		if json.Unmarshal(s, &v) != nil {
			return false, invalid(fmt.Sprintf("%s.stopSequences[%d]", where, i), "must be a string")
		}
		out.Stop = append(out.Stop, v)
	}
	for _, k := range []string{"responseLogprobs", "logprobs"} {
		if set(g[k]) && string(g[k]) != "false" {
			return false, unsupported(where+"."+k, "log-probabilities")
		}
	}
	mods, err := g.list("responseModalities", where)
	if err != nil {
		return false, err
	}
	for _, m := range mods {
		var v string
		if json.Unmarshal(m, &v) != nil || !strings.EqualFold(v, "TEXT") {
			return false, unsupported(where+".responseModalities", "an answer other than text")
		}
	}
	if set(g["speechConfig"]) {
		return false, unsupported(where+".speechConfig", "speech output")
	}
	if out.ResponseFormat, err = responseFormat(g); err != nil {
		return false, err
	}
	tc, err := obj(g["thinkingConfig"], where+".thinkingConfig")
	if err != nil || tc == nil {
		return false, err
	}
	return tc.boolean("includeThoughts", where+".thinkingConfig")
}

// responseFormat is the response_format generationConfig asks for:
// responseMimeType application/json with a schema (responseJsonSchema as
// sent but Gemini's upper-case type names, lowerTypes; responseSchema made
// JSON Schema) as json_schema, without one as
// json_object; text/plain or none as none; another type (text/x.enum) is
// Gemini's alone.
func responseFormat(g object) (*outFormat, error) {
	const where = "generationConfig"
	mt, err := g.str("responseMimeType", where)
	if err != nil {
		return nil, err
	}
	switch strings.ToLower(strings.TrimSpace(mt)) {
	case "", "text/plain":
		return nil, nil
	case "application/json":
	default:
		return nil, unsupported(where+".responseMimeType", fmt.Sprintf("responseMimeType %q", mt))
	}
	var schema json.RawMessage
	switch {
	case set(g["responseJsonSchema"]):
		schema = lowerTypes(g["responseJsonSchema"])
	case set(g["responseSchema"]):
		if schema, err = jsonSchema(g["responseSchema"], where+".responseSchema"); err != nil {
			return nil, err
		}
	default:
		return &outFormat{Type: "json_object"}, nil
	}
	return &outFormat{Type: "json_schema", JSONSchema: &outSchemaF{Name: "response", Schema: schema}}, nil
}
