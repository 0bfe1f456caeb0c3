package e2e

// Review 62f: clients against Gemini targets, through a STRICT Gemini
// fake. geminiStrict62f checks each request against what Gemini's
// generateContent documents (and answers with its own 400 texts where a
// real Gemini refuses), then answers with the step the test scripts.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// geminiErr62f is Gemini's error envelope.
func geminiErr62f(code int, status, msg string) upstreamtest.Step {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": code, "message": msg, "status": status}})
	return upstreamtest.Step{Status: code, Body: string(b)}
}

// geminiFnName62f is FunctionDeclaration.name: "Must start with a letter or
// an underscore. Must be a-z, A-Z, 0-9, or contain underscores, dots,
// colons and dashes, with a maximum length of 64."
var geminiFnName62f = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$`)

var geminiModelPath62f = regexp.MustCompile(`^/v1beta/models/([^/:]+):(generateContent|streamGenerateContent)$`)

// geminiStrict62f wraps answer (the scripted step for a request that
// passes) with the checks; seen gets every refusal message.
func geminiStrict62f(seen *[]string, answer upstreamtest.Script) upstreamtest.Script {
	return func(n int, r upstreamtest.Request) upstreamtest.Step {
		if msg := geminiCheck62f(r); msg != "" {
			*seen = append(*seen, msg)
			return geminiErr62f(400, "INVALID_ARGUMENT", msg)
		}
		return answer(n, r)
	}
}

// geminiCheck62f returns the reason Gemini would refuse r, "" if none.
func geminiCheck62f(r upstreamtest.Request) string {
	m := geminiModelPath62f.FindStringSubmatch(r.Path)
	if m == nil {
		return "fake: path " + r.Path
	}
	model := m[1]
	if m[2] == "streamGenerateContent" && !strings.Contains(r.Query, "alt=sse") {
		return "fake: stream without alt=sse"
	}
	gemini3 := strings.HasPrefix(model, "gemini-3")
	var top map[string]json.RawMessage
	if err := json.Unmarshal(r.Body, &top); err != nil {
		return "Invalid JSON payload received. " + err.Error()
	}
	known := map[string]bool{"contents": true, "tools": true, "toolConfig": true, "safetySettings": true,
		"systemInstruction": true, "generationConfig": true, "cachedContent": true}
	for k := range top {
		if !known[k] {
			return fmt.Sprintf("Invalid JSON payload received. Unknown name %q: Cannot find field.", k)
		}
	}
	var req struct {
		Contents          []geminiContent62f `json:"contents"`
		SystemInstruction *geminiContent62f  `json:"systemInstruction"`
		Tools             []struct {
			FunctionDeclarations []struct {
				Name                 string          `json:"name"`
				Description          string          `json:"description"`
				Parameters           json.RawMessage `json:"parameters"`
				ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
		ToolConfig *struct {
			FunctionCallingConfig struct {
				Mode                 string   `json:"mode"`
				AllowedFunctionNames []string `json:"allowedFunctionNames"`
			} `json:"functionCallingConfig"`
		} `json:"toolConfig"`
		GenerationConfig map[string]json.RawMessage `json:"generationConfig"`
	}
	if err := json.Unmarshal(r.Body, &req); err != nil {
		return "Invalid JSON payload received. " + err.Error()
	}
	if len(req.Contents) == 0 {
		return "* GenerateContentRequest.contents: contents is not specified"
	}
	if req.SystemInstruction != nil {
		for _, p := range req.SystemInstruction.Parts {
			if p.Text == nil {
				return "fake: systemInstruction holds a part that is not text"
			}
		}
	}
	declared := map[string]bool{}
	for i, tl := range req.Tools {
		for j, d := range tl.FunctionDeclarations {
			if !geminiFnName62f.MatchString(d.Name) {
				return fmt.Sprintf("* GenerateContentRequest.tools[%d].function_declarations[%d].name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.", i, j)
			}
			if len(d.Parameters) > 0 && len(d.ParametersJSONSchema) > 0 {
				return "fake: parameters and parametersJsonSchema are mutually exclusive"
			}
			if len(d.ParametersJSONSchema) > 0 {
				var s map[string]any
				if json.Unmarshal(d.ParametersJSONSchema, &s) != nil {
					return "fake: parametersJsonSchema is not an object"
				}
				if msg := geminiRefSiblings62f(s); msg != "" {
					return msg
				}
			}
			declared[d.Name] = true
		}
	}
	if tc := req.ToolConfig; tc != nil {
		if len(declared) == 0 {
			return "Function calling config is set without function_declarations."
		}
		fc := tc.FunctionCallingConfig
		switch fc.Mode {
		case "AUTO", "ANY", "NONE", "VALIDATED":
		default:
			return "fake: functionCallingConfig.mode " + fc.Mode
		}
		if len(fc.AllowedFunctionNames) > 0 && fc.Mode != "ANY" && fc.Mode != "VALIDATED" {
			return "fake: allowedFunctionNames without mode ANY"
		}
		for _, a := range fc.AllowedFunctionNames {
			if !declared[a] {
				return "fake: allowedFunctionNames names " + a + ", not declared"
			}
		}
	}
	gc := req.GenerationConfig
	knownGC := map[string]bool{"stopSequences": true, "responseMimeType": true, "responseSchema": true, "responseJsonSchema": true,
		"responseModalities": true, "candidateCount": true, "maxOutputTokens": true, "temperature": true, "topP": true, "topK": true,
		"seed": true, "presencePenalty": true, "frequencyPenalty": true, "responseLogprobs": true, "logprobs": true,
		"enableEnhancedCivicAnswers": true, "speechConfig": true, "thinkingConfig": true, "imageConfig": true, "mediaResolution": true}
	for k := range gc {
		if !knownGC[k] {
			return fmt.Sprintf("Invalid JSON payload received. Unknown name %q at 'generation_config': Cannot find field.", k)
		}
	}
	if s, ok := gc["stopSequences"]; ok {
		var stops []string
		if json.Unmarshal(s, &stops) != nil || len(stops) > 5 {
			return "the number of stop_sequences must not exceed 5"
		}
	}
	if c, ok := gc["candidateCount"]; ok {
		var n int
		if json.Unmarshal(c, &n) != nil || n < 1 || n > 8 {
			return "fake: candidateCount " + string(c)
		}
	}
	if _, ok := gc["presencePenalty"]; ok && !strings.HasPrefix(model, "gemini-1.5") && !strings.HasPrefix(model, "gemini-2.0") {
		return "Penalty is not enabled for models/" + model
	}
	var mime string
	if mt, ok := gc["responseMimeType"]; ok {
		_ = json.Unmarshal(mt, &mime)
	}
	if _, ok := gc["responseJsonSchema"]; ok {
		if mime != "application/json" {
			return "fake: responseJsonSchema without responseMimeType application/json"
		}
		var s any
		_ = json.Unmarshal(gc["responseJsonSchema"], &s)
		if msg := geminiRefSiblings62f(s); msg != "" {
			return msg
		}
	}
	if mime == "application/json" && len(declared) > 0 && !gemini3 {
		return "Function calling with a response mime type: 'application/json' is unsupported"
	}
	// Turns: parts, roles, calls and their responses.
	prevCalls := 0
	for i, c := range req.Contents {
		if c.Role != "user" && c.Role != "model" {
			return fmt.Sprintf("Please use a valid role: user, model. (contents[%d].role %q)", i, c.Role)
		}
		if len(c.Parts) == 0 {
			return fmt.Sprintf("* GenerateContentRequest.contents[%d].parts: contents.parts must not be empty.", i)
		}
		calls, responses := 0, 0
		for j, p := range c.Parts {
			if k := p.kinds(); k != 1 {
				return fmt.Sprintf("fake: contents[%d].parts[%d] holds %d kinds of data", i, j, k)
			}
			if p.Text != nil && *p.Text == "" {
				return fmt.Sprintf("* GenerateContentRequest.contents[%d].parts[%d].data: required oneof field 'data' must have one initialized field", i, j)
			}
			if b := p.InlineData; b != nil {
				if _, err := base64.StdEncoding.DecodeString(b.Data); err != nil {
					return fmt.Sprintf("Invalid value at 'contents[%d].parts[%d].inline_data.data' (TYPE_BYTES), Base64 decoding failed", i, j)
				}
				if strings.HasPrefix(b.MimeType, "image/") && !geminiImageTypes62f[b.MimeType] {
					return "MIME type must be image/png, image/jpeg, image/webp, image/heic, or image/heif."
				}
			}
			if p.FunctionCall != nil {
				if c.Role != "model" {
					return "fake: functionCall in a user turn"
				}
				calls++
			}
			if fr := p.FunctionResponse; fr != nil {
				if c.Role != "user" {
					return "fake: functionResponse in a model turn"
				}
				var obj map[string]any
				if json.Unmarshal(fr.Response, &obj) != nil {
					return fmt.Sprintf("Invalid value at 'contents[%d].parts[%d].function_response.response' (type.googleapis.com/google.protobuf.Struct)", i, j)
				}
				// Multimodal function responses: a {"$ref": name} in the
				// response names a part of the response by its displayName
				// (Gemini 3; googleapis/python-genai#2268, #2792).
				if gemini3 {
					if ref := geminiFindRef62f(obj); ref != "" && len(fr.Parts) == 0 {
						return "The referenced name `" + ref + "` in function_response.response does not match to a display_name in the function_response.parts."
					}
				}
				responses++
			}
		}
		if responses > 0 {
			if prevCalls == 0 {
				return "Please ensure that function response turn comes immediately after a function call turn."
			}
			if responses != prevCalls {
				return "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."
			}
		}
		prevCalls = calls
	}
	return ""
}

var geminiImageTypes62f = map[string]bool{"image/png": true, "image/jpeg": true, "image/webp": true, "image/heic": true, "image/heif": true}

type geminiContent62f struct {
	Role  string          `json:"role"`
	Parts []geminiPart62f `json:"parts"`
}

type geminiPart62f struct {
	Text       *string `json:"text"`
	InlineData *struct {
		MimeType string `json:"mimeType"`
		Data     string `json:"data"`
	} `json:"inlineData"`
	FileData *struct {
		MimeType string `json:"mimeType"`
		FileURI  string `json:"fileUri"`
	} `json:"fileData"`
	FunctionCall *struct {
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		Name     string            `json:"name"`
		Response json.RawMessage   `json:"response"`
		Parts    []json.RawMessage `json:"parts"`
	} `json:"functionResponse"`
	ThoughtSignature string `json:"thoughtSignature"`
	Thought          bool   `json:"thought"`
}

func (p geminiPart62f) kinds() int {
	n := 0
	for _, set := range []bool{p.Text != nil, p.InlineData != nil, p.FileData != nil, p.FunctionCall != nil, p.FunctionResponse != nil} {
		if set {
			n++
		}
	}
	return n
}

// geminiRefSiblings62f enforces the JSON Schema fields' rule on $ref:
// "If $ref is set on a sub-schema, no other properties, except for than
// those starting as a $, may be set" (GenerationConfig.responseJsonSchema);
// the API's own message (anomalyco/opencode#12295) lets description and
// default stand beside it, which this fake lets pass too.
func geminiRefSiblings62f(v any) string {
	switch x := v.(type) {
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok {
			for k := range x {
				if !strings.HasPrefix(k, "$") && k != "description" && k != "default" {
					name := ref[strings.LastIndex(ref, "/")+1:]
					return "$ref '" + name + "' was set alongside unsupported fields. If a schema node has $ref set, then only description and default can be set alongside it (found " + k + ")."
				}
			}
		}
		for k, c := range x {
			if k == "enum" || k == "default" || k == "examples" || k == "const" {
				continue
			}
			if msg := geminiRefSiblings62f(c); msg != "" {
				return msg
			}
		}
	case []any:
		for _, c := range x {
			if msg := geminiRefSiblings62f(c); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// geminiFindRef62f returns the first string-valued "$ref" key in v.
func geminiFindRef62f(v any) string {
	switch x := v.(type) {
	case map[string]any:
		if s, ok := x["$ref"].(string); ok {
			return s
		}
		for _, c := range x {
			if r := geminiFindRef62f(c); r != "" {
				return r
			}
		}
	case []any:
		for _, c := range x {
			if r := geminiFindRef62f(c); r != "" {
				return r
			}
		}
	}
	return ""
}
