package classify

import (
	"net/http"
	"testing"
)

// TestVocabularyRoundFortyThreeBBearerTokenInvalid: hunt 43d #10, labelled
// before the classifier ran (corpus README, "Vocabulary round forty-three
// b"). A user relies on a dead Kiro/CodeWhisperer login (AWS's "The bearer
// token included in the request is invalid.", sent as a 403) cooling the
// account and paging the operator at once, as its sibling "security token
// included in the request is invalid" does, instead of cooling one endpoint
// only after failure_threshold refusals. A remote MCP server or connector
// the client declared that says the same words stays the client's, and the
// client's own words quoted back are no evidence.
func TestVocabularyRoundFortyThreeBBearerTokenInvalid(t *testing.T) {
	const words = "The bearer token included in the request is invalid."
	chat := `{"model":"m","messages":[{"role":"user","content":"Why does it say ` + words + `"}]}`
	runHostile(t, []hostileCase{
		// 43d #10 (bestK/kiro2cc#13), as in the corpus.
		{name: "CodeWhisperer 403 bearer token invalid", status: 403,
			body: `{"message":"The bearer token included in the request is invalid.","reason":null}`, want: Auth},
		// Variants (constructed): the same body at a 400, and beside an
		// AWS error type header, as the security-token sibling reads.
		{name: "the same body at a 400", status: 400,
			body: `{"message":"The bearer token included in the request is invalid.","reason":null}`, want: Auth},
		{name: "beside x-amzn-ErrorType AccessDeniedException", status: 403,
			header: http.Header{"X-Amzn-Errortype": {"AccessDeniedException"}},
			body:   `{"message":"The bearer token included in the request is invalid.","reason":null}`, want: Auth},

		// Near-misses (constructed): the client's MCP server and
		// connector, ranked above the account wording; the client's own
		// words quoted back.
		{name: "an MCP server the client declared, 400", status: 400,
			body: `{"type":"error","error":{"type":"invalid_request_error","message":"MCP server 'kiro' rejected the connection: ` + words + `"}}`,
			want: BadRequest},
		{name: "an MCP server the client declared, 403", status: 403,
			body: `{"type":"error","error":{"type":"permission_error","message":"MCP server 'kiro' rejected the connection: ` + words + `"}}`,
			want: BadRequest},
		{name: "a connector the client declared", status: 400,
			body: `{"message":"connectors failed with continue on failure disabled: connector xyz failed with message '` + words + `'"}`,
			want: BadRequest},
		{name: "the client's words quoted back, 403", status: 403,
			body: `{"message":"Why does it say ` + words + `"}`, req: chat, model: "m", want: Forbidden},
		{name: "the client's words quoted back, 400", status: 400,
			body: `{"message":"Why does it say ` + words + `"}`, req: chat, model: "m", want: Unknown},
	})
}

// TestVocabularyRoundFortyThreeBThirdPartyClients: hunt 43d #12 (the same
// answer as hunt 43e #3). A user relies on a relay that serves its
// subscription only to its vendor's own client ("Please use in Codex.
// Third-party clients are not supported") being read as a refusal of the
// caller (forbidden: the endpoint cools after failure_threshold refusals
// and stops costing every request an attempt), not as a capability the
// request lacks. Where clients are not the subject ("tools are not
// supported", "streaming is not supported for this client", "images are not
// supported for this model"), the capability gap stays unknown, and the
// client's own words quoted back are no evidence.
func TestVocabularyRoundFortyThreeBThirdPartyClients(t *testing.T) {
	const codex = `{"error":{"code":"","message":"Please use in Codex. Third-party clients are not supported (request id: 20260122173310256451097WK6vbbTj)","type":"new_api_error"}}`
	quote := "why do I get third-party clients are not supported"
	chat := `{"model":"m","messages":[{"role":"user","content":"` + quote + `"}]}`
	runHostile(t, []hostileCase{
		// 43d #12 / 43e #3 (zhukunpenglinyutong/jetbrains-cc-gui#245).
		{name: "new-api 403 third-party clients are not supported", status: 403, body: codex, want: Forbidden},
		// Variants (constructed): the same body at a 400, the singular,
		// the spelling without a hyphen.
		{name: "the same body at a 400", status: 400, body: codex, want: Forbidden},
		{name: "third-party client is not supported", status: 400,
			body: `{"error":{"message":"Third-party client is not supported"}}`, want: Forbidden},
		{name: "third party clients, no hyphen", status: 400,
			body: `{"error":{"message":"Third party clients are not supported."}}`, want: Forbidden},

		// Near-misses (constructed): what is unsupported is not a client.
		{name: "tools are not supported, 400", status: 400,
			body: `{"error":{"message":"Tools are not supported"}}`, want: Unknown},
		{name: "tools are not supported, 403", status: 403,
			body: `{"error":{"message":"Tools are not supported"}}`, want: Unknown},
		{name: "streaming is not supported for this client", status: 400,
			body: `{"error":{"message":"Streaming is not supported for this client"}}`, want: Unknown},
		{name: "images are not supported for this model", status: 400,
			body: `{"error":{"message":"Images are not supported for this model"}}`, want: Unknown},
		{name: "a client's tools are the subject", status: 400,
			body: `{"error":{"message":"Third-party client tools are not supported"}}`, want: Unknown},
		// The client's own words quoted back.
		{name: "the client's words quoted back, 400", status: 400,
			body: `{"error":{"message":"Invalid prompt: ` + quote + `"}}`, req: chat, model: "m", notAny: []Class{Forbidden}},
	})
}
