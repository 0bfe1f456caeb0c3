package classify

import (
	"strings"
	"testing"
)

// Round 54b's rules, from probe 54a (OpenAI-compatible servers given newer
// members of OpenAI's own Chat Completions API): where a server's copy of
// the API lags, the refusal of a member the API documents is the server's
// gap, and the route moves on (unknown), as Groq's "property 'X' is
// unsupported" already does; each beside the near answers it must leave
// alone and an echo guard (the client's own words quoted back never steer
// the class).

// mistral422 is Mistral's 422 for top-level members its schema lacks
// (Gage-Technologies/mistral-go#2, nomtek/mistralai_client_dart#44: the
// detail list inside message).
func mistral422(members ...string) string {
	var d []string
	for _, m := range members {
		d = append(d, `{"type":"extra_forbidden","loc":["body","`+m+`"],"msg":"Extra inputs are not permitted","input":"x","url":"https://errors.pydantic.dev/2.6/v/extra_forbidden"}`)
	}
	return `{"object":"error","message":{"detail":[` + strings.Join(d, ",") + `]},"type":"invalid_request_error","param":null,"code":null}`
}

// (1) pydantic's extra_forbidden at ["body","<m>"], <m> a top-level member
// of OpenAI's Chat Completions request
// (https://platform.openai.com/docs/api-reference/chat/create): the
// server's copy of the API lags (another target serves the member), not a
// typo. Nested locations and undocumented names keep today's bad_request.
func TestRoundFiftyFourBExtraForbiddenChatMember(t *testing.T) {
	newer := `{"object":"Error","detail":[{"type":"extra_forbidden","loc":["body","prompt_cache_key"],"msg":"Extra inputs are not permitted","input":"s"}]}`
	run(t, []tc{
		{"Mistral refuses verbosity", 422, nil, mistral422("verbosity"), false, "unknown", "detail:extra_forbidden=chat-member"},
		{"Mistral refuses three GPT-5 members", 422, nil, mistral422("verbosity", "safety_identifier", "prompt_cache_key"), false, "unknown", "detail:extra_forbidden=chat-member"},
		{"Mistral's newer top-level detail", 422, nil, newer, false, "unknown", "detail:extra_forbidden=chat-member"},
		{"a 400 too", 400, nil, mistral422("stream_options"), false, "unknown", "detail:extra_forbidden=chat-member"},

		// Near answers stay bad input.
		{"a typo stays bad_request", 422, nil, mistral422("verbosty"), false, "bad_request", ""},
		{"a documented member beside a typo stays bad_request", 422, nil, mistral422("verbosity", "temprature"), false, "bad_request", ""},
		{"a nested member stays bad_request", 422, nil, `{"detail":[{"type":"extra_forbidden","loc":["body","messages",1,"reasoning_content"],"msg":"Extra inputs are not permitted","input":"x"}]}`, false, "bad_request", ""},
		{"another error at a documented member stays bad_request", 422, nil, `{"detail":[{"type":"missing","loc":["body","messages"],"msg":"Field required","input":{}}]}`, false, "bad_request", ""},
		{"the words alone stay bad_request", 400, nil, `{"error":{"message":"verbosity: Extra inputs are not permitted"}}`, false, "bad_request", ""},
	})
	// The client's words: the whole detail quoted back inside a message
	// string is no structure.
	echoGuardEv(t, `{\"detail\":[{\"type\":\"extra_forbidden\",\"loc\":[\"body\",\"verbosity\"],\"msg\":\"Extra inputs are not permitted\"}]}`, 422, "detail:extra_forbidden")
}

// (2) The client's error names what the upstream refused: a pydantic
// detail's loc joined to its msg.
func TestRoundFiftyFourBMessageNamesTheLoc(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{mistral422("verbosity"), "body.verbosity: Extra inputs are not permitted"},
		{mistral422("verbosity", "store"), "body.verbosity: Extra inputs are not permitted; body.store: Extra inputs are not permitted"},
		{`{"detail":[{"type":"missing","loc":["body","messages",0,"content"],"msg":"Field required"}]}`, "body.messages.0.content: Field required"},
		// No loc: the message as it was.
		{`{"detail":"Not Found"}`, "Not Found"},
		{`{"error":{"message":"Extra inputs are not permitted"}}`, "Extra inputs are not permitted"},
		// A loc the msg already opens with is not said twice.
		{`{"detail":[{"type":"x","loc":["body","n"],"msg":"body.n: bad"}]}`, "body.n: bad"},
	} {
		if got := Message([]byte(c.body)); got != c.want {
			t.Errorf("Message(%.80s…) = %q, want %q", c.body, got, c.want)
		}
	}
}

// vllmLiteral is vLLM's 400 for a tool type its ChatCompletionToolsParam
// (type: Literal["function"]) lacks, in the envelope of camel-ai/camel#1585.
const vllmLiteral = `{"object":"error","message":"[{'type': 'literal_error', 'loc': ('body', 'tools', 0, 'type'), 'msg': \"Input should be 'function'\", 'input': 'custom', 'ctx': {'expected': \"'function'\"}}]","type":"BadRequestError","param":null,"code":400}`

// (3) pydantic's literal_error at tools.N.type: a tool type the server
// lacks, as LM Studio's "Invalid discriminator value" is.
func TestRoundFiftyFourBToolTypeLiteral(t *testing.T) {
	detail := `{"detail":[{"type":"literal_error","loc":["body","tools",2,"type"],"msg":"Input should be 'function'","input":"custom","ctx":{"expected":"'function'"}}]}`
	run(t, []tc{
		{"vLLM's custom tool", 400, nil, vllmLiteral, false, "unknown", "tools[].type:literal"},
		{"FastAPI's detail form", 422, nil, detail, false, "unknown", "tools[].type:literal"},

		{"a literal_error at a message's role stays bad_request", 400, nil, strings.Replace(vllmLiteral, "'tools', 0, 'type'", "'messages', 0, 'role'", 1), false, "bad_request", ""},
		{"a literal_error deeper in a tool stays bad_request", 400, nil, strings.Replace(vllmLiteral, "'tools', 0, 'type'", "'tools', 0, 'function', 'type'", 1), false, "bad_request", ""},
		{"another error beside it stays bad_request", 400, nil, strings.Replace(vllmLiteral, "}]\"", "}, {'type': 'missing', 'loc': ('body', 'messages'), 'msg': 'Field required'}]\"", 1), false, "bad_request", ""},
	})
	echoGuardEv(t, `[{'type': 'literal_error', 'loc': ('body', 'tools', 0, 'type'), 'msg': 'Input should be function'}]`, 400, "tools[].type:literal")
	// The whole message quoted from the client's request.
	req := `{"model":"m","messages":[{"role":"user","content":"[{'type': 'literal_error', 'loc': ('body', 'tools', 0, 'type'), 'msg': \"Input should be 'function'\", 'input': 'custom', 'ctx': {'expected': \"'function'\"}}]"}]}`
	if v := Classify(Response{Status: 400, Body: []byte(vllmLiteral), Request: []byte(req)}); strings.HasPrefix(v.Evidence, "tools[].type:literal") {
		t.Errorf("echoed literal_error: %s (%s)", v.Class, v.Evidence)
	}
}

// vllmToolChoice is vLLM's check_tool_usage refusal of a tool_choice object
// without function (vllm PR #19239).
const vllmToolChoice = "{\"object\":\"error\",\"message\":\"[{'type': 'value_error', 'loc': ('body',), 'msg': 'Value error, Invalid value for `function`: `None` in `tool_choice`! Correct usage: `{\\\"type\\\": \\\"function\\\", \\\"function\\\": {\\\"name\\\": \\\"my_function\\\"}}`'}]\",\"type\":\"BadRequestError\",\"param\":null,\"code\":400}"

// (4) vLLM's refusal of a tool_choice without function, where the client
// sent one of OpenAI's other documented tool_choice types (allowed_tools,
// custom): the server's copy lags. A function choice that lacks its
// function is the client's.
func TestRoundFiftyFourBToolChoiceWithoutFunction(t *testing.T) {
	allowed := `{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"auto","tools":[{"type":"function","function":{"name":"f"}}]}}}`
	custom := `{"model":"m","messages":[{"role":"user","content":"hi"}],"tool_choice":{"type":"custom","custom":{"name":"run_sql"}}}`
	bare := `{"model":"m","messages":[{"role":"user","content":"hi"}],"tool_choice":{"type":"function"}}`
	for _, c := range []struct {
		name, req string
		want      Class
	}{
		{"allowed_tools", allowed, Unknown},
		{"custom", custom, Unknown},
		{"a function choice without its function", bare, BadRequest},
		{"no request", "", BadRequest},
	} {
		if v := Classify(Response{Status: 400, Body: []byte(vllmToolChoice), Request: []byte(c.req)}); v.Class != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, v.Class, v.Evidence, c.want)
		}
	}
	// The words quoted back from a client whose choice is allowed_tools.
	q := "Invalid value for `function`: `None` in `tool_choice`!"
	req := strings.Replace(allowed, `"content":"hi"`, `"content":"`+q+`"`, 1)
	body := `{"error":{"message":"Content check failed: ` + q + `"}}`
	if v := Classify(Response{Status: 400, Body: []byte(body), Request: []byte(req)}); strings.HasPrefix(v.Evidence, "tool_choice:") {
		t.Errorf("echoed: %s (%s)", v.Class, v.Evidence)
	}
	echoGuardEv(t, q, 400, "tool_choice:")
}

// (5) n capped at 1 ("only n=1 is supported. Other values will result in a
// 400 response", console.groq.com/docs/api-reference#chat-create): the
// server serves one choice; OpenAI and Gemini serve several, so the route
// moves on, as a Claude target's does (docs/doors.md). Groq's wording here
// is partly reconstructed (probe 54a): no corpus case.
func TestRoundFiftyFourBNAtMostOne(t *testing.T) {
	req := `{"model":"m","messages":[{"role":"user","content":"hi"}],"n":2}`
	for _, c := range []struct {
		name, body, req string
		want            Class
	}{
		{"Groq's form", `{"error":{"message":"'n' : number must be at most 1","type":"invalid_request_error"}}`, req, Unknown},
		{"dspy#1155's words", `{"error":{"message":"n must be at most 1","type":"invalid_request_error"}}`, req, Unknown},
		{"a path form", `{"error":{"message":"n: must be less than or equal to 1"}}`, req, Unknown},
		{"Groq's docs", `{"error":{"message":"only n=1 is supported"}}`, req, Unknown},

		{"n at most 8 stays bad_request", `{"error":{"message":"'n' : number must be at most 8"}}`, strings.Replace(req, `"n":2`, `"n":9`, 1), BadRequest},
		{"n sent as 1 stays bad_request", `{"error":{"message":"'n' : number must be at most 1"}}`, strings.Replace(req, `"n":2`, `"n":1`, 1), BadRequest},
		{"another member at most 1 stays bad_request", `{"error":{"message":"'top_p' : number must be at most 1"}}`, strings.Replace(req, `"n":2`, `"top_p":2`, 1), BadRequest},
	} {
		if v := Classify(Response{Status: 400, Body: []byte(c.body), Request: []byte(c.req)}); v.Class != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, v.Class, v.Evidence, c.want)
		}
	}
	echoGuardEv(t, "'n' : number must be at most 1", 400, "n:")
	// The client's own n:2 beside its words quoted back.
	q := "n must be at most 1"
	r := strings.Replace(req, `"content":"hi"`, `"content":"`+q+`"`, 1)
	if v := Classify(Response{Status: 400, Body: []byte(`{"error":{"message":"Content check failed: ` + q + `"}}`), Request: []byte(r)}); strings.HasPrefix(v.Evidence, "n:") {
		t.Errorf("echoed n: %s (%s)", v.Class, v.Evidence)
	}
}

// echoGuardEv is echoGuardNot for a rule whose class the status alone may
// give (a 400's default is unknown): the client's words quoted back must
// not be read by the rule whose evidence begins with ev.
func echoGuardEv(t *testing.T, quote string, status int, ev string) {
	t.Helper()
	req := `{"model":"m","messages":[{"role":"user","content":"` + quote + `"}],"n":2,"tool_choice":{"type":"allowed_tools"}}`
	body := `{"error":{"message":"Content check failed: ` + quote + `"}}`
	if v := Classify(Response{Status: status, Body: []byte(body), Request: []byte(req), Model: "m"}); strings.HasPrefix(v.Evidence, ev) {
		t.Errorf("the client's words %q quoted back at %d: %s (%s)", quote, status, v.Class, v.Evidence)
	}
	// The quote as the whole message.
	body = `{"error":{"message":"` + quote + `"}}`
	if v := Classify(Response{Status: status, Body: []byte(body), Request: []byte(req), Model: "m"}); strings.HasPrefix(v.Evidence, ev) {
		t.Errorf("the client's words %q as the whole message at %d: %s (%s)", quote, status, v.Class, v.Evidence)
	}
}
