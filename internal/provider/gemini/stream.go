package gemini

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/detour-llm/detour/internal/offstack"
	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/chat"
	"github.com/detour-llm/detour/internal/sse"
)

// Stream translates a streamGenerateContent?alt=sse body into
// chat.completion.chunk events.
func (Adapter) Stream(body io.Reader, ep provider.Endpoint) provider.Stream {
	return &stream{r: sse.NewReader(body, 0), model: ep.Model, ep: ep, created: now().Unix(), ids: callIDs{prefix: newCallPrefix()}}
}

type stream struct {
	r       *sse.Reader
	id      string
	model   string
	ep      provider.Endpoint // for the signatures its calls carry
	created int64
	roleOut bool // a chunk carrying role "assistant" has been sent
	content bool // any content has been sent
	said    bool // a text, an image or a call has been sent (a finish alone says nothing)
	ids     callIDs
	cands   map[int]*cst // per candidate index, at most provider.MaxParts
	// raw: the events go to the client as they came (native.go), so the
	// canonical chunks are not encoded; Content and the rest are read as
	// usual (round 38: each event's chunks were encoded and thrown away).
	raw bool
}

// cst is one candidate's stream state.
type cst struct {
	calls    int // tool_calls index within this choice
	finished bool
	answered bool // an answer function's call was sent as content (structured.go)
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
	if bytes.Equal(data, sse.Done) {
		out.Done = true
		return out, nil
	}
	var a answer
	if err := json.Unmarshal(data, &a); err != nil {
		out.Malformed = true
		return out, nil
	}
	if a.isError() || a.blocked() != "" {
		out.Error = true
		return out, nil
	}
	if provider.Name(a.ResponseID) && s.id == "" {
		s.id = a.ResponseID
	}
	if provider.Name(a.ModelVersion) {
		s.model = a.ModelVersion
	}
	if a.UsageMetadata != nil && a.UsageMetadata.counts() {
		// Vertex sends "usageMetadata": {"trafficType": "ON_DEMAND"} on
		// every chunk but the last: no count, so no usage (a cut stream's
		// record read 0 tokens at $0 where the answer's cost is unknown).
		out.Usage = a.UsageMetadata.usage()
	}
	if s.cands == nil {
		s.cands = make(map[int]*cst)
	}
	var cs []chat.Chunk
	for pos := range a.Candidates {
		cand := &a.Candidates[pos]
		idx := cand.index(pos)
		st := s.cands[idx]
		if st == nil && len(s.cands) >= provider.MaxParts {
			out.Malformed = true // more candidates than any request asks for
			return out, nil
		}
		if st == nil {
			st = &cst{}
			s.cands[idx] = st
		}
		// As OpenAI streams them: the text, each function call and the
		// finish reason in chunks of their own (openai-go's
		// ChatCompletionAccumulator reports a content or tool call as
		// finished only when a later chunk no longer continues it).
		n := len(cs)
		// A call of the answer function is the content, sent whole (Gemini
		// streams a call in one chunk); text beside it is dropped, as in
		// the whole answer, and so is a second answer.
		answer, answered := cand.answer()
		if text, ok := cand.text(); ok && !answered && !st.answered {
			cs = append(cs, s.chunk(idx, chat.Delta{Content: &text}, nil))
		}
		if answered && !st.answered {
			st.answered = true
			cs = append(cs, s.chunk(idx, chat.Delta{Content: &answer}, nil))
		}
		if imgs := cand.images(); len(imgs) > 0 {
			cs = append(cs, s.chunk(idx, chat.Delta{Images: imgs}, nil))
		}
		for _, tc := range cand.calls(&s.ids, s.ep) {
			if st.calls >= provider.MaxParts {
				break // more calls than any answer makes, as the other dialects' streams stop (hostile review 51b)
			}
			cs = append(cs, s.chunk(idx, chat.Delta{ToolCalls: []chat.ToolCallDelta{{Index: st.calls, ID: tc.ID, Type: "function",
				Function: chat.FunctionCallDelta{Name: tc.Function.Name, Arguments: tc.Function.Arguments}, ExtraContent: tc.ExtraContent}}}, nil))
			st.calls++
		}
		if len(cs) > n {
			s.said = true // a text, an image or a call, before any finish
		}
		if cand.FinishReason != "" {
			fr := finishReason(cand.FinishReason, st.calls > 0)
			if fr == chat.FinishContentFilter && st.calls > 0 {
				// A filter ended a candidate that called a function: the
				// answer fails, an error event the classifier reads as the
				// refusal it is, as the openai adapter ends a stream its
				// filter cut after a tool call began (docs/doors.md): a
				// client told tool_calls would run what the filter flagged.
				out.Error = true
				out.Digest = a.noAnswer("", nil).Digest
				return out, nil
			}
			if fr == chat.FinishContentFilter && !s.content && len(cs) == n {
				// Blocked before anything was said: an error for the
				// classifier, not an empty answer.
				out.Error = true
				out.Digest = a.noAnswer("", nil).Digest
				return out, nil
			}

			cs = append(cs, s.chunk(idx, chat.Delta{}, &fr))
			st.finished = true
		}
		if len(cs) > n {
			out.Content = true
			s.content = true
		}
	}
	if !s.said && a.endsUnsaid() {
		// Ended before anything was said, not as a normal stop: the
		// classifier judges the chunk (OTHER, a malformed call…), a long
		// one by its digest.
		out.Digest = a.noAnswer("", nil).Digest
	}
	// Gemini has no end marker: the answer ends when every candidate has
	// its finishReason.
	out.Done = len(s.cands) > 0 && s.allFinished()
	out.Finished = out.Done
	if out.Done && len(cs) > 0 && out.Usage != nil {
		// The usage in a chunk of its own, after the finish, as OpenAI's
		// include_usage sends it.
		cs = append(cs, chat.UsageChunk(s.id, s.created, s.model, out.Usage))
	}
	if !s.raw {
		for i := range cs {
			out.Chunks = append(out.Chunks, chat.Marshal(&cs[i]))
		}
	}
	return out, nil
}

func (s *stream) allFinished() bool {
	for _, st := range s.cands {
		if !st.finished {
			return false
		}
	}
	return true
}

// chunk builds one chat.completion.chunk; the first one sent carries the
// role.
func (s *stream) chunk(idx int, d chat.Delta, finish *string) chat.Chunk {
	if !s.roleOut {
		d.Role = "assistant"
		s.roleOut = true
	}
	if s.id == "" {
		s.id = newID()
	}
	return chat.Chunk{ID: s.id, Object: "chat.completion.chunk", Created: s.created,
		Model: s.model, Choices: []chat.ChunkChoice{{Index: idx, Delta: d, FinishReason: finish}}}
}

// endsUnsaid reports whether a candidate of a ends for a reason other than
// a normal stop.
func (a *answer) endsUnsaid() bool {
	for i := range a.Candidates {
		if r := a.Candidates[i].FinishReason; r != "" && !normalStop(r) {
			return true
		}
	}
	return false
}

// normalStop reports whether a candidate's finishReason ends it as an
// answer does (the model stopped, or reached its token limit).
func normalStop(r string) bool { return r == "STOP" || r == "MAX_TOKENS" }
