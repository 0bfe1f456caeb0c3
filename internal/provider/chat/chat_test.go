package chat

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

func TestParse(t *testing.T) {
	r, err := Parse(&provider.Request{Stream: true, Body: []byte(`{"model":"m","stop":"END","max_tokens":5,
		"max_completion_tokens":7,"messages":[{"role":"user","content":[{"type":"text","text":"a"},
		{"type":"image_url","image_url":{"url":"https://x/y.png"}},{"type":"text","text":"b"}]}]}`)})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Stream || len(r.Stop) != 1 || r.Stop[0] != "END" {
		t.Errorf("got %+v", r)
	}
	if n, ok := r.Limit(); !ok || n != 7 {
		t.Errorf("Limit = %d, %v; max_completion_tokens wins", n, ok)
	}
	txt, err := r.Messages[0].Text("|")
	if err != nil || txt != "a|b" {
		t.Errorf("Text = %q, %v", txt, err)
	}
	for _, body := range []string{`{"stop":["a","b"]}`, `{"stop":null}`, `{}`} {
		if _, err := Parse(&provider.Request{Body: []byte(body)}); err != nil {
			t.Errorf("%s: %v", body, err)
		}
	}
	if _, err := Parse(&provider.Request{Body: []byte(`{"stop":{"a":1}}`)}); err == nil {
		t.Error("stop object: want an error")
	}
}

func TestParts(t *testing.T) {
	for raw, n := range map[string]int{``: 0, `null`: 0, `"hi"`: 1, `""`: 1, `[]`: 0, `[{"type":"text","text":"x"}]`: 1} {
		m := Message{Role: "user", Content: json.RawMessage(raw)}
		ps, err := m.Parts()
		if err != nil || len(ps) != n {
			t.Errorf("%q: %d parts, %v; want %d", raw, len(ps), err, n)
		}
	}
}

func TestParseToolChoice(t *testing.T) {
	for raw, want := range map[string]ToolChoice{
		``: {}, `null`: {}, `"auto"`: {Mode: "auto"}, `"none"`: {Mode: "none"}, `"required"`: {Mode: "required"},
		`{"type":"function","function":{"name":"f"}}`: {Mode: "function", Name: "f"},
		// The Chat Completions reference's allowed_tools choice (openai-go
		// ChatCompletionAllowedToolsParam).
		`{"type":"allowed_tools","allowed_tools":{"mode":"auto","tools":[{"type":"function","function":{"name":"get_weather"}},{"type":"function","function":{"name":"get_time"}}]}}`: {Mode: "auto", Allowed: []string{"get_weather", "get_time"}},
		`{"type":"allowed_tools","allowed_tools":{"mode":"required","tools":[{"type":"function","function":{"name":"f"}}]}}`:                                                          {Mode: "required", Allowed: []string{"f"}},
	} {
		got, err := ParseToolChoice(json.RawMessage(raw))
		for _, n := range want.Allowed {
			if !got.Permits(n) {
				t.Errorf("%s: does not permit %q", raw, n)
			}
		}
		if got.Permits("unlisted") != (want.Allowed == nil) {
			t.Errorf("%s: permits an unlisted name: %v", raw, got.Permits("unlisted"))
		}
		got.allowed = nil // Allowed's set, checked by Permits above
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v, %v", raw, got, err)
		}
	}
	for _, raw := range []string{`"any"`, `{"type":"function"}`, `{"type":"allowed_tools"}`, `7`,
		`{"type":"allowed_tools","allowed_tools":{"mode":"none","tools":[{"type":"function","function":{"name":"f"}}]}}`,
		`{"type":"allowed_tools","allowed_tools":{"mode":"auto","tools":[]}}`,
		`{"type":"allowed_tools","allowed_tools":{"mode":"auto","tools":[{"type":"custom","custom":{"name":"f"}}]}}`,
		`{"type":"allowed_tools","allowed_tools":{"mode":"auto","tools":[{"type":"function","function":{}}]}}`,
		`{"type":"custom","custom":{"name":"f"}}`} {
		if _, err := ParseToolChoice(json.RawMessage(raw)); err == nil {
			t.Errorf("%s: want an error", raw)
		}
	}
}

func TestDataURL(t *testing.T) {
	mt, data, ok := DataURL("data:image/png;base64,iVBORw0KGgo=")
	if !ok || mt != "image/png" || data != "iVBORw0KGgo=" {
		t.Errorf("got %q %q %v", mt, data, ok)
	}
	mt, _, ok = DataURL("data:image/jpeg;name=a.jpg;base64,AA==")
	if !ok || mt != "image/jpeg" {
		t.Errorf("parameters: got %q %v", mt, ok)
	}
	// image/jpg and image/pjpeg are what browsers, pasteboards and many
	// tools write for JPEG (hermes-agent#55432); Anthropic and Gemini take
	// only image/jpeg and refuse the others (comic-translate#399).
	for _, u := range []string{"data:image/jpg;base64,AA==", "data:IMAGE/JPG;base64,AA==", "data:image/pjpeg;base64,AA=="} {
		if mt, _, ok := DataURL(u); !ok || mt != "image/jpeg" {
			t.Errorf("%s: got %q %v, want image/jpeg", u, mt, ok)
		}
	}
	for _, u := range []string{"https://x/y.png", "data:text/plain,hello", "data:image/png;base64"} {
		if _, _, ok := DataURL(u); ok {
			t.Errorf("%s: want not ok", u)
		}
	}
}

func TestArguments(t *testing.T) {
	for in, want := range map[string]string{"": "{}", "  ": "{}", `{"a":1}`: `{"a":1}`} {
		got, err := Arguments(in)
		if err != nil || string(got) != want {
			t.Errorf("%q: %s, %v", in, got, err)
		}
	}
	for _, in := range []string{`[1]`, `{"a":`, `"x"`} {
		if _, err := Arguments(in); err == nil {
			t.Errorf("%q: want an error", in)
		}
	}
}

// A member of the wrong type is named as the client wrote it, with the
// JSON type wanted: the message reaches the client when no target can take
// the request.
func TestParseNamesAMemberOfTheWrongType(t *testing.T) {
	for body, want := range map[string]string{
		`{"tools":[{"type":"function","function":{"name":5}}]}`: "chat: tools.function.name: want a string, got number",
		`{"max_tokens":"ten"}`:         "chat: max_tokens: want an integer, got string",
		`{"messages":{"role":"user"}}`: "chat: messages: want an array, got object",
	} {
		_, err := Parse(&provider.Request{Body: []byte(body)})
		if err == nil || err.Error() != want {
			t.Errorf("%s: error %v, want %q", body, err, want)
		}
	}
}

// A structured answer whose schema's top level is not an object travels
// as the "value" of one (Claude's answer tool, Gemini's answer function);
// its "#/$defs/…" references resolve against the wrapper's root, so the
// wrapper carries its $defs and definitions (review 47b).
func TestValueSchemaKeepsDefs(t *testing.T) {
	node := `{"$defs":{"Node":{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#/$defs/Node"}}}}},"definitions":{"Old":{"type":"string"}},"$ref":"#/$defs/Node"}`
	w, err := ValueSchema(json.RawMessage(node))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Type       string
		Properties map[string]json.RawMessage
		Required   []string
		Defs       map[string]json.RawMessage `json:"$defs"`
		Defs2      map[string]json.RawMessage `json:"definitions"`
	}
	if err := json.Unmarshal(w, &got); err != nil {
		t.Fatal(err)
	}
	if got.Type != "object" || string(got.Properties["value"]) != node || len(got.Required) != 1 || got.Defs["Node"] == nil || got.Defs2["Old"] == nil {
		t.Errorf("wrapper %s", w)
	}
	if w, _ := ValueSchema(json.RawMessage(`{"type":"array","items":{"type":"string"}}`)); strings.Contains(string(w), "$defs") {
		t.Errorf("a schema without $defs got some: %s", w)
	}
}
