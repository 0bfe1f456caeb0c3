package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 62f: clients against Gemini targets, through a strict Gemini fake
// (gemini_strict_review62f_test.go) that refuses what Gemini's API
// documents it refuses. A tool's or a response format's schema with
// siblings beside a $ref, a tool result holding "$ref" and a function name
// starting with a digit were sent as they came, and refused; each failed
// before its mend.

const p62fCfg = `
providers:
  - {name: gemini, dialect: gemini, base_url: "{gemini}", api_key: ` + secret + `}
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
targets:
  - {name: gem25, model: gemini-2.5-flash, providers: [gemini]}
  - {name: gem3, model: gemini-3-flash-preview, providers: [gemini]}
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
routes:
  - {name: g25, targets: [gem25]}
  - {name: g3, targets: [gem3]}
  - {name: g25-gpt, targets: [gem25, gpt]}
  - {name: g3-gpt, targets: [gem3, gpt]}
`

const p62fText = `{"candidates":[{"content":{"role":"model","parts":[{"text":"fine"}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":1,"totalTokenCount":11},"modelVersion":"gemini-2.5-flash","responseId":"r1"}`

// p62fGateway starts a gateway whose gemini provider is the strict fake
// answering with answer; refused collects the fake's refusals.
func p62fGateway(t *testing.T, answer upstreamtest.Script) (*gateway, map[string]*upstreamtest.Server, *[]string) {
	t.Helper()
	refused := &[]string{}
	fs := fakes(t, map[string]upstreamtest.Script{
		"gemini": geminiStrict62f(refused, answer),
		"openai": script(ok("gpt-4o-mini", "from gpt")),
	})
	return start(t, p62fCfg, fs), fs, refused
}

// p62fPydantic is the parameters schema pydantic 2.13 writes for a model
// with an enum field that has a default and description and a nested
// model field with a title and examples (Q.model_json_schema(); FastMCP
// and the OpenAI Agents SDK's function_tool pass such schemas on as
// function parameters).
const p62fPydantic = `{"$defs":{"Addr":{"properties":{"street":{"title":"Street","type":"string"}},"required":["street"],"title":"Addr","type":"object"},"Unit":{"enum":["c","f"],"title":"Unit","type":"string"}},"properties":{"unit":{"$ref":"#/$defs/Unit","default":"c","description":"the unit"},"addr":{"$ref":"#/$defs/Addr","examples":[{"street":"x"}],"title":"Address"},"alt":{"anyOf":[{"$ref":"#/$defs/Addr"},{"type":"null"}],"default":null}},"required":["addr"],"title":"Q","type":"object"}`

// p62fZod is z.toJSONSchema (zod 4.1.12, the version the npm clients pin)
// of z.object({city: z.string(), unit: Unit.describe("the unit").default("c"),
// alt: Unit.optional()}) where Unit = z.enum(["c","f"]).meta({id:"Unit",
// title:"Unit"}).
const p62fZod = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"city":{"type":"string"},"unit":{"default":"c","title":"Unit","description":"the unit","$ref":"#/$defs/Unit"},"alt":{"$ref":"#/$defs/Unit"}},"required":["city","unit"],"additionalProperties":false,"$defs":{"Unit":{"id":"Unit","title":"Unit","type":"string","enum":["c","f"]}}}`

// A function whose parameters hold a $ref beside title/examples (pydantic's
// and zod 4's own output): OpenAI and Anthropic take it; Gemini's JSON
// Schema fields refuse a $ref with siblings other than $-keys (and, in
// practice, description and default). On a route [gem25, gpt] the client
// should get an answer.
func TestReview62fToolSchemaRefSiblings(t *testing.T) {
	for name, schema := range map[string]string{"pydantic": p62fPydantic, "zod4": p62fZod} {
		t.Run(name, func(t *testing.T) {
			g, fs, refused := p62fGateway(t, script(upstreamtest.Step{Body: p62fText}))
			var params map[string]any
			if err := json.Unmarshal([]byte(schema), &params); err != nil {
				t.Fatal(err)
			}
			c, err := sdk(g).Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
				Model:    "g25-gpt",
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Where is it?")},
				Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
					Name: "lookup", Parameters: shared.FunctionParameters(params)})},
			})
			body := ""
			if reqs := fs["gemini"].Requests(); len(reqs) > 0 {
				var b struct {
					Tools json.RawMessage `json:"tools"`
				}
				_ = json.Unmarshal(reqs[0].Body, &b)
				body = string(b.Tools)
			}
			d := g.recs.wait(t, 1)
			t.Logf("steps %q; fake refused %q; gemini tools %s", steps(d), *refused, body)
			if err != nil {
				var ae *openai.Error
				if errors.As(err, &ae) {
					t.Errorf("client got %d: %s", ae.StatusCode, ae.RawJSON())
				} else {
					t.Errorf("client: %v", err)
				}
				return
			}
			t.Logf("answer %q from %s", c.Choices[0].Message.Content, c.Model)
			if len(*refused) > 0 {
				t.Errorf("Gemini refused the request Detour sent: %q", *refused)
			}
		})
	}
}

// The same schemas as a json_schema response_format (no tools) to
// gemini-2.5-flash: responseJsonSchema documents "If $ref is set on a
// sub-schema, no other properties, except for than those starting as a $,
// may be set".
func TestReview62fResponseSchemaRefSiblings(t *testing.T) {
	g, _, refused := p62fGateway(t, script(upstreamtest.Step{Body: strings.Replace(p62fText, `"fine"`, `"{\"city\":\"Paris\",\"unit\":\"c\"}"`, 1)}))
	r := g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"g25-gpt","messages":[{"role":"user","content":"Paris weather"}],"response_format":{"type":"json_schema","json_schema":{"name":"w","schema":`+p62fZod+`}}}`, "Authorization", "Bearer k")
	d := g.recs.wait(t, 1)
	t.Logf("status %d steps %q refused %q body %.300s", r.Status, steps(d), *refused, r.Body)
	if r.Status != 200 || len(*refused) > 0 {
		t.Errorf("a zod 4 schema as response_format: %d, Gemini refused %q", r.Status, *refused)
	}
}

// A tool loop on gemini-3 whose tool returned a JSON Schema document (an
// MCP server's describe tool, an OpenAPI lookup): the tool message is a
// JSON object, sent as functionResponse.response as it is; Gemini 3 reads
// a "$ref" there as a reference to a media part of the response by its
// displayName (multimodal function responses) and refuses the turn.
func TestReview62fToolResultWithRefOnGemini3(t *testing.T) {
	g, fs, refused := p62fGateway(t, script(upstreamtest.Step{Body: strings.Replace(p62fText, "gemini-2.5-flash", "gemini-3-flash-preview", 1)}))
	result := `{"name":"stealthy_fetch","parameters":{"type":"object","properties":{"cookies":{"$ref":"#/$defs/SetCookieParam"}},"$defs":{"SetCookieParam":{"type":"object"}}}}`
	c, err := sdk(g).Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model: "g3-gpt",
		Messages: []openai.ChatCompletionMessageParamUnion{
			openai.UserMessage("Describe the stealthy_fetch tool"),
			{OfAssistant: &openai.ChatCompletionAssistantMessageParam{ToolCalls: []openai.ChatCompletionMessageToolCallUnionParam{{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
				ID: "call_1", Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: "tool_describe", Arguments: `{"name":"stealthy_fetch"}`}}}}}},
			openai.ToolMessage(result, "call_1"),
		},
		Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name: "tool_describe", Parameters: shared.FunctionParameters{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}})},
	})
	d := g.recs.wait(t, 1)
	var sent string
	if reqs := fs["gemini"].Requests(); len(reqs) > 0 {
		var b struct {
			Contents []json.RawMessage `json:"contents"`
		}
		_ = json.Unmarshal(reqs[0].Body, &b)
		if len(b.Contents) > 2 {
			sent = string(b.Contents[2])
		}
	}
	t.Logf("steps %q refused %q; sent %s", steps(d), *refused, sent)
	if err != nil {
		t.Errorf("client: %v", err)
		return
	}
	t.Logf("answer from %s", c.Model)
	if len(*refused) > 0 {
		t.Errorf("Gemini 3 refused the tool result Detour sent: %q", *refused)
	}
}

// OpenAI's function names take a leading digit or dash
// (^[a-zA-Z0-9_-]{1,64}$); Gemini's must start with a letter or an
// underscore.
func TestReview62fFunctionNameLeadingDigit(t *testing.T) {
	g, _, refused := p62fGateway(t, script(upstreamtest.Step{Body: p62fText}))
	r := g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"g25-gpt","messages":[{"role":"user","content":"code?"}],"tools":[{"type":"function","function":{"name":"2fa_code","parameters":{"type":"object","properties":{}}}}]}`, "Authorization", "Bearer k")
	d := g.recs.wait(t, 1)
	t.Logf("status %d steps %q refused %q", r.Status, steps(d), *refused)
	if r.Status != 200 || len(*refused) > 0 {
		t.Errorf("function name 2fa_code: %d, Gemini refused %q", r.Status, *refused)
	}
}

// The $ref cases on a route of Gemini alone: what the client gets.
func TestReview62fRefOnGeminiOnlyRoute(t *testing.T) {
	g, _, refused := p62fGateway(t, script(upstreamtest.Step{Body: p62fText}))
	r := g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"g25","messages":[{"role":"user","content":"Where?"}],"tools":[{"type":"function","function":{"name":"lookup","parameters":`+p62fPydantic+`}}]}`, "Authorization", "Bearer k")
	d := g.recs.wait(t, 1)
	t.Logf("tool schema: status %d steps %q refused %q body %s", r.Status, steps(d), *refused, r.Body)
	r = g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"g3","messages":[{"role":"user","content":"Describe"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"describe","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"{\"properties\":{\"a\":{\"$ref\":\"#/$defs/A\"}},\"$defs\":{\"A\":{}}}"}],"tools":[{"type":"function","function":{"name":"describe","parameters":{"type":"object","properties":{}}}}]}`, "Authorization", "Bearer k")
	d = g.recs.wait(t, 2)
	t.Logf("tool result: status %d steps %q body %s", r.Status, steps(d), r.Body)
	if r.Status != 200 {
		t.Errorf("tool result with $ref on gemini-3 alone: %d", r.Status)
	}
}
