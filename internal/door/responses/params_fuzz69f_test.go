package responses

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// FuzzParams (fuzz 69f): for any body Translate takes, each member of its
// chat body (and any path at all) is mapped back (Params.Client) to "" or
// to a member that exists in the client's body (or a member its item
// lacks, as OpenAI names a missing one; not the model), its names read as
// encoding/json reads the request (a name matched without regard to case,
// the last of duplicates). The mapping is the same each time it is asked.
func FuzzParams(f *testing.F) {
	for _, c := range translateCases {
		f.Add([]byte(c.in), "messages[0].content")
	}
	f.Add([]byte(`{"model":"m","input":[{"role":"assistant","content":"let me look"},{"type":"function_call","call_id":"c1","name":"read","namespace":"fs","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"t"},{"type":"input_image","image_url":"https://e.com/a.png"}]},{"type":"additional_tools","tools":[{"type":"function","name":"late"}]},{"role":"developer","content":[{"type":"input_text","text":"a"},{"type":"input_text","text":"b"}]}],"tools":[{"type":"namespace","name":"fs","tools":[{"type":"function","name":"read"}]},{"type":"function","name":"x","parameters":{"type":"object","properties":{"q":{"type":"string"}}}}],"reasoning":{"effort":"low"},"text":{"format":{"type":"json_schema","name":"n","schema":{"type":"object"}}},"safety_identifier":"u1","user":"u0","tool_choice":{"type":"function","name":"x"},"max_output_tokens":9,"instructions":"be brief"}`),
		"tools[1].function.parameters.properties.q")
	f.Add([]byte(`{"model":"m","instructions":"i","input":"hi"}`), "messages.1.content")
	f.Fuzz(func(t *testing.T, body []byte, p string) {
		r, err := Translate(body)
		if err != nil || r.Params == nil {
			return
		}
		var client any
		if json.Unmarshal(body, &client) != nil {
			return
		}
		var chat any
		if err := json.Unmarshal(r.Chat, &chat); err != nil {
			t.Fatalf("chat body %q: %v", r.Chat, err)
		}
		paths := []string{p}
		chatPaths(chat, "", &paths)
		for _, q := range paths {
			got := r.Params.Client(q)
			if got == "" {
				continue
			}
			if again := r.Params.Client(q); again != got {
				t.Fatalf("%q: %q then %q", q, got, again)
			}
			if !memberExists(client, got) {
				t.Fatalf("%q named %q, which %s does not hold", q, got, body)
			}
		}
	})
}

// chatPaths appends the path of every member within v (at most 300).
func chatPaths(v any, at string, paths *[]string) {
	if len(*paths) > 300 {
		return
	}
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			p := k
			if at != "" {
				p = at + "." + k
			}
			*paths = append(*paths, p)
			chatPaths(e, p, paths)
		}
	case []any:
		for i, e := range v {
			p := at + "[" + strconv.Itoa(i) + "]"
			*paths = append(*paths, p)
			chatPaths(e, p, paths)
		}
	}
}

// memberExists reports whether p ("input[3].content", "text.format.schema")
// names a member of v, a name matched as encoding/json matches a field's.
func memberExists(v any, p string) bool {
	for p != "" {
		if strings.HasPrefix(p, "[") {
			end := strings.IndexByte(p, ']')
			i, err := strconv.Atoi(p[1:max(end, 1)])
			a, ok := v.([]any)
			if end < 0 || err != nil || !ok || i < 0 || i >= len(a) {
				return false
			}
			v, p = a[i], p[end+1:]
			continue
		}
		p = strings.TrimPrefix(p, ".")
		end := strings.IndexAny(p, ".[")
		if end < 0 {
			end = len(p)
		}
		name := p[:end]
		p = p[end:]
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		e, ok := m[name]
		if !ok {
			for k, x := range m {
				if bytes.EqualFold([]byte(k), []byte(name)) {
					e, ok = x, true
				}
			}
		}
		if !ok {
			// A required member the item lacks (a function_call_output
			// without output) is named as OpenAI names a missing one.
			return p == "" && name != "model"
		}
		v = e
	}
	return true
}

// Fuzz 69f: a request that names no model (the route's is sent) has no
// member "model" for an upstream's param to be told as.
func TestFuzz69fParamModelOnlyWhereSent(t *testing.T) {
	for body, want := range map[string]string{
		`{"input":"hi"}`:             "",
		`{"model":"","input":"hi"}`:  "",
		`{"model":"m","input":"hi"}`: "model",
	} {
		r, err := Translate([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Params.Client("model"); got != want {
			t.Errorf("%s: model told as %q, want %q", body, got, want)
		}
	}
}
