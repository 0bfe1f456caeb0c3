package gemini

import (
	"encoding/json"
	"errors"

	"github.com/detour-llm/detour/internal/provider/chat"
)

// Encoder turns canonical chat.completion.chunk objects, one at a time,
// into streamGenerateContent?alt=sse frames ("data: <GenerateContentResponse>"
// and a blank line, as Google writes them). Gemini sends a function call
// whole, and its last chunk carries the finish reason and the usage beside
// content; so the encoder holds a call until the stream ends, and the text
// last said until more follows, and End writes the last chunk: that text,
// the calls, the finish reason and the usage. @google/genai's chat keeps a
// streamed turn in its history only when every chunk carries content
// (isValidResponse): no chunk of the encoder's has none. Not safe for
// concurrent use.
type Encoder struct {
	model     string
	thoughts  bool
	id        string
	held      []outPart // said, not yet written
	calls     []*streamCall
	finish    string
	usage     *chat.Usage
	chunk     chat.StreamChunk
	callBytes int // bytes of the calls' names, ids, signatures and arguments held for End
}

// MaxHeld bounds the tool calls an Encoder holds until End writes them
// whole: past it Chunk returns ErrTooLarge and the stream is failed, rather
// than the gateway's memory grown for as long as an upstream streams one
// call's arguments (hostile 69j: 64 MiB of arguments were held, and written
// again as one frame). As the Responses door's bound (16 MiB), some thirty
// times the longest answer a model writes.
const MaxHeld = 16 << 20

// ErrTooLarge is Chunk's error once the calls held pass MaxHeld.
var ErrTooLarge = errors.New("gemini: the tool calls held passed 16 MiB")

type streamCall struct {
	id, name string
	args     []byte
	extra    json.RawMessage
}

// NewEncoder returns an Encoder for a stream answering route model; thoughts
// as Answer's.
func NewEncoder(model string, thoughts bool) *Encoder {
	return &Encoder{model: model, thoughts: thoughts}
}

// Chunk reads one canonical chunk and returns the frames it completes
// (none while it holds what it said); a chunk it cannot read writes none.
func (e *Encoder) Chunk(data []byte) ([]byte, error) {
	c := &e.chunk
	if err := chat.ReadStreamChunk(data, c); err != nil {
		return nil, err
	}
	if e.id == "" && c.ID != "" {
		e.id = c.ID
	}
	if u := c.Reported(); u != nil {
		uc := *u
		e.usage = &uc
	}
	var said []outPart
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue // one candidate (candidateCount above 1 is not translated)
		}
		d := &ch.Delta
		if r := d.Thinking(); e.thoughts && r != "" {
			said = append(said, outPart{Text: &r, Thought: true})
		}
		if d.Content != nil && *d.Content != "" {
			t := *d.Content
			said = append(said, outPart{Text: &t})
		} else if d.Refusal != nil && *d.Refusal != "" {
			t := *d.Refusal
			said = append(said, outPart{Text: &t})
		}
		for _, tc := range d.ToolCalls {
			e.call(tc)
		}
		if e.callBytes > MaxHeld {
			return nil, ErrTooLarge
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			e.finish = *ch.FinishReason
		}
	}
	if len(said) == 0 {
		return nil, nil
	}
	var out []byte
	if len(e.held) > 0 {
		out = e.frame(e.held, "", nil)
	}
	e.held = said
	return out, nil
}

// call adds one tool call piece: a new index starts a call, a known one
// adds to its arguments.
func (e *Encoder) call(tc chat.ToolCallDelta) {
	if tc.Index < 0 || tc.Index >= chat.MaxParts {
		return
	}
	for len(e.calls) <= tc.Index {
		e.calls = append(e.calls, nil)
	}
	c := e.calls[tc.Index]
	if c == nil {
		c = &streamCall{}
		e.calls[tc.Index] = c
	}
	if tc.ID != "" {
		e.callBytes += len(tc.ID) - len(c.id)
		c.id = tc.ID
	}
	if tc.Function.Name != "" {
		e.callBytes += len(tc.Function.Name) - len(c.name)
		c.name = tc.Function.Name
	}
	c.args = append(c.args, tc.Function.Arguments...)
	e.callBytes += len(tc.Function.Arguments)
	if len(tc.ExtraContent) > 0 {
		e.callBytes += len(tc.ExtraContent) - len(c.extra)
		c.extra = tc.ExtraContent
	}
}

// Said returns a frame of the text the encoder holds (nil when it holds
// none) and lets it go: for a stream that fails after the commit point,
// whose words then reach the client before the error frame, as at the
// other doors. Tool calls not yet ended are not written (their arguments
// may be cut); the frame has no finish reason.
func (e *Encoder) Said() []byte {
	if len(e.held) == 0 {
		return nil
	}
	out := e.frame(e.held, "", nil)
	e.held = nil
	return out
}

// End returns the stream's last frame: what it held, its calls, its finish
// reason (STOP when the upstream gave none) and its usage.
func (e *Encoder) End() []byte {
	parts := e.held
	for _, c := range e.calls {
		if c != nil && c.name != "" {
			parts = append(parts, callPart(c.id, c.name, string(c.args), c.extra))
		}
	}
	if len(parts) == 0 {
		empty := ""
		parts = []outPart{{Text: &empty}}
	}
	finish := FinishReason(e.finish)
	if finish == "" {
		finish = "STOP"
	}
	return e.frame(parts, finish, usage(e.usage))
}

// frame writes one GenerateContentResponse as an SSE data event.
func (e *Encoder) frame(parts []outPart, finish string, u *outUsage) []byte {
	a := outAnswer{Candidates: []outCandidate{{Content: &outContent{Role: "model", Parts: parts}, FinishReason: finish}},
		UsageMetadata: u, ModelVersion: e.model, ResponseID: e.id}
	b, _ := json.Marshal(a)
	out := make([]byte, 0, len(b)+10)
	out = append(out, "data: "...)
	out = append(out, b...)
	return append(out, "\r\n\r\n"...)
}
