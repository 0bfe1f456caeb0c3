package classify

import "testing"

// TestOfPathMixedGeminiList: a user relies on a request that no target can
// serve failing at once as bad_request, not walking the route and costing a
// call at every other target. Gemini lists each member it refuses on a line
// of its own; where the schema subset ("enum: only allowed for STRING
// type", a gap other vendors do not have) shares the list with a member's
// bad input (an empty parts list, an array without items, an empty enum
// value, a part without data), the answer is bad_request, as it was before
// the schema subset was read as a gap; where every line is the subset, it
// stays unknown. (Found by review 43h.)
func TestOfPathMixedGeminiList(t *testing.T) {
	const enum = `* GenerateContentRequest.tools[0].function_declarations[14].parameters.properties[mode].enum: only allowed for STRING type\n`
	const format = `* GenerateContentRequest.tools[0].function_declarations[93].parameters.properties[links].items.properties[url].format: only 'enum' and 'date-time' are supported for STRING type\n`
	gemini := func(msg string) string {
		return `{"error":{"code":400,"message":"` + msg + `","status":"INVALID_ARGUMENT"}}`
	}
	for _, c := range []struct {
		name, msg string
		want      Class
	}{
		{"subset then empty parts", enum + `* GenerateContentRequest.contents[1].parts: contents.parts must not be empty.\n`, BadRequest},
		{"empty parts then subset", `* GenerateContentRequest.contents[1].parts: contents.parts must not be empty.\n` + enum, BadRequest},
		{"subset then items missing", enum + `* GenerateContentRequest.tools[0].function_declarations[23].parameters.properties[files].items: missing field.\n`, BadRequest},
		{"subset then empty enum value", format + `* GenerateContentRequest.tools[0].function_declarations[0].parameters.properties[s].enum[1]: cannot be empty\n`, BadRequest},
		{"subset then oneof data", enum + `* GenerateContentRequest.contents[33].parts[0].data: required oneof field 'data' must have one initialized field\n`, BadRequest},
		{"subset only", enum + enum + format, Unknown},
	} {
		v := Classify(Response{Status: 400, Body: []byte(gemini(c.msg)), Model: "gemini-2.5-pro"})
		if v.Class != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, v.Class, v.Evidence, c.want)
		}
	}
}
