package provider

import (
	"errors"
	"fmt"
	"strings"
)

// Unsupported is an adapter's refusal of one member of a request its
// dialect cannot express (n above 1 for Claude, a custom tool, audio
// output, an image type the vendor does not take): Param names the member
// as OpenAI's error.param does ("n", "tools[0]", "modalities",
// "messages[2].content[1]"), so a client's SDK error carries it, with code
// unsupported_parameter, as OpenAI answers a member it does not take
// (docs/doors.md, "Chat Completions to Claude and Gemini targets"). It
// names a member of the canonical Chat Completions body the adapter read;
// a door that translated its client's request into that body tells the
// client its own member instead, or none (dispatch.Call.ClientParam).
type Unsupported struct {
	Param string
	Msg   string
}

func (e *Unsupported) Error() string { return e.Msg }

// ErrorParam is the member refused, which dispatch tells the client.
func (e *Unsupported) ErrorParam() string { return e.Param }

// Refuse is an Unsupported of the member param ("" for the member a caller
// places it under with At), its message formatted.
func Refuse(param, format string, a ...any) *Unsupported {
	return &Unsupported{Param: param, Msg: fmt.Sprintf(format, a...)}
}

// At places the member err refuses under the member at: an Unsupported
// of "content[1]" at "messages[2]" refuses "messages[2].content[1]", and
// one of "" (the member itself) refuses "messages[2]". A part's translator
// knows the part, not its index, nor the message's: each level that does
// places it. Any other error is returned as it is.
func At(at string, err error) error {
	var u *Unsupported
	if !errors.As(err, &u) {
		return err
	}
	p := at
	switch {
	case u.Param == "":
	case strings.HasPrefix(u.Param, "["):
		p += u.Param
	default:
		p += "." + u.Param
	}
	return &Unsupported{Param: p, Msg: u.Msg}
}
