package chat

// Calls tells apart the tool calls of one streamed answer for a door that
// translates it (internal/door/messages, internal/door/responses). OpenAI's
// stream names each call by its index, and a call's later pieces repeat
// the index alone. Some servers (Ollama, SGLang, serving stacks and
// bridges in front of them) send every parallel call at index 0, each
// opened with an id and a name of its own; read by the index alone, the
// second call's arguments would be appended to the first's, one call
// whose arguments are not JSON (review 33a). So a piece that opens a call
// — a name, and an id other than the one of the call open at its index —
// starts a new call; a piece without them goes on with the call last
// opened at its index. The zero value is ready to use and has seen no
// call.
type Calls struct {
	at map[int]openAt // by the upstream's index: the call last opened there
	n  int            // calls opened
}

type openAt struct {
	id   string
	call int
}

// Of returns the call tc is a piece of, numbered from 0 in the order the
// calls opened, and whether tc opens it. ok is false for a piece of a call
// past MaxParts, which the door drops: an upstream picks the indices.
func (c *Calls) Of(tc *ToolCallDelta) (call int, opens, ok bool) {
	o, seen := c.at[tc.Index]
	if seen && (tc.ID == "" || tc.ID == o.id || tc.Function.Name == "") {
		return o.call, false, true
	}
	if c.n >= MaxParts {
		return 0, false, false
	}
	if c.at == nil {
		c.at = make(map[int]openAt)
	}
	o = openAt{id: tc.ID, call: c.n}
	c.at[tc.Index] = o
	c.n++
	return o.call, true, true
}
