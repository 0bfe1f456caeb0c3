package anthropic

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/detour-llm/detour/internal/rawjson"
)

// foldRoot returns a function's input schema without a top-level anyOf,
// oneOf or allOf, which Anthropic refuses ("input_schema does not support
// oneOf, allOf, or anyOf at the top level") and OpenAI and Gemini take: MCP
// servers write "give route or file" so ({"type":"object","properties":
// {…},"anyOf":[{"required":["route"]},{"required":["file"]}]}), and agents
// pass their tools on as functions (langchain-ai/langchain#39271). The
// branches' properties join the root's (the root's own win), the root's
// required stays, an allOf's branches add theirs (all must hold); an
// anyOf's or oneOf's alternatives, which no single object schema says,
// are said in a sentence for the tool's description (docs/doors.md,
// "Chat Completions to Claude and Gemini targets"). A schema without a
// root combinator, or one that does not read as an object, is returned
// as it came with "".
func foldRoot(schema json.RawMessage) (json.RawMessage, string) {
	sc, ok := rawjson.ScanObject(schema)
	if !ok || !rootCombinator(schema) {
		return schema, ""
	}
	var (
		rest     [][2][]byte // the root's other members, in order
		props    = newProps()
		required []string
		note     []string
	)
	// The root's own properties first, wherever its keys put them (a
	// serializer that sorts keys writes "anyOf" before "properties"): they
	// win over a branch's (review 48).
	props.add(rawjson.Member(schema, "properties"), "")
	props.fix()
	for {
		k, v, more := sc.Next()
		if !more {
			break
		}
		key, _ := rawjson.String(k)
		switch key {
		case "properties":
		case "required":
			required = appendNames(required, v)
		case "anyOf", "oneOf", "allOf":
			branches, forms := foldBranches(v, props, key)
			if key == "allOf" {
				required = append(required, branches...)
			} else if len(forms) > 0 {
				n := "at least one"
				if key == "oneOf" {
					n = "exactly one"
				}
				note = append(note, "Give arguments that match "+n+" of: "+strings.Join(forms, "; ")+".")
			}
		default:
			rest = append(rest, [2][]byte{k, v})
		}
	}
	out := []byte{'{'}
	for _, m := range rest {
		out = append(append(append(append(out, m[0]...), ':'), m[1]...), ',')
	}
	out = append(append(out, `"properties":`...), props.json()...)
	if req := uniq(required); len(req) > 0 {
		b, _ := json.Marshal(req)
		out = append(append(out, `,"required":`...), b...)
	}
	return append(out, '}'), strings.Join(note, " ")
}

// foldBranches adds the properties of a combinator's (kind's) branches to
// props and returns the names the branches require (together) and each
// branch's form: what it requires, else the properties it names.
func foldBranches(v []byte, props *propSet, kind string) (required, forms []string) {
	as, ok := rawjson.ScanArray(v)
	if !ok {
		return nil, nil
	}
	for {
		_, b, more := as.Next()
		if !more {
			break
		}
		p := rawjson.Member(b, "properties")
		props.add(p, kind)
		req := appendNames(nil, rawjson.Member(b, "required"))
		required = append(required, req...)
		switch {
		case len(req) > 0:
			forms = append(forms, strings.Join(req, " and ")+" given")
		case p != nil:
			if names := newProps(); names.add(p, "") && len(names.names) > 0 {
				forms = append(forms, "only "+strings.Join(names.names, ", "))
			}
		}
	}
	return required, forms
}

// propSet is an object's properties in order. A name the root defines
// keeps the root's definition (fixed); one that branches define
// differently keeps every definition, under the combinator they came from
// (a discriminated union's "kind": "circle" or "square" stays either: review 48).
type propSet struct {
	names []string
	defs  map[string][][]byte
	kinds map[string]string
	fixed map[string]bool
	// seen holds each name's definitions already in defs (name, NUL,
	// definition), so a new one is looked up, not compared with every
	// earlier one: a schema of n branches folds in linear time (hostile
	// 50: 40,000 branches took 3 s).
	seen map[string]bool
}

func newProps() *propSet {
	return &propSet{defs: map[string][][]byte{}, kinds: map[string]string{}, fixed: map[string]bool{}, seen: map[string]bool{}}
}

// add adds the members of the properties object p, from a branch of kind
// ("" for the root), and reports whether p is an object.
func (s *propSet) add(p []byte, kind string) bool {
	ps, ok := rawjson.ScanObject(p)
	if !ok {
		return false
	}
	for {
		k, v, more := ps.Next()
		if !more {
			return true
		}
		name, ok := rawjson.String(k)
		if !ok || s.fixed[name] {
			continue
		}
		defs, held := s.defs[name]
		if !held {
			s.names, s.kinds[name] = append(s.names, name), kind
		}
		if key := name + "\x00" + string(v); !s.seen[key] {
			s.seen[key] = true
			s.defs[name] = append(defs, v)
		}
	}
}

// fix makes the names held so far the root's: no branch changes them.
func (s *propSet) fix() {
	for _, n := range s.names {
		s.fixed[n] = true
	}
}

func (s *propSet) json() []byte {
	out := []byte{'{'}
	for i, n := range s.names {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(rawjson.AppendString(out, n), ':')
		defs := s.defs[n]
		if len(defs) == 1 {
			out = append(out, defs[0]...)
			continue
		}
		kind := "anyOf" // a oneOf's alternatives: which one is said in the description
		if s.kinds[n] == "allOf" {
			kind = "allOf"
		}
		out = append(append(out, `{"`+kind+`":[`...), bytes.Join(defs, []byte(","))...)
		out = append(out, "]}"...)
	}
	return append(out, '}')
}

// rootCombinator reports whether schema has an anyOf, oneOf or allOf at
// its top level.
func rootCombinator(schema []byte) bool {
	return rawjson.Member(schema, "anyOf") != nil || rawjson.Member(schema, "oneOf") != nil || rawjson.Member(schema, "allOf") != nil
}

// appendNames appends the strings of the JSON array v to names.
func appendNames(names []string, v []byte) []string {
	as, ok := rawjson.ScanArray(v)
	if !ok {
		return names
	}
	for {
		_, e, more := as.Next()
		if !more {
			return names
		}
		if s, ok := rawjson.String(e); ok {
			names = append(names, s)
		}
	}
}

// uniq is names without repeats, in first order.
func uniq(names []string) []string {
	seen := make(map[string]bool, len(names))
	out := names[:0:0]
	for _, n := range names {
		if !seen[n] {
			seen[n], out = true, append(out, n)
		}
	}
	return out
}
