package classify

import "testing"

// Round 66 (fix 66j): hunt 66h's 2026 refusals (GPT-5.x/6.x, Claude 5.x,
// Gemini 3.x). Four of its ten answers were misplaced; each rule below is
// pinned by its corpus body, beside the near answers it must leave alone
// and an echo guard: the client's own words quoted back never decide.

// (1) A field path, then a gap said of this model and nothing else. Claude
// Opus 5.5 refuses forced tool use, which Opus 4.8 and Sonnet 5 take (and
// Detour's own structured-output translation may force a tool): the path
// names the member, the words say the gap is this model's, so the walk
// moves on and nothing cools (unknown), as the corpus's other "… is not
// supported for this model" answers and Bedrock's toolChoice any.
func TestRoundSixtySixJPathThenModelGap(t *testing.T) {
	body := corpusBody(t, "anthropic-400-tool-choice-type-tool-and-any-not-supported-for-this-model-opus-5-5")
	want56(t, "Opus 5.5's tool_choice", classify56(400, body, "", false), Unknown, "")
	want56(t, "with its request", classify56(400, body, `{"model":"claude-opus-5-5","max_tokens":1024,"tool_choice":{"type":"tool","name":"_todo"},"tools":[{"name":"_todo","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"hi"}]}`, false), Unknown, "")
	msg := func(m string) string {
		return `{"type":"error","error":{"type":"invalid_request_error","message":"` + m + `"}}`
	}
	want56(t, "with this model", classify56(400, msg(`tool_choice: type \"any\" is not supported with this model.`), "", false), Unknown, "")
	want56(t, "this model does not support", classify56(400, msg(`messages.0.content.1.image: This model does not support image input`), "", false), Unknown, "")
	want56(t, "a snake path and its value", classify56(400, msg(`output_config.effort 'max' is not supported for this model.`), "", false), Unknown, "")

	// A pair of members, or a condition, beside the refused one: the
	// request at odds with itself keeps its path's proof.
	want56(t, "when thinking is disabled", classify56(400, msg(`output_config.effort 'max' is not supported when thinking is disabled on this model`), "", false), BadRequest, "message:field-path")
	want56(t, "with another member", classify56(400, msg(`tool_choice: type \"any\" with thinking is not supported for this model.`), "", false), BadRequest, "message:field-path")
	// Other words after the path stay bad input; a sampling knob's own
	// phrase too (round 44).
	want56(t, "not a gap", classify56(400, msg(`tool_choice: Input should be a valid dictionary`), "", false), BadRequest, "")
	want56(t, "a sampling knob", classify56(400, msg(`temperature: not supported for this model`), "", false), BadRequest, "")
	// A bad-input code beside it still proves bad input.
	coded := `{"error":{"message":"tool_choice: type any is not supported for this model.","type":"invalid_request_error","code":"unsupported_value"}}`
	want56(t, "a bad-input code", classify56(400, coded, "", false), BadRequest, "")

	// The client's words quoted back after a path of its message.
	words := "tool use is not supported for this model"
	echo56(t, 400, words, msg(`messages.0.content: `+words), BadRequest)
}

// (2) A gone or not-available model named at a nested model path. Claude
// Code resumed a session whose tools.16.model named Claude Fable 5: the
// model refused is a tool's, which the client chose, not the model Detour
// sent (docs/behaviour.md, "What the client named or supplied"), so it is
// the client's (bad_request), as beside a param naming such a field. Read
// as unavailable, one client's tool setting cooled the endpoint for all.
func TestRoundSixtySixJNestedModelPathIsTheClients(t *testing.T) {
	body := corpusBody(t, "anthropic-400-tools-model-claude-fable-5-not-available-please-use-opus-4-8")
	want56(t, "a tool's model", classify56(400, body, "", false), BadRequest, "message:field-path")
	msg := func(m string) string {
		return `{"type":"error","error":{"type":"invalid_request_error","message":"` + m + `"}}`
	}
	want56(t, "an indexed tool's model, not found", classify56(400, msg(`tools[3].model: model claude-x not found`), "", false), BadRequest, "")
	want56(t, "a sub-object's model", classify56(400, msg(`advisor.model: claude-fable-5 is not available`), "", false), BadRequest, "")

	// The top-level model is the endpoint's: it stays gone.
	top := "model: Claude Fable 5 is not available. Please use Opus 4.8. Learn more: https://www.anthropic.com/news/fable-mythos-access"
	want56(t, "the top-level model", classify56(400, top, "", false), Unavailable, "")
	want56(t, "the top-level model, in an envelope", classify56(400, msg(`model: Claude Fable 5 is not available. Please use Opus 4.8.`), "", false), Unavailable, "")
	want56(t, "a body wrapper's model", classify56(400, msg(`body.model: claude-fable-5 is not available`), "", false), Unavailable, "")
	gemini := `{"error":{"code":400,"message":"* GenerateContentRequest.model: model gemini-x is not available","status":"INVALID_ARGUMENT"}}`
	want56(t, "a request type's model", classify56(400, gemini, "", false), Unavailable, "")
	// The client's words: a path the client wrote in its message, quoted
	// back at the head of the upstream's message, names no member of the
	// request; the endpoint's own gone wording after it still decides.
	words := "tools.1.model: hello"
	echo56(t, 400, words, msg(words+". The model claude-x is not available."), Unavailable)
}

// (3) "Invalid thought signature." (Gemini 3 through Antigravity-Manager):
// a stale thought signature in the client's replayed history, the family
// the corpus already reads as bad input ("Corrupted thought signature.",
// "thought_signature is invalid"), in the other order, however the noun is
// written.
func TestRoundSixtySixJInvalidThoughtSignature(t *testing.T) {
	body := corpusBody(t, "antigravity-400-invalid-thought-signature-gemini-3-7-flash")
	want56(t, "Antigravity's", classify56(400, body, "", false), BadRequest, "phrase:invalid thought signature")
	gem := func(m string) string {
		return `{"error":{"code":400,"message":"` + m + `","status":"INVALID_ARGUMENT"}}`
	}
	want56(t, "the wire name", classify56(400, gem("Invalid thoughtSignature in contents[3].parts[0]"), "", false), BadRequest, "")
	want56(t, "the wire name, after", classify56(400, gem("thoughtSignature is invalid"), "", false), BadRequest, "")
	want56(t, "snake case", classify56(400, gem("Invalid thought_signature."), "", false), BadRequest, "")

	// A bare signature is a request's signature as often (AWS SigV4):
	// left alone.
	want56(t, "a bare signature", classify56(400, "Invalid signature.", "", false), Unknown, "")
	// The client's words quoted back.
	words := "Invalid thought signature"
	echo56(t, 400, words, gem("Request contains an invalid argument: '"+words+"'"), Unknown)
}

// (4) A model "not supported for" a capability. GitHub Copilot refused an
// image for claude-opus-4.6 ('model "claude-opus-4.6" not supported for
// vision'): the model serves text clients, image input is what it lacks
// there, so the walk moves on and nothing cools (unknown). Read as a gone
// model, one image request cooled the model for every text client.
func TestRoundSixtySixJModelNotSupportedForCapability(t *testing.T) {
	body := corpusBody(t, "github-400-copilot-model-claude-opus-4-6-not-supported-for-vision")
	want56(t, "Copilot's vision", classify56(400, body, "", false), Unknown, "phrase:model…not supported for+capability")
	want56(t, "as a 404", classify56(404, body, "", false), Unknown, "")
	for _, m := range []string{
		"Model gpt-4 is not supported for streaming",
		"model gpt-4 is not supported for image input",
		"The model x is not currently supported for function calling.",
		"Model qwen3.7-max is not supported for format oa-compat",
	} {
		want56(t, m, classify56(400, m, "", false), Unknown, "")
	}

	// What is not a capability keeps its class: the account's, the
	// region's, the request's, or nothing after.
	for _, m := range []string{
		`model "claude-opus-4.6" not supported for your account`,
		`model "claude-opus-4.6" not supported for your region`,
		`model "claude-opus-4.6" not supported`,
		`Model is not supported for this request.`,
		`Model gpt-4 is not supported for tool_choice`,
		`Model gpt-4 is not supported for visionary-tier keys`,
	} {
		want56(t, m, classify56(400, m, "", false), Unavailable, "")
	}

	// The client's words quoted back: a model name and its capability
	// from the client's own message.
	words := "model foo not supported for vision"
	echo56(t, 400, words, `{"error":{"message":"Model gpt-4 is not supported. You said: '`+words+`'"}}`, Unavailable)
}
