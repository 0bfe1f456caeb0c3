package responses

import (
	"strings"
	"testing"
)

// An operator relies on /v1/responses never letting a client lean on
// responses stored upstream, whatever the route: a route that begins with
// a responses: true target sends the body as is, so Stateful must find an
// item_reference however it is written — its type escaped (OpenAI decodes
// "item\u005freference" as item_reference, and Translate refuses it), or
// left out, which OpenAI's schema allows for a reference (openai-python
// types/responses/response_input_item_param.py, ItemReference: id
// required, type Optional) — before it reaches the upstream.
func TestStatefulFindsEveryItemReference(t *testing.T) {
	for _, tc := range []struct{ name, input string }{
		{"escaped type", `[{"type":"item\u005freference","id":"msg_1"}]`},
		{"escaped type, second item", `[{"role":"user","content":"hi"},{"type":"\u0069tem_reference","id":"msg_1"}]`},
		{"no type", `[{"role":"user","content":"hi"},{"id":"msg_1"}]`},
		{"type null", `[{"id":"msg_1","type":null}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"model":"m","store":false,"input":` + tc.input + `}`
			e := Stateful([]byte(body))
			if e == nil || !e.Stateful || !strings.Contains(e.Message, "item_reference") {
				t.Fatalf("Stateful(%s) = %v, want the item_reference refusal", body, e)
			}
		})
	}
	// What is not a reference passes: a message with an id (an earlier
	// answer sent back whole), a function call, the word in a text.
	for _, input := range []string{
		`[{"type":"message","role":"assistant","id":"msg_1","content":[{"type":"output_text","text":"item_reference"}]}]`,
		`[{"role":"user","id":"m1","content":"item_reference"}]`,
		`[{"type":"function_call","id":"fc_1","call_id":"c","name":"f","arguments":"{}"}]`,
		`"say item_reference"`,
	} {
		if e := Stateful([]byte(`{"model":"m","input":` + input + `}`)); e != nil {
			t.Errorf("Stateful refuses %s: %v", input, e)
		}
	}
}

// A route whose targets need the translation refuses the same references
// the same way (unsupported_parameter, the stateless design named), not as
// a message without a role.
func TestTranslateRefusesAReferenceWithoutItsType(t *testing.T) {
	for _, input := range []string{`[{"id":"msg_1"}]`, `[{"type":"item\u005freference","id":"msg_1"}]`} {
		_, err := Translate([]byte(`{"model":"m","input":` + input + `}`))
		e, ok := err.(*Error)
		if !ok || !e.Stateful || e.Param != "input[0]" || !strings.Contains(e.Message, "item_reference") {
			t.Errorf("Translate(input %s) = %v, want the item_reference refusal at input[0]", input, err)
		}
	}
}
