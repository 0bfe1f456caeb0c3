package splice

import (
	"encoding/json"
	"errors"
	"strings"
)

// ErrDiverged is Replay's report that the replacement stream did not
// reproduce the delivered text: the caller ends the client's stream with an
// error event and sends nothing more of it.
var ErrDiverged = errors.New("splice: replay diverged from the delivered text")

// Replay holds back a replacement stream while it reproduces the text
// already delivered, then passes through what follows. The comparison is
// exact, byte for byte on the decoded content of choice 0: a model that
// reproduces the text with other whitespace or punctuation has given
// another answer, and passing its remainder on would splice two answers.
type Replay struct {
	want string // the delivered text not yet reproduced
	done bool   // the delivered text has been reproduced
	bad  bool   // diverged
}

// NewReplay returns a Replay expecting delivered to be reproduced first.
func NewReplay(delivered string) *Replay {
	return &Replay{want: delivered, done: delivered == ""}
}

// Matched reports whether the delivered text has been reproduced: from
// then on chunks pass through unchanged.
func (r *Replay) Matched() bool { return r.done }

// Chunk returns what of the replacement chunk b may go on to the Seam: nil
// while it reproduces delivered text, the chunk with only the new content
// at the boundary, b itself after it. Usage in a held-back chunk is kept (as
// a chunk with no choices) so the Seam can account for it. It returns
// ErrDiverged — from then on for every chunk — when the content differs
// from the delivered text, or the choice finishes, calls a tool or carries
// another index before reproducing all of it.
func (r *Replay) Chunk(b []byte) ([]byte, error) {
	if r.bad {
		return nil, ErrDiverged
	}
	if r.done {
		return b, nil
	}
	c, err := parse(b)
	if err != nil {
		return nil, err
	}
	boundary := -1
	for i := range c.choices {
		if c.index(i) != 0 || c.has(i, "tool_calls") {
			return r.diverge()
		}
		s, _, err := c.content(i)
		if err != nil {
			return nil, err
		}
		if len(s) <= len(r.want) {
			if !strings.HasPrefix(r.want, s) {
				return r.diverge()
			}
			r.want = r.want[len(s):]
			if r.want == "" {
				r.done, boundary = true, i
				c.setContent(i, "")
			} else if c.finished(i) {
				return r.diverge()
			}
			continue
		}
		if !strings.HasPrefix(s, r.want) {
			return r.diverge()
		}
		c.setContent(i, s[len(r.want):])
		r.want, r.done, boundary = "", true, i
	}
	if boundary >= 0 {
		// The rest of the boundary chunk goes on as it is (the Seam
		// removes a repeated role).
		return c.encode(b), nil
	}
	if u, ok := c.top["usage"]; ok && !isNull(u) {
		c.choices, c.deltas = []map[string]json.RawMessage{}, nil
		c.dirty = true
		return c.encode(b), nil
	}
	return nil, nil
}

func (r *Replay) diverge() ([]byte, error) {
	r.bad = true
	return nil, ErrDiverged
}
