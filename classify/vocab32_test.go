package classify

import "testing"

// TestVocabularyRoundThirtyTwo: five held-out hunts (plan and usage
// windows; refusals and safety filters; embeddings and rerank; capacity and
// overload; credentials and account states), each
// message labelled from its meaning before the classifier ran (corpus
// README, "Vocabulary round thirty-two"). Each positive failed before its
// rule; the near-misses beside them must not move.
func TestVocabularyRoundThirtyTwo(t *testing.T) {
	embed := `{"model":"m","input":["a",""]}`
	runHostile(t, []hostileCase{
		// Vertex Imagen (google-marketing-solutions/adios#62,
		// epam/ai-dial-adapter-vertexai#66): the prompt or the picture
		// refused by policy, as INVALID_ARGUMENT.
		{name: "imagen safety filter threshold", status: 400,
			body: "{\n  \"error\": {\n    \"code\": 400,\n    \"message\": \"Image generation failed with the following error: The prompt could not be submitted. Your current safety filter threshold prohibited one or more words in this prompt. If you think this was an error, send feedback. Support codes: 61493863\",\n    \"status\": \"INVALID_ARGUMENT\"\n  }\n}",
			want: Refusal},
		{name: "imagen response may violate our policies", status: 400,
			body: `{"error":{"code":400,"message":"Image generation failed with the following error: The response is blocked, as it may violate our policies. If you believe this is an error, please send feedback to your account team. Error Code: 58061214","status":"INVALID_ARGUMENT"}}`,
			want: Refusal},
		// Near-misses (constructed): a setting named in a bad value stays
		// the client's; an account suspended stays the account's.
		{name: "a safety setting's bad value stays bad input", status: 400,
			body: `{"error":{"code":400,"message":"safety_filter_level must be one of block_low_and_above, block_medium_and_above","status":"INVALID_ARGUMENT"}}`,
			want: BadRequest},
		{name: "an account suspended for its use stays the account's", status: 403,
			body: `{"error":{"message":"Your account has been suspended because it may violate our policies."}}`,
			want: Auth},

		// Jina's embeddings (refly-ai/refly#831; the body as Elasticsearch's
		// Jina client tests it): more inputs than one request takes.
		{name: "jina larger than the largest allowed size", status: 400,
			body: "{\n    \"detail\": \"\\\"input\\\" length 2049 is larger than the largest allowed size 2048\"\n}",
			req:  embed, model: "jina-embeddings-v3", want: Overflow},
		// Gemini's OpenAI-compatible embeddings (lingfengQAQ/webnovel-writer#51):
		// an empty text in the client's input.
		{name: "gemini embed empty part", status: 400,
			body: `{"error": {"code": 400, "message": "EmbedContentRequest.content contains an empty Part.", "status": "INVALID_ARGUMENT"}}`,
			req:  embed, model: "gemini-embedding-001", want: BadRequest},
		// Azure OpenAI (Abiraj-Jatheeskumar/Resume_RAG_Chatbot,
		// AZURE_EMBEDDINGS_FIX.md): a chat deployment asked for embeddings.
		// An API this endpoint does not serve: unknown, not a gone model
		// whose cooling would keep the deployment's chat from its clients.
		{name: "azure embeddings operation not supported", status: 400,
			body: `{"error": {"code": "OperationNotSupported", "message": "The embeddings operation does not work with the specified model, gpt-4. Please choose different model and try again. You can learn more about which models can be used with each operation here: https://go.microsoft.com/fwlink/?linkid=2197993."}}`,
			req:  embed, model: "gpt-4", want: Unknown},

		// Credentials (anthropics/claude-code#5210; copilot-extensions/
		// blackbeard-extension#6): a revoked OAuth token is a dead
		// credential, not a permission; a token of the wrong kind for the
		// API can never work. Both the account's, for the operator.
		{name: "anthropic oauth token revoked", status: 403,
			body: `{"type": "error", "error": {"type": "permission_error", "message": "OAuth token has been revoked. Please obtain a new token."}}`,
			want: Auth},
		{name: "copilot personal access tokens not supported", status: 400,
			body: "bad request: Personal Access Tokens are not supported for this endpoint",
			want: Auth},
		// Near-miss (constructed): a feature not supported stays a gap.
		{name: "tools not supported stays a gap", status: 400,
			body: `{"error":{"message":"Tools are not supported for this endpoint"}}`,
			req:  `{"model":"m","messages":[],"tools":[{"type":"function","function":{"name":"f"}}]}`, model: "m", notAny: []Class{Auth, Quota, Unavailable}},
	})
}
