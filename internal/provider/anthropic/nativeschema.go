package anthropic

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/detour-llm/detour/internal/provider/chat"
	"github.com/detour-llm/detour/internal/rawjson"
)

// Native structured output (review 66f; docs/doors.md, "Structured output
// on Claude targets"). A Claude model that refuses forced tool use
// (forcedToolRefused) is asked for a json_schema response_format with
// Anthropic's own JSON outputs, output_config.format {"type":"json_schema",
// "schema":…}, which constrains the answer's text to the schema
// (platform.claude.com/docs/en/build-with-claude/structured-outputs): the
// answer tool under tool_choice auto, all 66d could send there, lets the
// model answer in prose. Anthropic's pages for those models name
// structured outputs as what replaces a forced tool (Fable 5.1's
// what's-new: "move the schema to structured outputs"; Sonnet 5.5's
// migration guide, which also says they "aren't available for Claude
// Sonnet 5.5" on Amazon Bedrock).

// outputConfig is the Messages request's output_config: the translation
// sets only its format.
type outputConfig struct {
	Format *outputFormat `json:"format,omitempty"`
}

type outputFormat struct {
	Type   string          `json:"type"`
	Schema json.RawMessage `json:"schema"`
}

// nativeFormat: the models, among those that refuse forced tool use, asked
// with output_config.format. Opus, Sonnet, Fable and Mythos from 5.1 (the
// pages above; the structured outputs page lists every model through Fable
// 5, Mythos 5, Opus 4.8 and Sonnet 5; Opus 5.5's own row was found only in
// model catalogs, not in Anthropic's pages). Haiku's rows are not
// documented: a Haiku that refuses forcing keeps the answer tool under
// auto.
var nativeFormat = since{"opus": {"opus", 5, 1}, "sonnet": {"sonnet", 5, 1}, "fable": {"fable", 5, 1}, "mythos": {"mythos", 5, 1}}

// takesNativeFormat reports whether the translation asks model for a
// structured answer with output_config.format: a model that refuses forced
// tool use and documents JSON outputs, not by a Bedrock id (anthropic.…,
// us.anthropic.…, an ARN with one), where Sonnet 5.5 has no structured
// outputs and the others' are not documented.
func takesNativeFormat(model string) bool {
	return forcedToolRefused.holds(model) && nativeFormat.holds(model) && !strings.Contains(model, "anthropic.claude")
}

// nativeStructured sets out.OutputConfig for a json_schema response_format
// whose schema Anthropic's JSON outputs take once fitted (fitSchema), and
// reports whether it did. It does not for json_object (no schema to
// constrain to: the fitted {"type":"object"} would allow only {}), a
// schema whose top level is not an object or is a combinator (the
// structured outputs page shows object schemas only), or a schema
// fitSchema cannot take: the answer tool, offered under auto, serves
// those as before. Nor for a prefill (incompatible with JSON outputs, and
// refused by those models anyway), which gets no answer tool either
// (structured).
func nativeStructured(rf *chat.ResponseFormat, out *messagesRequest) bool {
	if rf == nil || rf.Type != "json_schema" || rf.JSONSchema == nil {
		return false
	}
	if n := len(out.Messages); n > 0 && out.Messages[n-1].Role == "assistant" {
		return false
	}
	s := bytes.TrimSpace(rf.JSONSchema.Schema)
	if t, _ := rawjson.String(rawjson.Member(s, "type")); t != "object" || rootCombinator(s) {
		return false
	}
	fitted, ok := fitSchema(s)
	if !ok {
		return false
	}
	out.OutputConfig = &outputConfig{Format: &outputFormat{Type: "json_schema", Schema: fitted}}
	return true
}
