package splice

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/detour-llm/detour/internal/provider"
)

// Seam turns the chunks of successive upstream streams (the first one, then
// each continuation after a Next) into one client stream. The zero Seam is
// ready for the first upstream.
//
// What it guarantees for the chunks it returns:
//   - every chunk has the first chunk's id, created and model (a member the
//     first chunk lacked is removed from later ones);
//   - one role delta: a role after the first is removed;
//   - a chunk left carrying nothing (no usage, no finish reason, no delta
//     member but an empty content) is dropped: Chunk returns nil;
//   - usage is the whole answer's where upstreams report it (Usage).
//
// It records the text delivered for choice 0. Requests for several choices
// (a choice index other than 0), tool-call deltas and other non-text delta
// members (refusal, reasoning_content, audio, …) and a choice's log
// probabilities (a replay's boundary chunk carries the reproduced tokens'
// too; a target may send none) are passed through but make the stream one
// that Cut refuses to continue.
type Seam struct {
	head    bool            // the first chunk has been seen
	id      json.RawMessage // the first chunk's id, created, model (nil = absent)
	created json.RawMessage
	model   json.RawMessage
	role    bool // a role delta has been sent

	text     strings.Builder // content of choice 0 delivered so far
	deltas   int             // chunks that delivered some of it
	tool     bool            // a tool-call delta was delivered
	toolOpen bool            // … and no finish reason followed it
	other    string          // a non-text delta member that was delivered
	logprobs bool            // a choice's log probabilities were delivered
	multi    bool            // a choice index other than 0 was seen
	finished bool            // choice 0 delivered its finish reason

	upstream int               // upstreams begun after the first
	usage    []*provider.Usage // last usage reported, per upstream
}

// Next marks the start of a continuation: the chunks that follow come from
// a new upstream.
func (s *Seam) Next() { s.upstream++ }

// Upstreams is how many upstreams have fed the seam (1 before any Next).
func (s *Seam) Upstreams() int { return s.upstream + 1 }

// textKeys are the delta members the seam can continue: everything else
// makes a cut unsplicable.
func textKey(k string) bool { return k == "role" || k == "content" }

// Chunk rewrites one canonical chunk JSON for the client. It returns nil
// when the chunk is to be dropped, and an error when b is not a chunk (the
// caller treats that as a malformed upstream event and sends nothing).
func (s *Seam) Chunk(b []byte) ([]byte, error) {
	c, err := parse(b)
	if err != nil {
		return nil, err
	}
	if !s.head {
		s.head = true
		s.id, s.created, s.model = c.top["id"], c.top["created"], c.top["model"]
	} else {
		s.same(c, "id", s.id)
		s.same(c, "created", s.created)
		s.same(c, "model", s.model)
	}
	for i := range c.choices {
		if c.has(i, "role") {
			if s.role {
				delete(c.deltas[i], "role")
				c.dirty = true
			}
			s.role = true
		}
		if c.index(i) != 0 {
			s.multi = true
		}
		if c.logprobs(i) {
			s.logprobs = true
		}
		for k, v := range c.deltas[i] {
			switch {
			case blank(v) || textKey(k):
			case k == "tool_calls":
				s.tool, s.toolOpen = true, true
			default:
				s.other = k
			}
		}
		if c.index(i) == 0 {
			text, ok, err := c.content(i)
			if err != nil {
				return nil, err
			}
			if ok && text != "" {
				s.text.WriteString(text)
				s.deltas++
			}
		}
		if c.finished(i) {
			s.toolOpen = false
			if c.index(i) == 0 {
				s.finished = true
			}
		}
	}
	if err := s.account(c); err != nil {
		return nil, err
	}
	if c.empty() {
		return nil, nil
	}
	return c.encode(b), nil
}

func (s *Seam) same(c *chunk, key string, want json.RawMessage) {
	got, ok := c.top[key]
	switch {
	case want == nil && ok:
		delete(c.top, key)
	case want == nil:
		return
	case !bytes.Equal(got, want):
		c.top[key] = want
	default:
		return
	}
	c.dirty = true
}

// account records the chunk's usage for the current upstream and, once a
// continuation has begun or more than one upstream reported, rewrites it to
// the running total.
func (s *Seam) account(c *chunk) error {
	u, err := c.usage()
	if err != nil || u == nil {
		return err
	}
	s.Report(u)
	reported := 0
	for _, x := range s.usage {
		if x != nil {
			reported++
		}
	}
	if reported > 1 || s.upstream > 0 {
		total, _ := s.Usage()
		c.top["usage"] = mustMarshal(total)
		c.dirty = true
	}
	return nil
}

// Report records usage the current upstream reported outside a chunk (an
// adapter's event usage, e.g. Anthropic's message_start input tokens), as
// the latest for that upstream; nil is ignored.
func (s *Seam) Report(u *provider.Usage) {
	if u == nil {
		return
	}
	for len(s.usage) <= s.upstream {
		s.usage = append(s.usage, nil)
	}
	c := *u
	s.usage[s.upstream] = &c
}

// Usage is the usage of the whole answer so far: the sums of what every
// upstream reported — prompt tokens (with their cache details), completion
// tokens and the total of the two. These are the tokens the upstreams
// billed, as the decision record sums them: each continuation sends the
// prompt again (a prefill continuation's includes the prefill), and a
// replay's completion tokens include the text it reproduced (review 39g:
// the prompt of the first upstream alone told the client less than the
// record billed). complete is true only for a stream that had no
// continuation and whose upstream reported usage: a cut upstream's usage is
// never known in full (it usually reports none), so after a cut the counts
// are a lower bound. The zero Seam reports zero usage, not complete.
func (s *Seam) Usage() (u provider.Usage, complete bool) {
	complete = s.upstream == 0 && len(s.usage) == 1 && s.usage[0] != nil
	for _, x := range s.usage {
		if x == nil {
			continue
		}
		u.PromptTokens += x.PromptTokens
		u.CompletionTokens += x.CompletionTokens
		u.CacheCreationInputTokens += x.CacheCreationInputTokens
		if d := x.PromptTokensDetails; d != nil {
			if u.PromptTokensDetails == nil {
				u.PromptTokensDetails = &provider.TokenDetails{}
			}
			addDetails(u.PromptTokensDetails, d)
		}
	}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	return u, complete
}

// addDetails adds the prompt details d to sum.
func addDetails(sum, d *provider.TokenDetails) {
	sum.CachedTokens += d.CachedTokens
	sum.CacheWriteTokens += d.CacheWriteTokens
	sum.CacheCreationTokens += d.CacheCreationTokens
	if c := d.CacheCreation; c != nil {
		if sum.CacheCreation == nil {
			sum.CacheCreation = &provider.CacheCreation{}
		}
		sum.CacheCreation.Ephemeral5m += c.Ephemeral5m
		sum.CacheCreation.Ephemeral1h += c.Ephemeral1h
	}
}

// Text is the content of choice 0 delivered so far.
func (s *Seam) Text() string { return s.text.String() }

// InToolCall reports whether a tool-call delta was delivered and no finish
// reason has followed it: a cut now must not be spliced (Cut refuses it).
func (s *Seam) InToolCall() bool { return s.toolOpen }

// Finished reports whether choice 0's finish reason has been delivered: the
// answer is complete and a cut after it is not one.
func (s *Seam) Finished() bool { return s.finished }

// Mode is how a cut stream is continued.
type Mode int

// The continuation modes.
const (
	// Refuse: the stream cannot be continued; it ends with an error event.
	Refuse Mode = iota
	// ByPrefill: the delivered text is sent as a trailing assistant message.
	ByPrefill
	// ByReplay: the request is sent again and its output held back until it
	// reproduces the delivered text.
	ByReplay
)

// String names the mode as the decision record shows it.
func (m Mode) String() string {
	switch m {
	case ByPrefill:
		return "prefill"
	case ByReplay:
		return "replay"
	}
	return "refuse"
}

// Cut is what the seam knows when its current upstream was cut.
type Cut struct {
	// Text is the content of choice 0 delivered so far; Chars is its length
	// in characters (Unicode code points), the offset the record shows.
	Text  string
	Chars int
	// Tokens is a lower bound of the completion tokens delivered: one per
	// chunk that delivered content (a streamed delta carries at least one
	// token), or the most any one upstream reported, if more. A prefill
	// continuation's cap is lowered by it (LowerCap).
	Tokens int
	// Reason says why the stream cannot be continued; "" when it can.
	Reason string
}

// Cut describes the stream at a cut.
func (s *Seam) Cut() Cut {
	t := s.text.String()
	c := Cut{Text: t, Chars: utf8.RuneCountInString(t), Tokens: s.deltas}
	for _, u := range s.usage {
		if u != nil && u.CompletionTokens > c.Tokens {
			c.Tokens = u.CompletionTokens
		}
	}
	switch {
	case s.finished:
		c.Reason = "the answer was complete"
	case s.multi:
		c.Reason = "more than one choice (n > 1)"
	case s.toolOpen:
		c.Reason = "cut inside a tool call"
	case s.tool:
		c.Reason = "tool calls were delivered"
	case s.other != "":
		c.Reason = "a " + s.other + " delta was delivered"
	case s.logprobs:
		c.Reason = "log probabilities were delivered"
	}
	return c
}

// Mode is how this cut is continued at a target that does (prefill true)
// or does not accept a prefill: Refuse when Reason is set; ByReplay when
// the target takes no prefill or nothing but whitespace was delivered (an
// empty assistant message is not a prefill); else ByPrefill.
func (c Cut) Mode(prefill bool) Mode {
	switch {
	case c.Reason != "":
		return Refuse
	case !prefill || strings.TrimRightFunc(c.Text, unicode.IsSpace) == "":
		return ByReplay
	}
	return ByPrefill
}
