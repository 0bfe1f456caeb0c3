package classify

import "testing"

// Round 58, hunt 58c. A list over its cap in Pydantic's own words ("Value
// should have at most 1024 items after validation, not 1260", an
// OpenAI-compatible embeddings endpoint's 422 with code
// array_above_max_length, BerriAI/litellm#32528; "List should have at most
// N items after validation" is Pydantic's too_long message, which every
// FastAPI-served model server answers with) read bad_request by the code:
// a count over this endpoint's cap is overflow, as "array too long …
// maximum length" and an embeddings batch over its cap already are; another
// endpoint may take the list. A string over its cap ("at most 64
// characters") stays where it was.
func TestRoundFiftyEightListOverItsCap(t *testing.T) {
	want56(t, "the embeddings batch", classify56(422, `{"error": {"message": "Value should have at most 1024 items after validation, not 1260", "type": "invalid_request_error", "param": "input", "code": "array_above_max_length"}}`, "", false), Overflow, "")
	want56(t, "Pydantic's list", classify56(422, `{"detail":[{"type":"too_long","loc":["body","stop"],"msg":"List should have at most 4 items after validation, not 6","input":["a","b","c","d","e","f"],"ctx":{"field_type":"List","max_length":4,"actual_length":6}}]}`, "", false), Overflow, "")
	want56(t, "a name's characters stay", classify56(400, `{"error":{"message":"tools[0].function.name: must be at most 64 characters"}}`, "", false), BadRequest, "")
	want56(t, "a string too long stays", classify56(422, `{"detail":[{"type":"string_too_long","loc":["body","user"],"msg":"String should have at most 64 characters","input":"x"}]}`, "", false), BadRequest, "")
	echo56(t, 400, "should have at most 3 items", `{"error":{"message":"should have at most 3 items"}}`, Unknown)
}
