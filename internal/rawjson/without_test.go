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
