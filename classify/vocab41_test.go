package classify

import (
	"net/http"
	"testing"
)

// TestVocabularyRoundFortyOneImagePatches: hunt 41b #2, labelled before the
// classifier ran (corpus README, "Vocabulary round forty-one"). A user
// relies on an image too large for one model's vision budget moving on to
// the next target in the route (which may take it), as any image over a
// size limit does, rather than ending the request as the client's bad
// input because OpenAI sent the code invalid_value beside it. A client's
// invalid value that is no size limit must stay bad_request.
func TestVocabularyRoundFortyOneImagePatches(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}]}`
	runHostile(t, []hostileCase{
		// The hunt's body (Prism-Shadow/penguin-harness#573): the message
		// and code the client printed, in OpenAI's envelope.
		{name: "OpenAI image patches over the limit, code invalid_value", status: 400,
			body: `{"error":{"message":"The image you provided requires 53800 patches after processing, exceeding the limit of 30000. Please resize the image and try again.","code":"invalid_value"}}`,
			req:  chat, model: "m", want: Overflow},
		// The same message with the members OpenAI's envelope usually has
		// (constructed: type and a null param).
		{name: "the same with type and a null param", status: 400,
			body: `{"error":{"message":"The image you provided requires 53800 patches after processing, exceeding the limit of 30000. Please resize the image and try again.","type":"invalid_request_error","param":null,"code":"invalid_value"}}`,
			req:  chat, model: "m", want: Overflow},

		// Near-misses (constructed): a client's invalid value that is no
		// size limit, a broken image, a client's own field named for
		// patches, the words quoted back from the client, and a throttle.
		{name: "an invalid value for temperature stays bad_request", status: 400,
			body: `{"error":{"message":"Invalid value for 'temperature': expected a number less than or equal to 2, but got 3 instead.","type":"invalid_request_error","param":"temperature","code":"invalid_value"}}`,
			req:  `{"model":"m","temperature":3,"messages":[{"role":"user","content":"hi"}]}`, model: "m", want: BadRequest},
		{name: "an invalid image stays bad_request", status: 400,
			body: `{"error":{"message":"You uploaded an unsupported image. Please make sure your image is valid.","type":"invalid_request_error","param":null,"code":"invalid_image"}}`,
			req:  chat, model: "m", want: BadRequest},
		{name: "a client's max_patches field over its maximum stays bad_request", status: 400,
			body: `{"error":{"message":"Invalid value for 'max_patches': 5000 exceeds the maximum of 4096.","type":"invalid_request_error","param":"max_patches","code":"invalid_value"}}`,
			req:  `{"model":"m","max_patches":5000,"messages":[{"role":"user","content":"hi"}]}`, model: "m", want: BadRequest},
		{name: "the client's own words quoted back", status: 400,
			body: `{"error":{"message":"Invalid value: 'this needs 900 patches, exceeding the limit'","code":"invalid_value"}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":"this needs 900 patches, exceeding the limit"}]}`, model: "m", notAny: []Class{Overflow}},
		{name: "patches per minute at a 429 is a throttle", status: 429,
			body: `{"error":{"message":"Image patches per minute: 1200000 patches requested, exceeding the limit of 1000000. Please try again in 20s."}}`,
			req:  chat, model: "m", want: RateLimited},
	})
}

// TestVocabularyRoundFortyOneCredentials: hunt 41a (answers that refuse
// the caller), labelled before the classifier ran. A user relies on a
// credential that cannot work on a provider at all (a banned account, an
// organisation key without its workspace header, a token without the
// scope to call the provider's models) cooling that account and paging the
// operator, where it used to stop each request as a 403 or fail over
// silently as a 400. A refusal of one model, one resource or one network
// stays forbidden, and a client's own words are no evidence.
func TestVocabularyRoundFortyOneCredentials(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		// 41a #1 (lemon07r/opencode-kimi-full#7, in the envelope
		// clacky-ai/openclacky#192 shows).
		{name: "Kimi Code access terminated", status: 403,
			body: `{"error":{"message":"Access terminated. Review our Community Guidelines(https://www.kimi.com/code/docs/kimi-code/community-guidelines.html) or contact support@moonshot.cn for assistance.","type":"access_terminated_error"}}`,
			req:  chat, model: "m", want: Auth},
		// The same behind a relay's label (constructed).
		{name: "access terminated behind a relay's label", status: 403,
			body: `{"error":{"message":"[groq] Access terminated. Review our Community Guidelines or contact support."}}`,
			req:  chat, model: "m", want: Auth},
		// 41a #4 (SenteLabsAI/OpenExecutive#128, in Anthropic's envelope).
		{name: "Anthropic key not scoped to a workspace", status: 400,
			body: `{"type": "error", "error": {"type": "invalid_request_error", "message": "This API key is not scoped to a workspace, so this request must include the anthropic-workspace-id header with the ID of the workspace to use."}}`,
			req:  chat, model: "m", want: Auth},
		// 41a #0 (CSOAI-ORG/councilof-ai#1102, verbatim).
		{name: "Hugging Face token without the Inference Providers permission", status: 403,
			body: `{"error":"This authentication method does not have sufficient permissions to call Inference Providers on behalf of user Nicholastempleman"}`,
			req:  chat, model: "m", want: Auth},

		// Near-misses from the corpus: Kimi's other answers with the same
		// type say other words and keep their classes.
		{name: "Kimi For Coding whitelist stays forbidden", status: 403,
			body: `{"error":{"message":"Kimi For Coding is currently only available for Coding Agents such as Kimi CLI, Claude Code, Roo Code, Kilo Code, etc.","type":"access_terminated_error"}}`,
			req:  chat, model: "m", want: Forbidden},
		{name: "Kimi weekly cap stays quota", status: 403,
			body: `{"error":{"message":"You've reached your weekly (7-day) usage limit. Your quota will reset when the current 7-day window ends. To continue now, purchase extra usage or upgrade your plan: https://www.kimi.com/membership/subscription?tab=quota","type":"access_terminated_error"}}`,
			req:  chat, model: "m", want: Quota},
		// Near-misses (constructed): the words inside a sentence about
		// something else, a gated model, the client's own words, a
		// resource of the client's.
		{name: "a tool's access terminated is not the account", status: 403,
			body: `{"error":{"message":"Tool access terminated by the MCP server weather-tools."}}`,
			req:  chat, model: "m", notAny: []Class{Auth}},
		{name: "Hugging Face gated model stays forbidden", status: 403,
			body: `{"error":"Access to model meta-llama/Llama-3.1-8B-Instruct is restricted and you are not in the authorized list. Visit https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct to ask for access."}`,
			req:  chat, model: "m", want: Forbidden},
		{name: "the client's workspace words quoted back", status: 400,
			body: `{"error":{"message":"Invalid value: 'must include the anthropic-workspace-id header'"}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":"must include the anthropic-workspace-id header"}]}`, model: "m", notAny: []Class{Auth}},
		{name: "the client's URL asks for the header", status: 400,
			body: `{"error":{"message":"Failed to fetch https://files.example.com/a.pdf: must include the anthropic-workspace-id header"}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":[{"type":"file","file":{"file_url":"https://files.example.com/a.pdf"}}]}]}`, model: "m", notAny: []Class{Auth}},
	})
}

// TestVocabularyRoundFortyOneBareValidationErrorRelayed: hunt 41b #8,
// Bedrock's bare "Validation Error" (two images sent to a model that takes
// one), is unknown: the words name nothing, so the request moves on. A user
// relies on the same answer meaning the same behind a relay: one-api's
// "(request id: …)", LiteLLM's model group, a trailing line break or full
// stop, or an {"errors":[…]} envelope used to make it the client's bad
// input, which ended the request. Details beside the words, or words that
// go on to name the input, still prove bad input.
func TestVocabularyRoundFortyOneBareValidationErrorRelayed(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	aws := http.Header{"X-Amzn-Errortype": []string{"ValidationException"}}
	const msg = "The model returned the following errors: Validation Error"
	runHostile(t, []hostileCase{
		// boto/boto3#4463, in AWS's envelope.
		{name: "Bedrock's bare Validation Error", status: 400, header: aws,
			body: `{"message":"` + msg + `"}`, req: chat, model: "m", want: Unknown},
		// As relays decorate it (constructed).
		{name: "with one-api's request id", status: 400, header: aws,
			body: `{"error":{"message":"` + msg + ` (request id: 2025010112000012345678)"}}`, req: chat, model: "m", want: Unknown},
		{name: "with LiteLLM's model group", status: 400, header: aws,
			body: `{"error":{"message":"` + msg + ` Received Model Group=m\nAvailable Model Group Fallbacks=None"}}`, req: chat, model: "m", want: Unknown},
		{name: "with a line break", status: 400, header: aws,
			body: `{"error":{"message":"` + msg + `\r\n"}}`, req: chat, model: "m", want: Unknown},
		{name: "with a blank and a full stop", status: 400, header: aws,
			body: `{"error":{"message":"` + msg + ` ."}}`, req: chat, model: "m", want: Unknown},
		{name: "in an errors[] envelope", status: 400, header: aws,
			body: `{"errors":[{"message":"` + msg + `"}]}`, req: chat, model: "m", want: Unknown},

		// Near-misses: details beside the words (Zod's shape, also as an
		// errors list beside them), and words that name the input.
		{name: "Zod's details beside the words stay bad_request", status: 400,
			body: `{"error":"Validation error","details":[{"code":"invalid_type","expected":"number","received":"string","path":["max_tokens"],"message":"Expected number, received string"}]}`,
			req:  chat, model: "m", want: BadRequest},
		{name: "an errors list beside the words stays bad_request", status: 400,
			body: `{"message":"Validation error","errors":[{"path":"max_tokens","message":"Expected number, received string"}]}`,
			req:  chat, model: "m", want: BadRequest},
		{name: "words that go on to name the input stay bad_request", status: 400,
			body: `{"error":{"message":"Validation error (request id: 123): max_tokens must be a number"}}`,
			req:  chat, model: "m", want: BadRequest},
	})
}
