package responses

import (
	"bytes"
	"fmt"

	"github.com/detour-llm/detour/internal/rawjson"
)

// statelessMsg names the design every stateful member runs into.
// It says why even where a responses: true target could read the stored
// state: every client key shares that provider's account, so a reference
// one client holds could read another's conversation (probe 52b: the
// message blamed only Detour's own storage, which a route to OpenAI alone
// seemed not to need).
const statelessMsg = "Detour's /v1/responses is stateless: it stores no responses and passes on no reference to responses a provider stored (every client key shares the provider's account), so %s is not supported; send the whole conversation in \"input\" (and \"store\": false)"

// stateful refuses param, a member that needs Detour to keep responses.
func stateful(param, what string) *Error {
	e := unsupported(param, statelessMsg, what)
	e.Stateful = true
	return e
}

// Stateful refuses, as Translate does, a body with a member that needs
// Detour to keep responses ("store": true, "previous_response_id",
// "conversation", "background": true, a stored "prompt"), reading only
// those members, by one scan of the body's top level: the door calls it
// instead of Translate for a route whose first target serves the Responses
// API as is, which judges everything else itself (docs/doors.md, "OpenAI
// Responses"). body is valid JSON in which no top-level name differs from
// these only by case (the front's strict scan); a member of another type
// than the API's is left to the upstream.
func Stateful(body []byte) *Error {
	var w wireRequest
	top, _ := rawjson.ScanObject(body)
	for k, v, ok := top.Next(); ok; k, v, ok = top.Next() {
		switch {
		case rawjson.KeyIs(k, "store"):
			w.Store = boolOf(v)
		case rawjson.KeyIs(k, "previous_response_id"):
			if s, ok := rawjson.String(bytes.TrimSpace(v)); ok {
				w.PreviousResponseID = &s
			}
		case rawjson.KeyIs(k, "conversation"):
			w.Conversation = v
		case rawjson.KeyIs(k, "background"):
			w.Background = boolOf(v)
		case rawjson.KeyIs(k, "prompt"):
			w.Prompt = v
		case rawjson.KeyIs(k, "input"):
			w.Input = v
		}
	}
	if e := refuseState(&w); e != nil {
		return e
	}
	return itemReference(w.Input)
}

// itemReference refuses an item_reference among the input items, as
// translateInput does, however it is written: its type escaped (the
// upstream decodes it) or left out, which OpenAI's schema allows for a
// reference (an "id" with no "type" and no "role"; review 38d).
func itemReference(input []byte) *Error {
	items, ok := rawjson.ScanArray(input)
	for i := 0; ok; i++ {
		_, it, more := items.Next()
		if !more {
			return nil
		}
		if isReference(it) && !reasoningReference(rawjson.Member(it, "id")) { // a reasoning item's is dropped (input.go; the native path: openai.NativeRequest)
			return itemReferenceError(fmt.Sprintf("input[%d]", i))
		}
	}
	return nil
}

// isReference reports whether the input item it refers to a stored item.
func isReference(it []byte) bool {
	obj, ok := rawjson.ScanObject(it)
	if !ok {
		return false
	}
	var typ, role, id []byte
	for k, v, ok := obj.Next(); ok; k, v, ok = obj.Next() {
		switch {
		case rawjson.KeyIs(k, "type"):
			typ = v
		case rawjson.KeyIs(k, "role"):
			role = v
		case rawjson.KeyIs(k, "id"):
			id = v
		}
	}
	if t, ok := rawjson.String(typ); ok {
		return t == "item_reference"
	}
	return !rawjson.Set(typ) && !rawjson.Set(role) && rawjson.Set(id)
}

// boolOf is the JSON literal v as a *bool; nil for anything else.
func boolOf(v []byte) *bool {
	switch string(bytes.TrimSpace(v)) {
	case "true":
		return &[]bool{true}[0]
	case "false":
		return new(bool)
	}
	return nil
}

// refuseState refuses every member that needs Detour to keep responses.
func refuseState(w *wireRequest) *Error {
	switch {
	case w.Store != nil && *w.Store:
		return stateful("store", "\"store\": true")
	case w.PreviousResponseID != nil && *w.PreviousResponseID != "":
		return stateful("previous_response_id", "\"previous_response_id\"")
	case rawjson.Set(w.Conversation):
		return stateful("conversation", "\"conversation\"")
	case w.Background != nil && *w.Background:
		return stateful("background", "\"background\": true")
	case rawjson.Set(w.Prompt):
		return stateful("prompt", "a stored \"prompt\"")
	}
	return nil
}
