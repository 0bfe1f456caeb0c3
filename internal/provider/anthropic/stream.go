package anthropic

import (
	"encoding/json"
	"io"

	"github.com/detour-llm/detour/internal/offstack"
	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/chat"
	"github.com/detour-llm/detour/internal/rawjson"
	"github.com/detour-llm/detour/internal/sse"
)

// Stream translates a Messages event stream into chat.completion.chunk
// events.
func (Adapter) Stream(body io.Reader, ep provider.Endpoint) provider.Stream {
	return &stream{r: sse.NewReader(body, 0), model: ep.Model, created: now().Unix()}
}

type stream struct {
	r       *sse.Reader
	id      string
	model   string
	created int64
	roleOut bool // a chunk carrying role "assistant" has been sent
	usage   usage
	// tools maps a content block index to its tool_calls index (at most
	// provider.MaxParts of them).
	tools map[int]int
	// argued holds the calls (by index of s.tools' values) that sent a
	// piece of their arguments.
	argued map[int]bool
	// answer is the answer tool's block (structured.go): its input is the
	// content. answered: one has started; later ones are dropped.
	answer   answerState
	answered bool
	// raw: the events go to the client as they came (native.go), so no
	// canonical chunk is built; Content and the rest are read as usual.
	raw bool
	// counted: the stream has reported a usage (message_start's, a
	// delta's). ran: the web searches and fetches whose results the stream
	// showed, a floor of its server_tool_use count until a message_delta
	// says it (toolsSaid): a stream cut before its delta ran and was
	// billed for them (review 66k).
	counted, toolsSaid bool
	ran                struct{ searches, fetches int }
}

// event is the union of the Messages stream events the adapter reads.
type event struct {
	Type    string `json:"type"`
	Message *struct {
		ID    string `json:"id"`
		Model string `json:"model"`
		Usage *usage `json:"usage"`
	} `json:"message"`
	Index        int `json:"index"`
	ContentBlock *struct {
		Type string `json:"type"`
		Text string `json:"text"`
		ID   string `json:"id"`
		Name string `json:"name"`
		Data string `json:"data"`
	} `json:"content_block"`
	Delta *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *deltaUsage     `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// deltaUsage is message_delta's usage: cumulative, each input count
// optional (Anthropic's SDK updates each only where present). A count left
// out keeps message_start's: a delta repeating input_tokens alone erased a
// 188,086-token cache write before round 57 (hostile 57).
type deltaUsage struct {
	usage
	// has says which input counts the delta holds (its iterations hold
	// all three).
	has struct{ input, write, read bool }
}

// UnmarshalJSON reads the counts as usage does, and which input counts
// are there.
func (d *deltaUsage) UnmarshalJSON(b []byte) error {
	if err := d.usage.UnmarshalJSON(b); err != nil {
		return err
	}
	var p struct {
		Input      json.RawMessage `json:"input_tokens"`
		Write      json.RawMessage `json:"cache_creation_input_tokens"`
		Read       json.RawMessage `json:"cache_read_input_tokens"`
		Iterations json.RawMessage `json:"iterations"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	// A null count is no count, as a missing one (the SDK reads both so;
	// OpenRouter's Messages API sends "cache_creation_input_tokens":null:
	// review 57).
	said := func(m json.RawMessage) bool { return len(m) > 0 && string(m) != "null" }
	it := said(p.Iterations)
	d.has.input, d.has.write, d.has.read = it || said(p.Input), it || said(p.Write), it || said(p.Read)
	return nil
}

func (s *stream) Next() (provider.Event, error) {
	out, decode, err := provider.NextEvent(s.r)
	if !decode {
		return out, err
	}
	// The event is decoded off the handler's stack: encoding/json goes
	// deep, and a stream's handler keeps its stack at the largest size it
	// grew to for the stream's whole life (internal/offstack).
	return offstack.Run2(func() (provider.Event, error) { return s.decode(out) })
}

// decode reads one event's data, out.Raw, into out.
func (s *stream) decode(out provider.Event) (provider.Event, error) {
	data := out.Raw
	var e event
	if err := json.Unmarshal(data, &e); err != nil {
		out.Malformed = true
		return out, nil
	}
	switch e.Type {
	case "error":
		out.Error = true
	case "message_start":
		if m := e.Message; m != nil {
			if provider.Name(m.ID) {
				s.id = m.ID
			}
			if provider.Name(m.Model) {
				s.model = m.Model
			}
			if m.Usage != nil {
				s.usage = *m.Usage
				s.counted = true
				out.Usage = s.total()
			}
		}
		// Held back by the gateway: the role alone is not content.
		if !s.raw {
			out.Chunks = [][]byte{s.chunk(chat.Delta{}, nil)}
		}
	case "content_block_start":
		b := e.ContentBlock
		if b == nil {
			break
		}
		switch b.Type {
		case "text":
			if b.Text != "" {
				s.text(&out, b.Text)
			}
		case "web_search_tool_result", "web_fetch_tool_result":
			// A server tool's result: a use billed, unless it is the tool's
			// error ("If an error occurs during web search, the web search
			// will not be billed"). Counted as a floor (stream.ran), read
			// from the event as it came: the block is not decoded.
			if s.ranTool(b.Type, data) && s.counted && !s.toolsSaid {
				out.Usage = s.total()
			}
		case "redacted_thinking":
			// Its data comes whole in the start (no deltas): the model is
			// writing, though a translation sends none of it.
			out.Progress = b.Data != ""
		case "tool_use":
			if !s.raw && reserved(b.Name) {
				if !s.answered {
					s.answered = true
					s.answer = answerState{on: true, index: e.Index, name: b.Name}
				}
				break
			}
			if s.tools == nil {
				s.tools = make(map[int]int)
			}
			if _, seen := s.tools[e.Index]; !seen && len(s.tools) >= provider.MaxParts {
				out.Malformed = true // more tool calls than any answer makes
				return out, nil
			}
			i := len(s.tools)
			s.tools[e.Index] = i
			s.emit(&out, chat.Delta{ToolCalls: []chat.ToolCallDelta{{Index: i, ID: b.ID, Type: "function",
				Function: chat.FunctionCallDelta{Name: b.Name}}}})
		}
	case "content_block_delta":
		if s.raw { // relayed as it came: every delta that adds is content, thinking included (native.go)
			out.Content = deltaAdds(data)
		}
		d := e.Delta
		if d == nil {
			break
		}
		if !s.raw && d.Type != "text_delta" && d.Type != "input_json_delta" {
			// Thinking, its signature, a citation…: written by the model
			// but not translated. No content, but progress: a model that
			// thinks unasked (Claude Sonnet 5 and Opus 5 think by default)
			// is writing, and its first-token and idle clocks restart as
			// its native stream's do (native.go counts these as content).
			out.Progress = deltaAdds(data)
		}
		switch d.Type {
		case "text_delta":
			if d.Text != "" {
				s.text(&out, d.Text)
			}
		case "input_json_delta":
			if s.answer.on && s.answer.index == e.Index {
				if err := s.answerDelta(&out, d.PartialJSON); err != nil {
					return out, err
				}
				break
			}
			i, ok := s.tools[e.Index]
			if !ok && !s.raw {
				// A server tool's input (web search, code execution):
				// written, not translated.
				out.Progress = d.PartialJSON != ""
			}
			if ok && d.PartialJSON != "" {
				if s.argued == nil {
					s.argued = make(map[int]bool)
				}
				s.argued[i] = true
				s.emit(&out, chat.Delta{ToolCalls: []chat.ToolCallDelta{{Index: i,
					Function: chat.FunctionCallDelta{Arguments: d.PartialJSON}}}})
			}
		}
	case "message_delta":
		if u := e.Usage; u != nil {
			s.usage.OutputTokens = u.OutputTokens
			if u.Speed != "" {
				s.usage.Speed = u.Speed
			}
			if u.OutputTokensDetails != nil {
				s.usage.OutputTokensDetails = u.OutputTokensDetails
			}
			// The server tools' uses are cumulative too: the delta's count
			// is the answer's, over the start's (one left out, or null,
			// keeps it).
			if len(u.ServerToolUse) > 0 && string(u.ServerToolUse) != "null" {
				s.usage.ServerToolUse = u.ServerToolUse
				s.toolsSaid = true
			}
			s.counted = true
			// A delta of zeros (and nothing else) says nothing: servers that
			// count only at the start send one.
			if u.InputTokens > 0 || u.CacheCreationInputTokens > 0 || u.CacheReadInputTokens > 0 {
				set(&s.usage.InputTokens, u.InputTokens, u.has.input)
				set(&s.usage.CacheCreationInputTokens, u.CacheCreationInputTokens, u.has.write)
				set(&s.usage.CacheReadInputTokens, u.CacheReadInputTokens, u.has.read)
				if len(u.CacheCreation) > 0 {
					s.usage.CacheCreation = u.CacheCreation
				}
			}
			out.Usage = s.total()
		}
		if e.Delta != nil && e.Delta.StopReason == "refusal" {
			// A refusal, even after some text, is not an answer to pass off
			// as finished: the gateway classifies this event (refusal) and,
			// after content, ends the stream with an error event, as it
			// answers the same refusal unstreamed.
			out.Error = true
			return out, nil
		}
		if e.Delta != nil && e.Delta.StopReason != "" {
			if !s.raw {
				fr := finishReason(e.Delta.StopReason)
				if s.answered && len(s.tools) == 0 && fr == chat.FinishToolCalls {
					fr = chat.FinishStop // the answer tool's call is the answer
				}
				out.Chunks = append(out.Chunks, s.chunk(chat.Delta{}, &fr))
				if out.Usage != nil {
					// In a chunk of its own, after the finish, as
					// OpenAI's include_usage sends it.
					out.Chunks = append(out.Chunks, chat.Marshal(chat.UsageChunk(s.id, s.created, s.model, out.Usage)))
				}
			}
			out.Content = true
			// The answer is complete; message_stop only closes the stream.
			out.Finished = true
		}
	case "content_block_stop":
		if s.answer.on && s.answer.index == e.Index {
			s.answerEnd(&out)
		} else if i, ok := s.tools[e.Index]; ok && !s.argued[i] {
			// A call of a tool without parameters: Anthropic's stream
			// sends its input as one empty piece, its whole answer as {}.
			// An OpenAI client parses the arguments it accumulated: "{}"
			// as unstreamed, never "" (review 32d).
			if s.argued == nil {
				s.argued = make(map[int]bool)
			}
			s.argued[i] = true
			s.emit(&out, chat.Delta{ToolCalls: []chat.ToolCallDelta{{Index: i,
				Function: chat.FunctionCallDelta{Arguments: "{}"}}}})
		}
	case "message_stop":
		out.Done = true
	}
	// ping, other content_block_stops and unknown events carry nothing to send.
	return out, nil
}

func (s *stream) text(out *provider.Event, t string) {
	s.emit(out, chat.Delta{Content: &t})
}

// emit appends one content chunk to out.
func (s *stream) emit(out *provider.Event, d chat.Delta) {
	if !s.raw {
		out.Chunks = append(out.Chunks, s.chunk(d, nil))
	}
	out.Content = true
}

// chunk encodes one chat.completion.chunk; the first one sent carries the
// role.
func (s *stream) chunk(d chat.Delta, finish *string) []byte {
	if !s.roleOut {
		d.Role = "assistant"
		s.roleOut = true
	}
	if s.id == "" {
		s.id = chat.NewID()
	}
	return chat.Marshal(chat.Chunk{ID: s.id, Object: "chat.completion.chunk", Created: s.created,
		Model: s.model, Choices: []chat.ChunkChoice{{Delta: d, FinishReason: finish}}})
}

// set replaces *dst with a count the delta has.
func set(dst *int, n int, has bool) {
	if has {
		*dst = n
	}
}

// total is the usage so far: the upstream's counts, and until a
// message_delta says how many server tool uses the answer ran, at least
// the results the stream showed.
func (s *stream) total() *provider.Usage {
	u := s.usage.openai()
	if !s.toolsSaid {
		u.WebSearches = max(u.WebSearches, s.ran.searches)
		u.WebFetches = max(u.WebFetches, s.ran.fetches)
	}
	return u
}

// ranTool counts the result block of type typ that the content_block_start
// event data opens, where it is not the tool's error: a web search's
// content is the list of its results, a web fetch's a web_fetch_result. It
// reports whether it counted one.
func (s *stream) ranTool(typ string, data []byte) bool {
	c := rawjson.Member(rawjson.Member(data, "content_block"), "content")
	switch typ {
	case "web_search_tool_result":
		if _, ok := rawjson.ScanArray(c); ok {
			s.ran.searches++
			return true
		}
	case "web_fetch_tool_result":
		if t, _ := rawjson.String(rawjson.Member(c, "type")); t == "web_fetch_result" {
			s.ran.fetches++
			return true
		}
	}
	return false
}
