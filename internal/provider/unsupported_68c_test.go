package provider

import (
	"errors"
	"testing"
)

// Build 68c: a part's refusal is placed under its part and its message.
func TestAtPlacesRefusedMember(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{Refuse("", "x"), "messages[2]"},
		{Refuse("content[1]", "x"), "messages[2].content[1]"},
		{Refuse("[1]", "x"), "messages[2][1]"},
	} {
		var u *Unsupported
		if err := At("messages[2]", tc.err); !errors.As(err, &u) || u.Param != tc.want || u.Msg != "x" {
			t.Errorf("%v: %#v, want param %q", tc.err, err, tc.want)
		}
	}
	plain := errors.New("internal")
	if At("messages[2]", plain) != plain {
		t.Error("a plain error changed")
	}
}
