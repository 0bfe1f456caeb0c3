package responses

import (
	"strings"
	"sync"

	"github.com/detour-llm/detour/internal/rawjson"
)

// Params names, for a member of the translation's chat body, the member of
// the client's /v1/responses request it was made from: an OpenAI-dialect
// upstream's error.param and an adapter's refusal (provider.Unsupported)
// name a member of the chat body ("messages[2].content",
// "tools[0].function.parameters", "max_completion_tokens"), which the
// client never sent. The translation knows each map as it builds the body:
// the messages' input items (the instructions are messages[0] when sent),
// the function tools' places in "tools" (a namespace's and an
// additional_tools item's too), the top-level members' names. Where a
// member was made from several of the client's, or from none, it has no
// name (""): a wrong name is worse than none (docs/doors.md, "OpenAI
// Responses", Errors).
type Params struct {
	body  []byte    // the client's request, translated again to read the rest when asked
	once  sync.Once // reads the rest
	read  bool      // the rest is read
	msgs  []from
	tools []string // each chat tool's member ("tools[3]", "tools[1].tools[0]", "input[2].tools[0]")
	top   map[string]string
}

// load reads, once, the members a recording translation of the client's
// request finds.
func (ps *Params) load() {
	ps.once.Do(func() {
		if ps.read {
			return
		}
		if r, err := translate(ps.body, true); err == nil && r.Params != nil {
			ps.msgs, ps.tools, ps.top = r.Params.msgs, r.Params.tools, r.Params.top
		}
		ps.read = true
	})
}

// recorded is the Params a recording translation read, nil for none.
func recorded(rec bool, froms []from, tools []string, w *wireRequest, out *chatRequest) *Params {
	if !rec {
		return nil
	}
	return &Params{msgs: froms, tools: tools, top: topParams(w, out), read: true}
}

// topParams maps the chat body out's top-level members to the members of
// the client's request w they were made from (Params), each only where
// the client sent it: the output limit (max_completion_tokens, or
// max_tokens as an adapter renames it) is max_output_tokens, the effort
// reasoning.effort, the answer's format text.format, the end user
// safety_identifier or user.
func topParams(w *wireRequest, out *chatRequest) map[string]string {
	top := map[string]string{}
	set := func(chatName, client string, sent bool) {
		if sent {
			top[chatName] = client
		}
	}
	set("model", "model", w.Model != "") // a request without one is sent the route's (fuzz 69f)
	set("stream", "stream", w.Stream)
	set("max_completion_tokens", "max_output_tokens", w.MaxOutputTokens != nil)
	set("max_tokens", "max_output_tokens", w.MaxOutputTokens != nil)
	set("temperature", "temperature", w.Temperature != nil)
	set("top_p", "top_p", w.TopP != nil)
	set("parallel_tool_calls", "parallel_tool_calls", out.ParallelToolCalls != nil)
	set("tool_choice", "tool_choice", rawjson.Set(out.ToolChoice))
	set("tools", "tools", rawjson.Set(w.Tools))
	set("reasoning_effort", "reasoning.effort", out.ReasoningEffort != "")
	set("response_format", "text.format", rawjson.Set(out.ResponseFormat))
	set("user", "user", w.User != "")
	set("user", "safety_identifier", w.SafetyIdentifier != "") // preferred where both are sent (Translate)
	return top
}

// from is what of the client's request one chat message was made from.
type from struct {
	item    string   // the whole message: "input[3]", "instructions", "input"; "" when several items or none
	content string   // its content: "input[3].content", "input[3].output", "instructions", "input"; "" for none
	parts   []string // each part of a list content; nil for a string content
	role    string   // "input[3].role" for a message item; "" otherwise
	calls   []string // each tool call's function_call item
	callID  string   // a tool message's "input[3].call_id"
}

// Client is the client's member for p, a member of the chat body, in
// OpenAI's spellings ("messages[2].content", "messages.[2].content",
// "messages.2.content"), or "" where none is named faithfully. A nil
// Params names none.
func (ps *Params) Client(p string) string {
	if ps == nil || p == "" {
		return ""
	}
	ps.load()
	head, rest := splitHead(p)
	switch head {
	case "messages":
		if rest == "" {
			return "input"
		}
		i, tail, ok := rawjson.PathIndex(rest)
		if !ok || i >= len(ps.msgs) {
			return ""
		}
		return ps.msgs[i].member(tail)
	case "tools":
		if rest == "" {
			return ps.top["tools"]
		}
		i, tail, ok := rawjson.PathIndex(rest)
		if !ok || i >= len(ps.tools) {
			return ""
		}
		return ps.tools[i] + toolMember(tail)
	case "response_format":
		f := ps.top["response_format"]
		if f == "" {
			return ""
		}
		switch tail := strings.TrimPrefix(rest, ".json_schema"); {
		case tail == rest:
			return f // the format's type, or the whole
		case tail == ".schema" || strings.HasPrefix(tail, ".schema.") || strings.HasPrefix(tail, ".schema["):
			return f + ".schema" // within the schema: the client's schema is sent as written, but the path stops at it
		case tail == ".name", tail == ".strict", tail == ".description":
			return f + tail
		}
		return f
	case "tool_choice":
		return ps.top["tool_choice"] // its shape differs ({"type":"function","name"} against chat's nested function)
	}
	if rest != "" {
		return "" // a member within a top-level member the chat form writes its own way
	}
	return ps.top[head]
}

// member is the client's member for tail, a member within this message.
func (f *from) member(tail string) string {
	switch {
	case tail == "":
		return f.item
	case tail == ".role":
		return f.role
	case tail == ".tool_call_id":
		return f.callID
	case tail == ".content":
		return f.content
	}
	if rest, ok := strings.CutPrefix(tail, ".content"); ok {
		k, _, ok := rawjson.PathIndex(rest)
		if !ok {
			return ""
		}
		if f.parts == nil {
			return f.content // a string content has no parts: the upstream's path is its own
		}
		if k < len(f.parts) {
			return f.parts[k] // the part; its members are written otherwise (image_url.url against image_url)
		}
		return ""
	}
	if rest, ok := strings.CutPrefix(tail, ".tool_calls"); ok {
		k, sub, ok := rawjson.PathIndex(rest)
		if !ok || k >= len(f.calls) {
			return ""
		}
		switch sub {
		case "":
			return f.calls[k]
		case ".id":
			return f.calls[k] + ".call_id"
		case ".function.name":
			return f.calls[k] + ".name"
		case ".function.arguments":
			return f.calls[k] + ".arguments"
		}
		return f.calls[k]
	}
	return "" // reasoning_content (from reasoning items), a member the translation wrote
}

// toolMember is the member of a Responses function tool (flat) for tail,
// a member within a chat tool ({"type":"function","function":{…}}).
func toolMember(tail string) string {
	switch {
	case tail == "", tail == ".type":
		return tail
	case tail == ".function.parameters" || strings.HasPrefix(tail, ".function.parameters.") || strings.HasPrefix(tail, ".function.parameters["):
		return ".parameters" + strings.TrimPrefix(tail, ".function.parameters")
	case tail == ".function.name", tail == ".function.description", tail == ".function.strict":
		return strings.TrimPrefix(tail, ".function")
	}
	return ""
}

// splitHead splits p into its top-level member and the rest ("" or
// starting with "." or "[").
func splitHead(p string) (head, rest string) {
	if i := strings.IndexAny(p, ".["); i >= 0 {
		return p[:i], p[i:]
	}
	return p, ""
}
