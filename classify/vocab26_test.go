package classify

import "testing"

// TestVocabularyRoundTwentySix: Cloudflare Workers AI's error codes (its
// docs' table), OpenRouter's documented 404 for parameters no endpoint can
// handle, Perplexity's message-order check. Each positive failed before its
// rule.
func TestVocabularyRoundTwentySix(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	cf := func(code, msg string) string {
		return `{"result":null,"success":false,"errors":[{"code":` + code + `,"message":"` + msg + `"}],"messages":[]}`
	}
	runHostile(t, []hostileCase{
		{name: "service unavailable for the account", status: 403, body: cf("3023", "AiError: Service unavailable for account"), req: chat, model: "m", want: Forbidden},
		{name: "a bare service unavailable stays the server's", status: 503, body: cf("3040", "Service Unavailable"), req: chat, model: "m", want: ServerError},
		{name: "no more data centers", status: 429, body: cf("3040", "AiError: No more data centers to forward the request to"), req: chat, model: "m", want: ServerError},
		{name: "capacity temporarily exceeded", status: 429, body: cf("3040", "AiError: 3040: Capacity temporarily exceeded, please try again."), req: chat, model: "m", want: ServerError},
		{name: "a tier's capacity keeps its class", status: 429,
			body: `{"object":"error","message":"Service tier capacity exceeded for this model.","type":"service_tier_capacity_exceeded","param":null,"code":"3505"}`, req: chat, model: "m", want: RateLimited},
		// OpenRouter: the request's parameters rule out every endpoint; as
		// unavailable one client's request cooled OpenRouter for everyone.
		{name: "no endpoints can handle the parameters", status: 404,
			body: `{"error":{"code":404,"message":"No endpoints found that can handle the requested parameters."}}`, req: chat, model: "m", want: Unknown},
		{name: "no endpoints for the model stays gone", status: 404,
			body: `{"error":{"code":404,"message":"No endpoints found for mistralai/devstral-2512:free."}}`, req: chat, model: "mistralai/devstral-2512:free", want: Unavailable},
		{name: "user and assistant should alternate", status: 400,
			body: `{"error":{"message":"After the (optional) system message(s), user or tool message(s) should alternate with assistant message(s).","type":"invalid_message","param":null,"code":400}}`, req: chat, model: "m", want: BadRequest},

		// Azure API Management in front of Azure OpenAI, and Entra ID.
		{name: "apim token quota", status: 403, body: `{"statusCode":403,"message":"Token quota is exceeded. Try again in 21 minutes and 33 seconds."}`, req: chat, model: "m", want: Quota},
		{name: "apim token limit stays a rate", status: 429, body: `{"statusCode":429,"message":"Token limit is exceeded. Try again in 53 seconds."}`, req: chat, model: "m", want: RateLimited},
		{name: "apim has no such operation", status: 404, body: `{"statusCode":404,"message":"Unable to match incoming request to an operation."}`, req: chat, model: "m", want: Unknown},
		{name: "apim content safety", status: 403, body: `{"statusCode":403,"message":"Request failed content safety check."}`, req: chat, model: "m", want: Refusal},
		{name: "entra token from another tenant", status: 400,
			body: `{"error":{"code":"Tenant provided in token does not match resource token","message":"Token tenant 72f988bf-86f1-41af-91ab-2d7cd011db47 does not match resource tenant."}}`, req: chat, model: "m", want: Auth},
		// Bedrock (its AccessDenied and Validation wordings; a relay's 500).
		{name: "no valid payment instrument", status: 403, header: map[string][]string{"X-Amzn-Errortype": {"AccessDeniedException"}},
			body: `{"message":"Model access is denied due to INVALID_PAYMENT_INSTRUMENT:A valid payment instrument must be provided."}`, req: chat, model: "m", want: Quota},
		{name: "account not authorized to invoke", status: 400, header: map[string][]string{"X-Amzn-Errortype": {"ValidationException"}},
			body: `{"message":"Your AWS account is not authorized to invoke this API operation"}`, req: chat, model: "m", want: Forbidden},
		{name: "model access denied in a relay's 500", status: 500,
			body: `{"error":{"message":"litellm.APIConnectionError: BedrockException - {\"message\":\"Model access is denied due to IAM user or service role is not authorized to perform the required AWS Marketplace actions (aws-marketplace:ViewSubscriptions, aws-marketplace:Subscribe) to enable access to this model.\"}"}}`, req: chat, model: "m", want: Forbidden},
		// A request that carries its own credential for a third party (Azure
		// On Your Data's search key): access wording may be that service's,
		// which the client controls; the status decides.
		{name: "the client's search key denied", status: 400,
			body: `{"error":{"code":"400","message":"Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription."}}`,
			req:  `{"model":"m","messages":[],"data_sources":[{"type":"azure_search","parameters":{"authentication":{"type":"api_key","key":"x"}}}]}`, model: "m", notAny: []Class{Forbidden, Auth}},
	})
}
