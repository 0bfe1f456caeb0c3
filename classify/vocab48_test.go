package classify

import "testing"

// TestVocabularyRoundFortyEight: hunt 48a's one inconsistency
// (classify/testdata/corpus/README.md, round 48). GitHub Copilot's
// "output_config.effort \"high\" is not supported by model claude-opus-4.7"
// read bad_request as plain text and unknown in its JSON envelope: the
// path-and-quoted-value form was not read with the double quote escaped, as
// a JSON string holds it. The form is the same however it is quoted, and
// still needs a dotted snake_case path before the value.
func TestVocabularyRoundFortyEight(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	copilot := `{"error":{"message":"output_config.effort \"high\" is not supported by model claude-opus-4.7; supported values: [medium]","code":"invalid_reasoning_effort"}}`
	runHostile(t, []hostileCase{
		{name: "double-quoted value in an envelope", status: 400, body: copilot, req: chat, model: "m", want: BadRequest},
		{name: "the same as plain text", status: 400, body: `output_config.effort "high" is not supported by model claude-opus-4.7; supported values: [medium]`, req: chat, model: "m", want: BadRequest},
		{name: "single-quoted value in an envelope", status: 400, body: `{"error":{"message":"output_config.effort 'max' is not supported when thinking is disabled"}}`, req: chat, model: "m", want: BadRequest},
		// Near-misses: no underscore (a host name or a module), no dot, no
		// quote after the path: a capability gap stays one.
		{name: "a host name before a quoted value", status: 400, body: `{"error":{"message":"api.example.com \"gpt-5\" is not supported by this endpoint"}}`, req: chat, model: "m", notAny: []Class{BadRequest}},
		{name: "a bare word before a quoted value", status: 400, body: `{"error":{"message":"effort \"high\" is not supported by model x"}}`, req: chat, model: "m", notAny: []Class{BadRequest}},
		{name: "a path without a quoted value", status: 400, body: `{"error":{"message":"output_config.effort high is not supported by model x"}}`, req: chat, model: "m", notAny: []Class{BadRequest}},
	})
}
