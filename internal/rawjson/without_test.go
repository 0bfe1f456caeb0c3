package rawjson

import (
	"encoding/json"
	"testing"
)

func TestWithout(t *testing.T) {
	for in, want := range map[string]string{
		`{"model":"m","temperature":0.2,"stop":["x"]}`:      `{"model":"m","stop":["x"]}`,
		`{"model":"m","stop":["x"],"temperature":0.2}`:      `{"model":"m","stop":["x"]}`,
		`{"temperature":0.2}`:                               `{}`,
		`{ "temperature" : 0.2 , "a":1 }`:                   `{  "a":1 }`,
		`{"a":{"temperature":1},"b":2}`:                     `{"a":{"temperature":1},"b":2}`,
		`{"a":1}`:                                           `{"a":1}`,
		`{"a":1,"temperature":0.2,"temperature":0.3,"b":2}`: `{"a":1,"b":2}`,
		`[1]`: `[1]`,
	} {
		got := string(Without([]byte(in), "temperature"))
		if got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
		if json.Valid([]byte(in)) && !json.Valid([]byte(got)) {
			t.Errorf("%s: %s is not JSON", in, got)
		}
	}
}

func TestEscapedAt(t *testing.T) {
	for _, c := range []struct {
		s    string
		i    int
		want bool
	}{
		{`a"`, 1, false}, {`a\"`, 2, true}, {`a\\"`, 3, false}, {`\\\"`, 3, true}, {`"`, 0, false},
	} {
		if got := EscapedAt([]byte(c.s), c.i); got != c.want {
			t.Errorf("EscapedAt(%q, %d) = %v, want %v", c.s, c.i, got, c.want)
		}
	}
}
