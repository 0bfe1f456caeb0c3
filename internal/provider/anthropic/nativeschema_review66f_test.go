package anthropic

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// Review 66f: at a Claude model that refuses forced tool use (Sonnet 5.5,
// Opus 5.5, Fable 5.1, Mythos 5.1), a json_schema response_format is
// Anthropic's JSON outputs, output_config.format, not the answer tool
// under tool_choice auto, which let the model answer in prose
// (platform.claude.com/docs/en/build-with-claude/structured-outputs).

const calendar = `{"type":"object","additionalProperties":false,"required":["name","date","participants"],` +
	`"properties":{"name":{"type":"string"},"date":{"type":"string"},"participants":{"type":"array","items":{"type":"string"}}}}`

func schemaBody(schema, extra string) string {
	return `{"model":"r","messages":[{"role":"user","content":"Alice and Bob go to the fair on Friday."}],` +
		`"response_format":{"type":"json_schema","json_schema":{"name":"calendar_event","strict":true,"schema":` + schema + `}}` + extra + `}`
}

// formatOf is the translated body's output_config.format, nil when none.
func formatOf(t *testing.T, m map[string]json.RawMessage) *outputFormat {
	t.Helper()
	oc, ok := m["output_config"]
	if !ok {
		return nil
	}
	var c outputConfig
	if err := json.Unmarshal(oc, &c); err != nil || c.Format == nil {
		t.Fatalf("output_config %s: %v", oc, err)
	}
	return c.Format
}

func toolNames(t *testing.T, m map[string]json.RawMessage) []string {
	t.Helper()
	var tools []tool
	if raw, ok := m["tools"]; ok {
		if err := json.Unmarshal(raw, &tools); err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	return names
}

func choiceOf(t *testing.T, m map[string]json.RawMessage) toolChoice {
	t.Helper()
	var c toolChoice
	if raw, ok := m["tool_choice"]; ok {
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func sameJSON(t *testing.T, got []byte, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: %v", want, err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	return string(gb) == string(wb)
}

// The models that refuse forced tool use get the client's schema as
// output_config.format and no answer tool; the models that take forcing
// keep the forced answer tool and get no output_config.
func TestTranslateNativeFormatByModelReview66f(t *testing.T) {
	for model, native := range map[string]bool{
		"claude-sonnet-5-5":             true,
		"claude-opus-5-5":               true,
		"claude-fable-5-1":              true,
		"claude-mythos-5-1":             true,
		"claude-sonnet-6":               true,  // a later generation takes the newest rules
		"claude-opus-5-5@20260922":      true,  // Vertex
		"anthropic.claude-sonnet-5-5":   false, // Bedrock: no structured outputs for Sonnet 5.5
		"us.anthropic.claude-fable-5-1": false,
		"claude-haiku-5-5":              false, // refuses forcing; JSON outputs not documented
		"claude-sonnet-5":               false,
		"claude-opus-5":                 false,
		"claude-fable-5":                false,
		"claude-sonnet-4-5":             false,
		"my-finetune":                   false,
	} {
		m := translated(t, schemaBody(calendar, ""), model)
		f := formatOf(t, m)
		names := toolNames(t, m)
		if native {
			if f == nil || f.Type != "json_schema" || !sameJSON(t, f.Schema, calendar) {
				t.Errorf("%s: output_config %s, want the client's schema", model, m["output_config"])
			}
			if len(names) != 0 || m["tool_choice"] != nil {
				t.Errorf("%s: tools %v tool_choice %s, want none", model, names, m["tool_choice"])
			}
			continue
		}
		if f != nil {
			t.Errorf("%s: output_config %s sent", model, m["output_config"])
		}
		if len(names) != 1 || names[0] != AnswerTool {
			t.Errorf("%s: tools %v, want the answer tool", model, names)
		}
		c := choiceOf(t, m)
		refuses := forcedToolRefused.holds(model)
		if refuses && c.Type != "auto" || !refuses && (c.Type != "tool" || c.Name != AnswerTool) {
			t.Errorf("%s: tool_choice %s", model, m["tool_choice"])
		}
	}
}

// Beside the client's tools the schema is the format, the tools the
// client's alone, and tool_choice what the client set (required and a
// named function auto, as every forced choice at those models).
func TestTranslateNativeFormatBesideToolsReview66f(t *testing.T) {
	tools := `,"tools":[{"type":"function","function":{"name":"get","parameters":{"type":"object","properties":{}}}}]`
	for name, c := range map[string]struct{ extra, choice string }{
		"no choice": {tools, ""},
		"auto":      {tools + `,"tool_choice":"auto"`, "auto"},
		"none":      {tools + `,"tool_choice":"none"`, "none"},
		"required":  {tools + `,"tool_choice":"required"`, "auto"},
		"named":     {tools + `,"tool_choice":{"type":"function","function":{"name":"get"}}`, "auto"},
		"serial":    {tools + `,"parallel_tool_calls":false`, "auto"},
	} {
		m := translated(t, schemaBody(calendar, c.extra), "claude-sonnet-5-5")
		if f := formatOf(t, m); f == nil || !sameJSON(t, f.Schema, calendar) {
			t.Errorf("%s: output_config %s", name, m["output_config"])
		}
		if n := toolNames(t, m); len(n) != 1 || n[0] != "get" {
			t.Errorf("%s: tools %v, want the client's alone", name, n)
		}
		if got := choiceOf(t, m); got.Type != c.choice || got.Name != "" {
			t.Errorf("%s: tool_choice %s, want %q", name, m["tool_choice"], c.choice)
		}
		if name == "serial" && !choiceOf(t, m).DisableParallelToolUse {
			t.Errorf("serial: %s", m["tool_choice"])
		}
	}
}

// What JSON outputs cannot take keeps the answer tool, offered under auto
// as review 66d left it: json_object, a top level that is not an object,
// a schema fitting would change, a prefill.
func TestTranslateNativeFormatFallsBackReview66f(t *testing.T) {
	obj := func(props string) string { return `{"type":"object","properties":` + props + `,"required":[]}` }
	for name, body := range map[string]string{
		"json_object": `{"model":"r","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_object"}}`,
		"no schema":   `{"model":"r","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"x"}}}`,
		"array":       schemaBody(`{"type":"array","items":{"type":"string"}}`, ""),
		"root anyOf":  schemaBody(`{"anyOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"type":"string"}]}`, ""),
		"recursive": schemaBody(`{"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},"required":["root"],`+
			`"$defs":{"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["kids"],"additionalProperties":false}}}`, ""),
		"self ref":     schemaBody(obj(`{"next":{"$ref":"#"}}`), ""),
		"external ref": schemaBody(obj(`{"a":{"$ref":"https://example.com/a.json"}}`), ""),
		"dictionary":   schemaBody(obj(`{"scores":{"type":"object","additionalProperties":{"type":"integer"}}}`), ""),
		"free object":  schemaBody(obj(`{"meta":{"type":"object"}}`), ""),
		"any value":    schemaBody(obj(`{"v":{}}`), ""),
		"tuple":        schemaBody(obj(`{"p":{"type":"array","items":[{"type":"number"},{"type":"number"}]}}`), ""),
		"object enum":  schemaBody(obj(`{"e":{"enum":[{"a":1}]}}`), ""),
		"allOf ref":    schemaBody(`{"type":"object","properties":{"a":{"allOf":[{"$ref":"#/$defs/x"}]}},"$defs":{"x":{"type":"string"}}}`, ""),
		"open top":     schemaBody(`{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":true}`, ""),
		"25 optional":  schemaBody(obj(manyProps(25, `{"type":"string"}`)), ""),
		"17 unions":    schemaBody(`{"type":"object","properties":`+manyProps(17, `{"type":["string","null"]}`)+`,"required":`+manyNames(17)+`}`, ""),
		"prefill": `{"model":"r","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"{"}],` +
			`"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":` + calendar + `}}}`,
	} {
		m := translated(t, body, "claude-sonnet-5-5")
		if f := formatOf(t, m); f != nil {
			t.Errorf("%s: output_config %s sent", name, m["output_config"])
		}
		if name == "prefill" {
			continue // no answer tool either: Claude goes on with the text
		}
		if n := toolNames(t, m); len(n) != 1 || !reserved(n[0]) {
			t.Errorf("%s: tools %v, want the answer tool", name, n)
		}
		if c := choiceOf(t, m); c.Type != "auto" {
			t.Errorf("%s: tool_choice %s", name, m["tool_choice"])
		}
	}
	// The limits are Anthropic's: 24 optional and 16 union-typed properties
	// are taken.
	for name, schema := range map[string]string{
		"24 optional": obj(manyProps(24, `{"type":"string"}`)),
		"16 unions":   `{"type":"object","properties":` + manyProps(16, `{"anyOf":[{"type":"string"},{"type":"null"}]}`) + `,"required":` + manyNames(16) + `}`,
	} {
		if f := formatOf(t, translated(t, schemaBody(schema, ""), "claude-sonnet-5-5")); f == nil {
			t.Errorf("%s: no output_config", name)
		}
	}
}

func manyProps(n int, schema string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"p` + string(rune('a'+i/26)) + string(rune('a'+i%26)) + `":` + schema)
	}
	return b.String() + "}"
}

func manyNames(n int) string {
	var names []string
	for i := range n {
		names = append(names, `"p`+string(rune('a'+i/26))+string(rune('a'+i%26))+`"`)
	}
	return "[" + strings.Join(names, ",") + "]"
}

// The schema is fitted the way Anthropic's SDKs fit one: every object
// closed, constraints the API refuses said in the description, oneOf as
// anyOf, supported formats kept, definitions (both spellings) and order
// kept.
func TestFitSchemaLikeTheSDKsReview66f(t *testing.T) {
	in := `{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"Order","type":"object",` +
		`"properties":{` +
		`"qty":{"type":"integer","minimum":1,"maximum":10,"description":"How many"},` +
		`"sku":{"type":"string","pattern":"^[A-Z]{3}-\\d+$","minLength":5},` +
		`"when":{"type":"string","format":"date-time"},` +
		`"site":{"type":"string","format":"iri"},` +
		`"tags":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":3},` +
		`"pay":{"oneOf":[{"$ref":"#/$defs/card"},{"$ref":"#/definitions/cash"}]},` +
		`"note":{"type":["string","null"],"default":null}},` +
		`"required":["qty","sku","when","site","tags","pay"],` +
		`"$defs":{"card":{"type":"object","properties":{"number":{"type":"string"}},"required":["number"]}},` +
		`"definitions":{"cash":{"type":"object","properties":{"currency":{"type":"string","enum":["EUR","USD"]}}}}}`
	want := `{"title":"Order","type":"object",` +
		`"properties":{` +
		`"qty":{"type":"integer","description":"How many\n\n{minimum: 1, maximum: 10}"},` +
		`"sku":{"type":"string","description":"{pattern: \"^[A-Z]{3}-\\\\d+$\", minLength: 5}"},` +
		`"when":{"type":"string","format":"date-time"},` +
		`"site":{"type":"string","description":"{format: \"iri\"}"},` +
		`"tags":{"type":"array","items":{"type":"string"},"minItems":1,"description":"{maxItems: 3}"},` +
		`"pay":{"anyOf":[{"$ref":"#/$defs/card"},{"$ref":"#/definitions/cash"}]},` +
		`"note":{"type":["string","null"],"default":null}},` +
		`"required":["qty","sku","when","site","tags","pay"],"additionalProperties":false,` +
		`"$defs":{"card":{"type":"object","properties":{"number":{"type":"string"}},"required":["number"],"additionalProperties":false}},` +
		`"definitions":{"cash":{"type":"object","properties":{"currency":{"type":"string","enum":["EUR","USD"]}},"additionalProperties":false}}}`
	got, ok := fitSchema([]byte(in))
	if !ok {
		t.Fatal("not fitted")
	}
	if !sameJSON(t, got, want) {
		t.Errorf("fitted\n%s\nwant\n%s", got, want)
	}
	// The properties keep the client's order (Anthropic's output follows
	// it, required ones first).
	if i, j := strings.Index(string(got), `"qty"`), strings.Index(string(got), `"note"`); i < 0 || j < i {
		t.Errorf("order lost: %s", got)
	}
	// A schema OpenAI's strict mode takes as it is goes as it is.
	if got, ok := fitSchema([]byte(calendar)); !ok || !sameJSON(t, got, calendar) {
		t.Errorf("calendar fitted to %s", got)
	}
}

// A native answer is read as any answer: its text is the content (thinking
// beside it dropped), end_turn is stop, max_tokens length, refusal
// content_filter; whole and streamed. The answer is the structured
// outputs page's (content[0].text holds the JSON), after the thinking
// block a model of the 5 generation writes first.
func TestNativeAnswerReview66f(t *testing.T) {
	const answer = `{"name":"Science Fair","date":"Friday","participants":["Alice","Bob"]}`
	for stop, finish := range map[string]string{"end_turn": "stop", "max_tokens": "length", "refusal": "content_filter"} {
		body, _ := json.Marshal(map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-5-5",
			"content": []any{
				map[string]any{"type": "thinking", "thinking": "", "signature": "sig"},
				map[string]any{"type": "text", "text": answer},
			},
			"stop_reason": stop, "usage": map[string]any{"input_tokens": 30, "output_tokens": 20}})
		out, err := Adapter{}.Response(body, testEP)
		if err != nil {
			t.Fatal(err)
		}
		var c struct {
			Choices []struct {
				Message struct {
					Content   string
					ToolCalls []any `json:"tool_calls"`
				}
				FinishReason string `json:"finish_reason"`
			}
		}
		if err := json.Unmarshal(out, &c); err != nil || len(c.Choices) != 1 {
			t.Fatalf("%s: %s", stop, out)
		}
		if ch := c.Choices[0]; ch.Message.Content != answer || ch.FinishReason != finish || ch.Message.ToolCalls != nil {
			t.Errorf("%s: %s", stop, out)
		}
	}

	sse := `event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-5-5","content":[],"stop_reason":null,"usage":{"input_tokens":30,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"{\"name\":\"Science Fair\","}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"\"date\":\"Friday\",\"participants\":[\"Alice\",\"Bob\"]}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":20}}

event: message_stop
data: {"type":"message_stop"}

`
	var text strings.Builder
	var finish string
	for _, ev := range adaptertest.Events(t, testStream(strings.NewReader(sse))) {
		if ev.Error {
			t.Fatalf("error event: %+v", ev)
		}
		for _, ch := range ev.Chunks {
			var u struct {
				Choices []json.RawMessage
			}
			if json.Unmarshal(ch, &u) == nil && len(u.Choices) == 0 {
				continue // the usage chunk
			}
			content, calls, fr := chunkOf(t, ch)
			if content != nil {
				text.WriteString(*content)
			}
			if calls != 0 {
				t.Errorf("tool call in %s", ch)
			}
			if fr != nil {
				finish = *fr
			}
		}
	}
	if text.String() != answer || finish != "stop" {
		t.Errorf("streamed %q finish %q", text.String(), finish)
	}
}
