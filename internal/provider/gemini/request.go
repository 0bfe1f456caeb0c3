package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/chat"
	"github.com/detour-llm/detour/internal/rawjson"
)

// SkipSignature is the thoughtSignature Gemini documents for function calls
// whose real signature is not available
// (https://ai.google.dev/gemini-api/docs/thought-signatures).
const SkipSignature = "skip_thought_signature_validator"

// Adapter speaks the Gemini generateContent dialect. The zero value is
// ready.
type Adapter struct{}

var _ provider.Adapter = Adapter{}

// NewRequest translates req and POSTs it to generateContent, or to
// streamGenerateContent?alt=sse when the client streams.
func (Adapter) NewRequest(ctx context.Context, ep provider.Endpoint, req *provider.Request) (*http.Request, error) {
	if req.Unsealed {
		ep.Signing = nil // no signature is recognised: the placeholder goes
	}
	body, err := translate(req, ep)
	if err != nil {
		return nil, err
	}
	if req.Stream {
		return post(ctx, ep, ":streamGenerateContent?alt=sse", body, true)
	}
	return post(ctx, ep, ":generateContent", body, false)
}

// post POSTs body to {base_url}/v1beta/models/{ep's model}{method}
// (method ":generateContent", ":streamGenerateContent?alt=sse"…), with
// ep's key in x-goog-api-key, accepting an event stream when stream, else
// JSON: every request the adapter sends (NewRequest, NativeRequest,
// NewEmbeddingsRequest).
func post(ctx context.Context, ep provider.Endpoint, method string, body []byte, stream bool) (*http.Request, error) {
	model := url.PathEscape(strings.TrimPrefix(ep.Model, "models/"))
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.BaseURL+"/v1beta/models/"+model+method, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Content-Type", "application/json")
	if stream {
		hr.Header.Set("Accept", "text/event-stream")
	} else {
		hr.Header.Set("Accept", "application/json")
	}
	if ep.APIKey != "" {
		hr.Header.Set("x-goog-api-key", ep.APIKey)
	}
	return hr, nil
}

type generateRequest struct {
	SystemInstruction *content          `json:"systemInstruction,omitempty"`
	Contents          []content         `json:"contents"`
	Tools             []toolDecl        `json:"tools,omitempty"`
	ToolConfig        *toolConfig       `json:"toolConfig,omitempty"`
	GenerationConfig  *generationConfig `json:"generationConfig,omitempty"`
}

type content struct {
	Role  string `json:"role,omitempty"`
	Parts []part `json:"parts"`
}

// part is a request or answer part; only the members of its kind are set.
type part struct {
	Text             string            `json:"text,omitempty"`
	Thought          bool              `json:"thought,omitempty"`
	InlineData       *blob             `json:"inlineData,omitempty"`
	FileData         *fileData         `json:"fileData,omitempty"`
	FunctionCall     *functionCall     `json:"functionCall,omitempty"`
	FunctionResponse *functionResponse `json:"functionResponse,omitempty"`
	ThoughtSignature string            `json:"thoughtSignature,omitempty"`
}

type blob struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"`
}

type fileData struct {
	MimeType string `json:"mimeType,omitempty"`
	FileURI  string `json:"fileUri"`
}

type functionCall struct {
	// ID is set by newer models on answers; requests leave it out (a
	// replayed call's id cannot be told from another vendor's).
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

type functionResponse struct {
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

type toolDecl struct {
	FunctionDeclarations []functionDecl `json:"functionDeclarations"`
}

type functionDecl struct {
	Name                 string          `json:"name"`
	Description          string          `json:"description,omitempty"`
	ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema,omitempty"`
}

type toolConfig struct {
	FunctionCallingConfig struct {
		Mode                 string   `json:"mode"`
		AllowedFunctionNames []string `json:"allowedFunctionNames,omitempty"`
	} `json:"functionCallingConfig"`
}

type generationConfig struct {
	Temperature        *float64        `json:"temperature,omitempty"`
	TopP               *float64        `json:"topP,omitempty"`
	TopK               *int            `json:"topK,omitempty"`
	MaxOutputTokens    *int            `json:"maxOutputTokens,omitempty"`
	StopSequences      []string        `json:"stopSequences,omitempty"`
	CandidateCount     *int            `json:"candidateCount,omitempty"`
	PresencePenalty    *float64        `json:"presencePenalty,omitempty"`
	FrequencyPenalty   *float64        `json:"frequencyPenalty,omitempty"`
	Seed               *int64          `json:"seed,omitempty"`
	ResponseMimeType   string          `json:"responseMimeType,omitempty"`
	ResponseJSONSchema json.RawMessage `json:"responseJsonSchema,omitempty"`
}

func (g *generationConfig) empty() bool {
	return g.Temperature == nil && g.TopP == nil && g.TopK == nil && g.MaxOutputTokens == nil && g.StopSequences == nil &&
		g.CandidateCount == nil && g.PresencePenalty == nil && g.FrequencyPenalty == nil && g.Seed == nil &&
		g.ResponseMimeType == ""
}

// Translate returns the generateContent request body for the client's
// request to a model not named: what TranslateFor sends to a model that
// takes no penalties.
func Translate(req *provider.Request) ([]byte, error) {
	return TranslateFor(req, "")
}

// TranslateFor returns the generateContent request body for the client's
// request to model (the target's model, "models/" prefix or not), which
// travels in the URL, not the body. The model decides only whether
// presence_penalty and frequency_penalty are sent (TakesPenalties).
func TranslateFor(req *provider.Request, model string) ([]byte, error) {
	return translate(req, provider.Endpoint{Model: model})
}

// translate is TranslateFor for the endpoint ep, to which the thought
// signatures it wrote go back (none when it seals none).
func translate(req *provider.Request, ep provider.Endpoint) ([]byte, error) {
	model := ep.Model
	cr, err := chat.Parse(req)
	if err != nil {
		return nil, err
	}
	// The answer's log-probabilities are not translated back: asked for,
	// they would be missing without a word, so the request goes to a
	// target that has them (docs/doors.md).
	if cr.WantsLogprobs() {
		return nil, provider.Refuse(cr.LogprobsParam(), "gemini: %s: Detour does not translate Gemini's log-probabilities", cr.LogprobsParam())
	}
	if err := cr.Unanswerable(); err != nil {
		return nil, err
	}
	var out generateRequest
	if out.SystemInstruction, out.Contents, err = contents(cr.Messages, ep); err != nil {
		return nil, err
	}
	tc, err := chat.ParseToolChoice(cr.ToolChoice)
	if err != nil {
		return nil, err
	}
	var decls []functionDecl
	for i, t := range cr.Tools { // function tools alone (Unanswerable)
		if reservedName(t.Function.Name) {
			return nil, provider.Refuse(toolName(i), "gemini: function name %q is reserved for structured answers", t.Function.Name)
		}
		if !nameStart(t.Function.Name) {
			// OpenAI takes ^[a-zA-Z0-9_-]{1,64}$; Gemini's name "must start
			// with a letter or an underscore" (its FunctionDeclaration
			// reference), and its 400 stopped the walk as the client's
			// fault where another target serves it (review 62f).
			return nil, provider.Refuse(toolName(i), "gemini: function name %q must start with a letter or an underscore for Gemini", t.Function.Name)
		}
		// An allowed_tools choice in mode auto: Gemini takes
		// allowedFunctionNames under mode ANY alone, so the functions it
		// leaves out are not declared (docs/doors.md, "Chat Completions to
		// Claude and Gemini targets"). In mode required all are declared.
		if tc.Mode == "auto" && !tc.Permits(t.Function.Name) {
			continue
		}
		d := functionDecl{Name: t.Function.Name, Description: t.Function.Description}
		if p := bytes.TrimSpace(t.Function.Parameters); len(p) > 0 && !bytes.Equal(p, []byte("null")) {
			d.ParametersJSONSchema = refOnly(p)
		}
		decls = append(decls, d)
	}
	if tc.Allowed != nil && !slices.ContainsFunc(decls, func(d functionDecl) bool { return tc.Permits(d.Name) }) {
		return nil, provider.Refuse("tool_choice", "gemini: tool_choice: allowed_tools names none of the request's function tools")
	}
	if len(decls) > 0 {
		out.Tools = []toolDecl{{FunctionDeclarations: decls}}
	}
	if tc.Mode == "function" && reservedName(tc.Name) {
		return nil, provider.Refuse("tool_choice", "gemini: function name %q is reserved for structured answers", tc.Name)
	}
	// Gemini refuses a function calling config without function
	// declarations (docs/doors.md, "Chat Completions to Claude and Gemini
	// targets"): a choice among no tools is not sent.
	if tc.Mode != "" && len(decls) > 0 {
		out.ToolConfig = &toolConfig{}
		fc := &out.ToolConfig.FunctionCallingConfig
		switch tc.Mode {
		case "auto":
			fc.Mode = "AUTO"
		case "none":
			fc.Mode = "NONE"
		case "required":
			fc.Mode = "ANY"
			// The declared functions the choice lists, once each: Gemini's
			// names "should match FunctionDeclaration.name" (review 48).
			if tc.Allowed != nil {
				listed := map[string]bool{} // once each, in linear time (hostile 50)
				for _, d := range decls {
					if tc.Permits(d.Name) && !listed[d.Name] {
						listed[d.Name] = true
						fc.AllowedFunctionNames = append(fc.AllowedFunctionNames, d.Name)
					}
				}
			}
		case "function":
			fc.Mode = "ANY"
			fc.AllowedFunctionNames = []string{tc.Name}
		}
	}
	g := generationConfig{Temperature: cr.Temperature, TopP: cr.TopP, StopSequences: stopSequences(cr.Stop),
		CandidateCount: cr.N, Seed: cr.Seed}
	if TakesPenalties(model) {
		g.PresencePenalty, g.FrequencyPenalty = cr.PresencePenalty, cr.FrequencyPenalty
	}
	if k, ok := cr.TopKValue(); ok {
		g.TopK = &k
	}
	if n, ok := cr.Limit(); ok {
		g.MaxOutputTokens = &n
	}
	if rf := cr.ResponseFormat; rf != nil {
		switch rf.Type {
		case "json_object":
			g.ResponseMimeType = "application/json"
		case "json_schema":
			g.ResponseMimeType = "application/json"
			if rf.JSONSchema != nil && len(rf.JSONSchema.Schema) > 0 && string(rf.JSONSchema.Schema) != "null" {
				g.ResponseJSONSchema = refOnly(rf.JSONSchema.Schema)
			}
		}
	}
	if len(decls) > 0 && !TakesSchemaWithTools(model) {
		// Before Gemini 3, function declarations and a JSON mime type
		// are a 400: the answer travels as a function (structured.go).
		// A prefill is judged on the turns sent: an empty final assistant
		// message is left out, and is none (review 47b).
		prefill := len(out.Contents) > 0 && out.Contents[len(out.Contents)-1].Role == "model"
		if err := structuredWithTools(cr.ResponseFormat, tc.Mode, prefill, &out, &g); err != nil {
			return nil, err
		}
	}
	if out.ToolConfig != nil && out.ToolConfig.FunctionCallingConfig.Mode == "ANY" {
		// Gemini refuses mode ANY beside a function declared without an
		// object schema (400 INVALID_ARGUMENT: googleapis/python-genai#981,
		// pydantic/pydantic-ai#1990), which AUTO takes: under ANY every
		// client declaration states one (review 47b).
		for i := range out.Tools[0].FunctionDeclarations {
			if d := &out.Tools[0].FunctionDeclarations[i]; !reservedName(d.Name) {
				d.ParametersJSONSchema = chat.PropertiesSchema(d.ParametersJSONSchema)
			}
		}
	}
	if !g.empty() {
		out.GenerationConfig = &g
	}
	return rawjson.Marshal(out)
}

// TakesPenalties reports whether model is one Gemini takes presencePenalty
// and frequencyPenalty from: the gemini-1.5 and gemini-2.0 models, but
// 2.0's thinking ones. Gemini 2.5 and later, 2.0 Flash Thinking
// (PublicAffairs/openai-gemini#40) and the experimental models answer a
// request carrying either with 400 INVALID_ARGUMENT "Penalty is not enabled for
// models/gemini-2.5-flash" (vercel/ai#8943, BerriAI/litellm#32273,
// BerriAI/litellm#16907), so they are left out for every other model, as
// for Claude (docs/doors.md): a penalty is a sampling hint, and leaving it
// out costs less than a 400 on every request of a chat.
func TakesPenalties(model string) bool {
	m := strings.TrimPrefix(strings.ToLower(model), "models/")
	return (strings.HasPrefix(m, "gemini-1.5") || strings.HasPrefix(m, "gemini-2.0")) && !strings.Contains(m, "thinking")
}

// maxStops is the most stopSequences Gemini takes: more is a 400 "the
// number of stop_sequences must not exceed 5" (continuedev/continue#2702).
const maxStops = 5

// stopSequences is a chat stop list as Gemini takes it: empty strings left
// out, and the first maxStops kept. Open WebUI and Continue send the list
// a user typed, often a chat template's markers, and a Gemini-only route
// was a 400 on every turn (probe c50d); past the fifth, a stop string is
// not sent, and the answer may run past it.
func stopSequences(stop []string) []string {
	var out []string
	for _, s := range stop {
		if s != "" && len(out) < maxStops {
			out = append(out, s)
		}
	}
	return out
}

// toolName is the member naming function tool i, for a refusal of it.
func toolName(i int) string { return fmt.Sprintf("tools[%d].function.name", i) }
