package responses

import (
	"encoding/json"
	"testing"
)

// stringOf reads any valid JSON value as json.Unmarshal reads it into a
// string: the same string, and ok exactly when Unmarshal succeeds.
func FuzzStringOf(f *testing.F) {
	for _, s := range []string{`"a"`, ` "tab\there \u00e9 \ud83d\ude00" `, `null`, ` null `, `[{"type":"input_text","text":"x"}]`, `{}`, `5`, `true`, `"\ud800"`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return // the front's strict scan refused the body
		}
		var want string
		wantOK := json.Unmarshal(raw, &want) == nil
		got, ok := stringOf(raw)
		if ok != wantOK || got != want {
			t.Fatalf("stringOf(%q) = %q, %v; json.Unmarshal: %q, %v", raw, got, ok, want, wantOK)
		}
	})
}

// Stateful refuses exactly what Translate refuses for stored state, with
// the same member named, whatever values the five members hold.
func FuzzStateful(f *testing.F) {
	f.Add(uint8(0), "", uint8(0), uint8(0), uint8(0))
	f.Add(uint8(1), "resp_1", uint8(2), uint8(1), uint8(2))
	f.Fuzz(func(t *testing.T, store uint8, prev string, conv, bg, prompt uint8) {
		values := []any{nil, true, false, "x", 3, map[string]any{"id": "p"}}
		body := map[string]any{"model": "m", "input": "hi"}
		set := func(name string, i uint8) {
			if v := values[int(i)%len(values)]; v != nil || i%7 == 6 {
				body[name] = v
			}
		}
		set("store", store)
		set("conversation", conv)
		set("background", bg)
		set("prompt", prompt)
		if prev != "" {
			body["previous_response_id"] = prev
		}
		raw, _ := json.Marshal(body)
		var w wireRequest
		if json.Unmarshal(raw, &w) != nil {
			return // Translate refuses it as malformed first
		}
		want, got := refuseState(&w), Stateful(raw)
		if (want == nil) != (got == nil) || want != nil && want.Param != got.Param {
			t.Fatalf("%s: Translate refuses %v, Stateful %v", raw, want, got)
		}
	})
}
