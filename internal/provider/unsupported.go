package provider

// Unsupported is an adapter's refusal of one member of a request its
// dialect cannot express (n above 1 for Claude, a custom tool, audio
// output): Param names the member as OpenAI's error.param does ("n",
// "tools[0]", "modalities"), so a client's SDK error carries it, with code
// unsupported_parameter, as OpenAI answers a member it does not take
// (docs/doors.md, "Chat Completions to Claude and Gemini targets").
type Unsupported struct {
	Param string
	Msg   string
}

func (e *Unsupported) Error() string { return e.Msg }

// ErrorParam is the member refused, which dispatch tells the client.
func (e *Unsupported) ErrorParam() string { return e.Param }
