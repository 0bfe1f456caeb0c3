package openai

import (
	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/rawjson"
)

// Deltas that add nothing. A stream's idle_timeout restarts on content
// only (docs/config.md, "idle_timeout"): keep-alives, empty chunks and
// deltas that carry nothing must not hold a stalled answer open. A tool
// call's delta with only its index, or with empty arguments, is such a
// delta (review 62b: a broken upstream that sent one every 50 ms kept a
// stream open for as long as it liked, its client's slot held).

// callNames are the members a tool call's delta may carry and still add
// nothing, when each is empty ("" or null); index and type name nothing
// new.
var callNames = []string{"index", "type", "id", "function", "name", "arguments"}

// callsAdd reports whether v, a delta's tool_calls (an array) or legacy
// function_call (an object), adds to the answer: a call's id, name or
// arguments not empty, or any member it does not know (a vendor's
// extension may be what the client reads). Unsure shapes add.
func callsAdd(v []byte) bool {
	if list, ok := rawjson.ScanArray(v); ok {
		for _, el, ok := list.Next(); ok; _, el, ok = list.Next() {
			if callAdds(el, 0) {
				return true
			}
		}
		return false
	}
	return callAdds(v, 0)
}

// callAdds reports whether one call (or its function, at depth 1) adds.
func callAdds(v []byte, depth int) bool {
	obj, ok := rawjson.ScanObject(v)
	if !ok {
		return true
	}
	for k, v, ok := obj.Next(); ok; k, v, ok = obj.Next() {
		i, sure := provider.PlainName(k, callNames)
		switch {
		case !sure, i < 0:
			return true
		case i == 0, i == 1: // index, type
		case i == 3 && depth == 0: // function
			if string(v) != "null" && callAdds(v, 1) {
				return true
			}
		case string(v) != `""` && string(v) != "null":
			return true
		}
	}
	return false
}
