package responses

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/detour-llm/detour/internal/provider/chat"
	"github.com/detour-llm/detour/internal/rawjson"
)

// Tools for translated targets (docs/doors.md, "OpenAI Responses", Request). Chat
// Completions has flat function tools only, so:
//   - function tools translate as they are;
//   - namespace tools ({"type":"namespace","name":ns,"tools":[…]}, as Codex
//     sends) are flattened: each member function becomes a function named
//     ns + "__" + name, and a call to it comes back as a function_call
//     item with "namespace": ns and "name": name again (Echo keeps the
//     mapping); a function_call input item carrying a namespace is joined
//     the same way before it goes upstream;
//   - the tools of an "additional_tools" input item are lifted into the
//     tool list as if sent in "tools";
//   - web_search (and web_search_preview), which Codex adds to every
//     request and runs nothing for locally, are dropped: the model has no
//     search, which it can see in its tool list. A tool_choice naming one
//     is still refused;
//   - custom tools (free-form input under a grammar) and every other
//     hosted tool are refused: the grammar cannot travel, and a hosted
//     tool's results come from OpenAI alone.

// nsSep joins a namespace and a tool name into one chat function name.
const nsSep = "__"

// maxFuncName is the longest chat function name OpenAI accepts.
const maxFuncName = 64

// qualified is a tool's name as the client knows it.
type qualified struct {
	Namespace, Name string
}

// wireTool is one entry of "tools" (or of a namespace's or an
// additional_tools item's "tools").
type wireTool struct {
	Type        string            `json:"type"`
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Parameters  json.RawMessage   `json:"parameters"`
	Strict      *bool             `json:"strict"`
	Tools       []json.RawMessage `json:"tools"`
}

// droppedTool reports whether a hosted tool of type t is dropped rather
// than refused for translated targets.
func droppedTool(t string) bool {
	return t == "web_search" || strings.HasPrefix(t, "web_search_preview")
}

// toolSet gathers the chat tools of one request and the names to map back.
type toolSet struct {
	tools []chat.Tool
	paths []string             // each tool's member in the client's request (Params), when rec
	rec   bool                 // record paths
	names map[string]qualified // flattened name → the client's; only namespaced tools
	seen  map[string]bool
}

// add translates the tools in raw (a JSON list), found at param.
func (ts *toolSet) add(raw json.RawMessage, param string) error {
	if !rawjson.Set(raw) {
		return nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return invalid(param, "%s: want a list of tool objects", param)
	}
	return ts.addList(list, param, "")
}

func (ts *toolSet) addList(list []json.RawMessage, param, ns string) error {
	for i, raw := range list {
		p := fmt.Sprintf("%s[%d]", param, i)
		var t wireTool
		if err := json.Unmarshal(raw, &t); err != nil {
			return invalid(p, "%s: want a tool object", p)
		}
		switch {
		case t.Type == "function":
			if err := ts.function(t, p, ns); err != nil {
				return err
			}
		case t.Type == "namespace" && ns == "":
			if t.Name == "" || strings.Contains(t.Name, nsSep) {
				return invalid(p+".name", "%s: a namespace tool needs a name without %q", p, nsSep)
			}
			if err := ts.addList(t.Tools, p+".tools", t.Name); err != nil {
				return err
			}
		case droppedTool(t.Type):
			// Dropped for translated targets (see above).
		case t.Type == "custom":
			return unsupported(p+".type", "custom tool %q is not supported: its free-form grammar input has no Chat Completions equivalent; "+
				"with Codex, name a Detour route Codex does not know (codex -m <route>), which sends function tools only, or use a target with responses: true", t.Name)
		default:
			return unsupported(p+".type",
				"tool type %q is not supported: Detour's /v1/responses translates function and namespace tools only (built-in tools run at OpenAI alone; a target with responses: true gets them as sent)", t.Type)
		}
	}
	return nil
}

func (ts *toolSet) function(t wireTool, p, ns string) error {
	if t.Name == "" {
		return invalid(p+".name", "%s: a function tool needs a name", p)
	}
	name := t.Name
	if ns != "" {
		name = ns + nsSep + t.Name
		if len(name) > maxFuncName {
			return unsupported(p+".name", "%s: namespace %q and tool %q joined as %q are longer than the %d characters a chat function name may have", p, ns, t.Name, name, maxFuncName)
		}
		if ts.names == nil {
			ts.names = map[string]qualified{}
		}
		ts.names[name] = qualified{Namespace: ns, Name: t.Name}
	}
	if ts.seen[name] {
		return invalid(p+".name", "%s: tool name %q is used twice", p, name)
	}
	if ts.seen == nil {
		ts.seen = map[string]bool{}
	}
	ts.seen[name] = true
	ts.tools = append(ts.tools, chat.Tool{Type: "function", Function: chat.Function{
		Name: name, Description: t.Description, Parameters: nonNull(t.Parameters), Strict: t.Strict,
	}})
	if ts.rec {
		ts.paths = append(ts.paths, p)
	}
	return nil
}

// flatName is the chat function name of a call to name in namespace ns.
func flatName(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + nsSep + name
}

// clientName maps a chat function name back to the client's: its
// namespace ("" when none) and name.
func (e *Echo) clientName(name string) (ns, n string) {
	if q, ok := e.names[name]; ok {
		return q.Namespace, q.Name
	}
	return "", name
}
