package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/detour-llm/detour/internal/provider"
)

// ToolChoice is "tool_choice" decoded: Mode is "" (absent), "auto", "none",
// "required" or "function"; Name is set for "function". Allowed, for an
// allowed_tools choice (Mode "auto" or "required"), names the functions the
// model may call among the request's tools; nil means all of them.
type ToolChoice struct {
	Mode    string
	Name    string
	Allowed []string
	// allowed is Allowed as a set, when ParseToolChoice made it: a
	// request of many tools and allowed names is checked in linear time
	// (hostile 50: 4 MiB of them took 8 s).
	allowed map[string]bool
}

// Permits reports whether the choice lets the model call the function name:
// always, but under an allowed_tools choice that does not list it.
func (tc ToolChoice) Permits(name string) bool {
	switch {
	case tc.Allowed == nil:
		return true
	case tc.allowed != nil:
		return tc.allowed[name]
	}
	return slices.Contains(tc.Allowed, name)
}

// ParseToolChoice decodes "tool_choice": "auto" | "none" | "required" |
// {"type":"function","function":{"name":…}} |
// {"type":"allowed_tools","allowed_tools":{"mode":"auto"|"required",
// "tools":[{"type":"function","function":{"name":…}},…]}}.
func ParseToolChoice(raw json.RawMessage) (ToolChoice, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return ToolChoice{}, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return ToolChoice{}, err
		}
		switch s {
		case "auto", "none", "required":
			return ToolChoice{Mode: s}, nil
		}
		return ToolChoice{}, provider.Refuse("tool_choice", "chat: unknown tool_choice %q", s)
	}
	type named struct {
		Name string `json:"name"`
	}
	var obj struct {
		Type         string `json:"type"`
		Function     named  `json:"function"`
		AllowedTools *struct {
			Mode  string `json:"mode"`
			Tools []struct {
				Type     string `json:"type"`
				Function named  `json:"function"`
			} `json:"tools"`
		} `json:"allowed_tools"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return ToolChoice{}, provider.Refuse("tool_choice", "chat: tool_choice: %v", err)
	}
	switch obj.Type {
	case "function":
		if obj.Function.Name == "" {
			return ToolChoice{}, provider.Refuse("tool_choice.function.name", "chat: tool_choice: a function choice needs function.name")
		}
		return ToolChoice{Mode: "function", Name: obj.Function.Name}, nil
	case "allowed_tools":
		at := obj.AllowedTools
		if at == nil || (at.Mode != "auto" && at.Mode != "required") || len(at.Tools) == 0 {
			return ToolChoice{}, provider.Refuse("tool_choice.allowed_tools", `chat: tool_choice: an allowed_tools choice needs allowed_tools.mode "auto" or "required" and a list of tools`)
		}
		tc := ToolChoice{Mode: at.Mode, Allowed: make([]string, 0, len(at.Tools)), allowed: make(map[string]bool, len(at.Tools))}
		for i, t := range at.Tools {
			if t.Type != "function" {
				p := fmt.Sprintf("tool_choice.allowed_tools.tools[%d]", i)
				return ToolChoice{}, provider.Refuse(p, "chat: %s: a %q tool does not translate (only function tools do)", p, t.Type)
			}
			if t.Function.Name == "" {
				p := fmt.Sprintf("tool_choice.allowed_tools.tools[%d].function.name", i)
				return ToolChoice{}, provider.Refuse(p, "chat: tool_choice.allowed_tools.tools[%d]: needs function.name", i)
			}
			tc.Allowed = append(tc.Allowed, t.Function.Name)
			tc.allowed[t.Function.Name] = true
		}
		return tc, nil
	}
	return ToolChoice{}, provider.Refuse("tool_choice", "chat: tool_choice type %q does not translate (only function choices do)", obj.Type)
}
