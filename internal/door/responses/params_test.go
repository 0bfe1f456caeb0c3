package responses

import "testing"

// Build 68c: Params names the client's member for a member of the
// translation's chat body, and none where the chat member was made from
// several of the client's, or from none.
func TestParamsClientMember(t *testing.T) {
	req, err := Translate([]byte(`{"model":"m","input":[
	 {"role":"assistant","content":"let me look"},
	 {"type":"function_call","call_id":"c1","name":"read","namespace":"fs","arguments":"{}"},
	 {"type":"function_call","call_id":"c2","name":"x","arguments":"{}"},
	 {"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"t"},{"type":"input_image","image_url":"https://e.com/a.png"}]},
	 {"type":"function_call_output","call_id":"c2","output":[{"type":"input_image","image_url":"https://e.com/b.png"}]},
	 {"type":"additional_tools","tools":[{"type":"function","name":"late"}]},
	 {"role":"developer","content":[{"type":"input_text","text":"a"},{"type":"input_text","text":"b"}]}],
	 "tools":[{"type":"namespace","name":"fs","tools":[{"type":"function","name":"read"}]},{"type":"function","name":"x"}],
	 "reasoning":{"effort":"low"},"text":{"format":{"type":"json_schema","name":"n","schema":{"type":"object"}}},
	 "safety_identifier":"u1","user":"u0","tool_choice":{"type":"function","name":"x"}}`))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"messages":                                  "input",
		"messages[0]":                               "", // the message item and two calls
		"messages[0].content":                       "input[0].content",
		"messages[0].role":                          "input[0].role",
		"messages[0].tool_calls[0]":                 "input[1]",
		"messages[0].tool_calls[1].id":              "input[2].call_id",
		"messages[0].tool_calls[0].function.name":   "input[1].name",
		"messages[1]":                               "input[3]",
		"messages[2].content":                       "input[4].output",
		"messages[3]":                               "", // the tool outputs' images, of two items
		"messages[3].content[0]":                    "input[3].output[1]",
		"messages.3.content.1.image_url":            "input[4].output[0]",
		"messages[4].content":                       "input[6].content",
		"messages[4].content[1]":                    "input[6].content", // joined: one string
		"messages[5]":                               "",
		"messages[x]":                               "",
		"tools[0].function.name":                    "tools[0].tools[0].name",
		"tools[1].function.parameters.properties.q": "tools[1].parameters.properties.q",
		"tools[2]":                                  "input[5].tools[0]",
		"tools[2].function":                         "input[5].tools[0]",
		"tools[3]":                                  "",
		"tool_choice.function.name":                 "tool_choice",
		"reasoning_effort":                          "reasoning.effort",
		"response_format.json_schema.schema.type":   "text.format.schema",
		"response_format.json_schema.name":          "text.format.name",
		"response_format":                           "text.format",
		"user":                                      "safety_identifier",
		"max_tokens":                                "", // not sent
		"temperature":                               "",
		"model":                                     "model",
		"stream_options.include_usage":              "",
	}
	for chat, want := range cases {
		if got := req.Params.Client(chat); got != want {
			t.Errorf("%q: %q, want %q", chat, got, want)
		}
	}
	var none *Params
	if none.Client("messages[0]") != "" {
		t.Error("nil Params named a member")
	}
}
