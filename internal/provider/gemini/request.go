package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"slices"
	"sort"
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
	model := url.PathEscape(strings.TrimPrefix(ep.Model, "models/"))
	u := ep.BaseURL + "/v1beta/models/" + model + ":generateContent"
	if req.Stream {
		u = ep.BaseURL + "/v1beta/models/" + model + ":streamGenerateContent?alt=sse"
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Content-Type", "application/json")
	if req.Stream {
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
		return nil, errors.New("gemini: logprobs: Detour does not translate Gemini's log-probabilities")
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
	for _, t := range cr.Tools { // function tools alone (Unanswerable)
		if reservedName(t.Function.Name) {
			return nil, fmt.Errorf("gemini: function name %q is reserved for structured answers", t.Function.Name)
		}
		if !nameStart(t.Function.Name) {
			// OpenAI takes ^[a-zA-Z0-9_-]{1,64}$; Gemini's name "must start
			// with a letter or an underscore" (its FunctionDeclaration
			// reference), and its 400 stopped the walk as the client's
			// fault where another target serves it (review 62f).
			return nil, fmt.Errorf("gemini: function name %q must start with a letter or an underscore for Gemini", t.Function.Name)
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
		return nil, errors.New("gemini: tool_choice: allowed_tools names none of the request's function tools")
	}
	if len(decls) > 0 {
		out.Tools = []toolDecl{{FunctionDeclarations: decls}}
	}
	if tc.Mode == "function" && reservedName(tc.Name) {
		return nil, fmt.Errorf("gemini: function name %q is reserved for structured answers", tc.Name)
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

// contents splits the conversation into the system instruction and turns.
func contents(msgs []chat.Message, ep provider.Endpoint) (*content, []content, error) {
	var sys *content
	var out []content
	names := make(map[string]callRef) // tool_call_id → its call
	// order holds the call positions of the function responses that make
	// up the last content so far (nil once it holds anything else):
	// Gemini pairs a turn's responses with its calls by name and position,
	// so a client that answered two calls to one function out of order
	// would have its results swapped. OpenAI and Anthropic pair by id, and
	// order here changes nothing for them (docs/doors.md).
	var order []int
	// images are the images of the tool messages just read: Gemini's
	// function response holds JSON, so they follow the run of responses
	// in the same user content (as the Messages door places a
	// tool_result's images), where the model sees them.
	var images []part
	for i := range msgs {
		m := &msgs[i]
		if m.Role != "tool" && m.Role != "function" && len(images) > 0 {
			out[len(out)-1].Parts = append(out[len(out)-1].Parts, images...)
			images, order = nil, nil
		}
		var role string
		var parts []part
		var err error
		at := -1
		switch m.Role {
		case "system", "developer":
			t, err := m.Text("\n")
			if err != nil {
				return nil, nil, err
			}
			if t != "" {
				if sys == nil {
					sys = &content{}
				}
				sys.Parts = append(sys.Parts, part{Text: t})
			}
			continue
		case "user":
			role = "user"
			parts, err = userParts(m)
		case "assistant":
			role = "model"
			base := 0 // calls already in the model content this message joins
			if n := len(out); n > 0 && out[n-1].Role == role {
				for _, p := range out[n-1].Parts {
					if p.FunctionCall != nil {
						base++
					}
				}
			}
			parts, err = modelParts(m, names, base, ep)
		case "tool", "function":
			role = "user"
			parts, at, err = responsePart(m, names)
			if err == nil {
				var imgs []part
				imgs, err = toolImages(m)
				images = append(images, imgs...)
			}
		default:
			return nil, nil, fmt.Errorf("gemini: unknown message role %q", m.Role)
		}
		if err != nil {
			return nil, nil, err
		}
		if len(parts) == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			last := &out[n-1]
			if at >= 0 && len(order) == len(last.Parts) {
				j := sort.SearchInts(order, at+1) // after the calls before it, and its equals
				last.Parts = slices.Insert(last.Parts, j, parts...)
				order = slices.Insert(order, j, at)
			} else {
				last.Parts = append(last.Parts, parts...)
			}
			continue
		}
		out = append(out, content{Role: role, Parts: parts})
		order = nil
		if at >= 0 {
			order = []int{at}
		}
	}
	if len(images) > 0 {
		out[len(out)-1].Parts = append(out[len(out)-1].Parts, images...)
	}
	if len(out) == 0 {
		// Gemini wants at least one content; OpenAI takes a conversation
		// of system messages alone (an LLM-as-judge or one-shot prompt),
		// and one whose only user text is empty. The instructions are then
		// the one user content, sent once (docs/doors.md, "Chat Completions
		// to Claude and Gemini targets"); with none either, there is
		// nothing Gemini takes, and another target may take the request.
		if sys == nil {
			return nil, nil, errors.New("gemini: the conversation has no content to send (Gemini refuses empty contents)")
		}
		return nil, []content{{Role: "user", Parts: sys.Parts}}, nil
	}
	return sys, out, nil
}

func userParts(m *chat.Message) ([]part, error) {
	return contentParts(m, false)
}

// contentParts translates a message's content; a refusal part is text in
// an assistant turn (model), which alone may hold one, and refused in
// another.
func contentParts(m *chat.Message, model bool) ([]part, error) {
	ps, err := m.Parts()
	if err != nil {
		return nil, err
	}
	var out []part
	for _, p := range ps {
		switch p.Type {
		case "text":
			if p.Text != "" {
				out = append(out, part{Text: p.Text})
			}
		case "refusal":
			if !model {
				return nil, fmt.Errorf("gemini: unsupported content part type %q in a %s message", p.Type, m.Role)
			}
			if strings.TrimSpace(p.Refusal) != "" {
				out = append(out, part{Text: p.Refusal})
			}
		case "image_url":
			ip, err := imagePart(p)
			if err != nil {
				return nil, err
			}
			out = append(out, ip)
		case "file", "input_audio":
			if model {
				return nil, fmt.Errorf("gemini: unsupported content part type %q in a %s message", p.Type, m.Role)
			}
			mp, err := mediaPart(p)
			if err != nil {
				return nil, err
			}
			out = append(out, mp)
		default:
			return nil, fmt.Errorf("gemini: unsupported content part type %q", p.Type)
		}
	}
	return out, nil
}

// imagePart translates an image_url part: a data: URL inline, another URL
// as file data.
func imagePart(p chat.Part) (part, error) {
	if p.ImageURL == nil || p.ImageURL.URL == "" {
		return part{}, fmt.Errorf("gemini: image_url part without url")
	}
	u := p.ImageURL.URL
	if mt, data, ok := chat.DataURL(u); ok {
		// Gemini answers an inline image of another type with 400
		// INVALID_ARGUMENT ("MIME type must be image/png, image/jpeg,
		// image/webp, image/heic, or image/heif"), which ends a route's
		// walk; OpenAI and Anthropic take a GIF. Not sending it lets the
		// route move on (docs/doors.md, "Chat Completions to Claude and
		// Gemini targets").
		lower := strings.ToLower(mt)
		switch lower {
		case "image/png", "image/jpeg", "image/webp", "image/heic", "image/heif":
		default:
			return part{}, fmt.Errorf("gemini: image type %q: Gemini takes image/png, image/jpeg, image/webp, image/heic and image/heif", mt)
		}
		return part{InlineData: &blob{MimeType: lower, Data: data}}, nil
	}
	return part{FileData: &fileData{MimeType: imageType(u), FileURI: u}}, nil
}

// audioTypes are Gemini's MIME types for Chat Completions' input_audio
// formats.
var audioTypes = map[string]string{"wav": "audio/wav", "mp3": "audio/mp3"}

// mediaPart translates a file part holding an inline PDF, or an
// input_audio part, to inline data, as Gemini reads documents and audio
// (docs/doors.md, "Chat Completions to Claude and Gemini targets").
func mediaPart(p chat.Part) (part, error) {
	if p.Type == "input_audio" {
		a := p.InputAudio
		if a == nil || a.Data == "" || audioTypes[a.Format] == "" {
			return part{}, errors.New(`gemini: input_audio part: want data and a format of "wav" or "mp3"`)
		}
		return part{InlineData: &blob{MimeType: audioTypes[a.Format], Data: a.Data}}, nil
	}
	if _, _, ok := p.TextFile(); ok {
		// A text file goes as plain text, which Gemini reads as text
		// ("you can also pass non-PDF documents in the same way, but
		// Gemini will see them as normal text"; probe 52b).
		_, data, _ := chat.DataURL(p.File.FileData)
		return part{InlineData: &blob{MimeType: "text/plain", Data: data}}, nil
	}
	data, _, ok := p.PDF()
	if !ok {
		return part{}, errors.New("gemini: file part: Gemini is sent an inline PDF or text file (file_data \"data:application/pdf;base64,…\", \"data:text/plain;base64,…\") only")
	}
	return part{InlineData: &blob{MimeType: "application/pdf", Data: data}}, nil
}

// toolImages is the images of a tool message (its text is the function
// response).
func toolImages(m *chat.Message) ([]part, error) {
	ps, err := m.Parts()
	if err != nil {
		return nil, err
	}
	var out []part
	for _, p := range ps {
		if p.Type == "image_url" {
			ip, err := imagePart(p)
			if err != nil {
				return nil, err
			}
			out = append(out, ip)
		}
	}
	return out, nil
}

// imageType guesses an image URL's MIME type from its extension.
func imageType(u string) string {
	p := u
	if pu, err := url.Parse(u); err == nil {
		p = pu.Path
	}
	switch strings.ToLower(path.Ext(p)) {
	case ".png":
		return "image/png"
	case ".webp":
		return "image/webp"
	case ".gif":
		return "image/gif"
	case ".heic":
		return "image/heic"
	case ".heif":
		return "image/heif"
	}
	return "image/jpeg"
}

// callRef is what a tool message's tool_call_id names: the function, and
// the call's position among the calls of its model content (consecutive
// assistant messages join one content: review 39i).
type callRef struct {
	name string
	at   int
}

// modelParts translates an assistant message whose calls follow base calls
// of the content it joins; a call hands back the thought signature the
// endpoint ep wrote for it, and the first call without one gets the
// placeholder.
func modelParts(m *chat.Message, names map[string]callRef, base int, ep provider.Endpoint) ([]part, error) {
	out, err := contentParts(m, true)
	if err != nil {
		return nil, err
	}
	// A turn that refused, as OpenAI's clients hand it back (openai-go's
	// ToParam, openai-python's model_dump: often with content null), is
	// the model's text, so the model knows what it said (docs/doors.md);
	// a refusal part of the same text already says it.
	if r := strings.TrimSpace(m.Refusal); r != "" && !slices.ContainsFunc(out, func(p part) bool { return strings.TrimSpace(p.Text) == r }) {
		out = append(out, part{Text: m.Refusal})
	}
	for i, tc := range m.ToolCalls {
		args := chat.HistoryArguments(tc.Function.Arguments)
		names[tc.ID] = callRef{name: tc.Function.Name, at: base + i}
		p := part{FunctionCall: &functionCall{Name: tc.Function.Name, Args: args}, ThoughtSignature: handedBack(tc.ExtraContent, ep)}
		if i == 0 && p.ThoughtSignature == "" {
			p.ThoughtSignature = SkipSignature
		}
		out = append(out, p)
	}
	return out, nil
}

// responsePart translates a tool message; at is its call's position, -1
// when the message names a function but no call of the history.
func responsePart(m *chat.Message, names map[string]callRef) (_ []part, at int, _ error) {
	ref, ok := names[m.ToolCallID]
	if !ok {
		ref = callRef{name: m.Name, at: -1}
	}
	name := ref.name
	if name == "" {
		return nil, -1, fmt.Errorf("gemini: tool message answers unknown tool_call_id %q", m.ToolCallID)
	}
	text, err := m.Text("\n")
	if err != nil {
		return nil, -1, err
	}
	resp := json.RawMessage(nil)
	t := strings.TrimSpace(text)
	switch {
	case refResponse([]byte(t)): // as text, below
		resp, _ = rawjson.Marshal(map[string]string{"content": text})
	case strings.HasPrefix(t, "{") && json.Valid([]byte(t)):
		resp = json.RawMessage(t)
	case t != "" && json.Valid([]byte(t)) && (t[0] == '[' || t[0] == '"'):
		resp, _ = rawjson.Marshal(map[string]json.RawMessage{"content": json.RawMessage(t)})
	default:
		resp, _ = rawjson.Marshal(map[string]string{"content": text})
	}
	return []part{{FunctionResponse: &functionResponse{Name: name, Response: resp}}}, ref.at, nil
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
