package messages

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"
)

// midBody is a Messages request of sys system messages with clear_at,
// then results user messages of tool results, then one user message.
func midClearBody(sys, results int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"t","input":{}}]}`)
	for range sys {
		b.WriteString(`,{"role":"system","content":"x","clear_at":"next_user_message"}`)
	}
	for range results {
		b.WriteString(`,{"role":"user","content":[{"type":"tool_result","tool_use_id":"a"}]}`)
	}
	b.WriteString(`,{"role":"user","content":"go"}],"tools":[{"name":"t","input_schema":{}}]}`)
	return b.Bytes()
}

// midToolsBody is a request of tools tools and changes references, each
// adding back the last tool, which is offered already.
func midToolsBody(tools, changes int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"hi"},{"role":"system","content":[`)
	last := fmt.Sprintf("t%06d", tools-1)
	for i := range changes {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"type":"tool_addition","tool":{"type":"tool_reference","name":%q}}`, last)
	}
	b.WriteString(`]},{"role":"user","content":"go"}],"tools":[`)
	for i := range tools {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"t%06d","input_schema":{}}`, i)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// An operator relies on one request's translation costing time in
// proportion to its size: a body well under max_body_bytes made of
// mid-conversation system messages must not pin a core for seconds.
func TestMidSystemTranslationIsNotQuadraticReview41i(t *testing.T) {
	for _, c := range []struct {
		name string
		body []byte
	}{
		{"clear_at then tool results", midClearBody(4000, 4000)},
		{"tool references", midToolsBody(20000, 20000)},
	} {
		start := time.Now()
		_, err := Translate(c.body)
		d := time.Since(start)
		t.Logf("%s: %d bytes, %v, err %v", c.name, len(c.body), d, err)
		if d > time.Second {
			t.Errorf("%s: a %d KiB body took %v to translate", c.name, len(c.body)>>10, d)
		}
	}
}

// A Claude Code user relies on the tools a translated target is offered
// being the request's, with each change applied in order: one withdrawn
// and added back goes last, and a name given twice is Anthropic's to judge.
func TestMidSystemToolChangesKeepTheirOrderReview41i(t *testing.T) {
	body := `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"hi"},{"role":"system","content":[
		{"type":"tool_removal","tool":{"type":"tool_reference","name":"a"}},
		{"type":"tool_addition","tool":{"type":"tool_reference","name":"a"}},
		{"type":"tool_addition","tool":{"type":"tool_definition","definition":{"name":"d","input_schema":{}}}},
		{"type":"tool_removal","tool":{"type":"tool_reference","name":"c"}}]},
		{"role":"user","content":"go"}],"tools":[%s]}`
	tr, err := Translate(fmt.Appendf(nil, body, `{"name":"a","input_schema":{}},{"name":"b","input_schema":{}},{"name":"c","input_schema":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Tools []struct {
			Function struct{ Name string } `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(tr.Body, &got); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, x := range got.Tools {
		names = append(names, x.Function.Name)
	}
	if fmt.Sprint(names) != "[b a d]" {
		t.Errorf("tools offered %v, want [b a d]", names)
	}
	_, err = Translate(fmt.Appendf(nil, body, `{"name":"a","input_schema":{}},{"name":"a","input_schema":{}},{"name":"c","input_schema":{}}`))
	var e *Error
	if !errors.As(err, &e) || !e.Unsupported {
		t.Errorf("tools of one name with tool changes: %v, want unsupported (Anthropic's to judge)", err)
	}
}
