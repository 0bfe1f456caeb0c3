package classify

import "testing"

// TestVocabularyRoundThirtyEight: a held-out hunt of Google's model APIs
// (hunt 38a: the Gemini API, Vertex AI, the OpenAI-compatible endpoint),
// each answer labelled from its meaning before the classifier ran (corpus
// README, "Vocabulary round thirty-eight"). The positives failed before
// their rules; the near-misses beside them must not move.
func TestVocabularyRoundThirtyEight(t *testing.T) {
	chat := `{"model":"m","n":3,"messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		// Vertex AI Gemini given candidateCount 3 (genkit-ai/genkit#546):
		// the model serves one candidate; another target serves n > 1.
		{name: "Vertex candidateCount must be 1", status: 400,
			body: `{"error":{"code":400,"message":"Unable to submit request because candidateCount must be 1 but the entered value was 3. Update the candidateCount value and try again.","status":"INVALID_ARGUMENT"}}`,
			req:  chat, model: "m", want: Unknown},
		// Gemini's OpenAI-compatible endpoint with an unusable bearer
		// (ychoi-kr/llm-api-prog#1): the header Detour writes from the
		// operator's key.
		{name: "Gemini OpenAI-compatible Invalid Authorization header", status: 400,
			body: "[{\n  \"error\": {\n    \"code\": 400,\n    \"message\": \"Invalid Authorization header.\",\n    \"status\": \"INVALID_ARGUMENT\"\n  }\n}\n]",
			req:  chat, model: "m", want: Auth},
		// Near-misses (constructed): a range of candidates the client
		// exceeded is its input; an MCP server's token the client declared
		// is not the operator's key; the client's own text quoted back is
		// no evidence.
		{name: "candidateCount must be between 1 and 8", status: 400,
			body: `{"error":{"code":400,"message":"candidateCount must be between 1 and 8. Update the candidateCount value and try again.","status":"INVALID_ARGUMENT"}}`,
			req:  chat, model: "m", want: BadRequest},
		{name: "an MCP server's authorization token", status: 400,
			body: `{"type":"error","error":{"type":"invalid_request_error","message":"Invalid authorization token for MCP server 'docs'"}}`,
			req:  chat, model: "m", want: BadRequest},
		{name: "the client's own text says invalid authorization header", status: 400,
			body: `{"error":{"message":"Invalid value: 'Invalid Authorization header.'"}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":"Invalid Authorization header."}]}`, model: "m", want: BadRequest},
	})
}

// TestVocabularyRoundThirtyEightProviders: hunt 38b (independent
// OpenAI-compatible providers), labelled before the classifier ran.
func TestVocabularyRoundThirtyEightProviders(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		// Mistral's own fleet out of capacity, as a 429: its load, which
		// passes by itself, not the account's rate.
		{name: "Mistral backend_out_of_capacity", status: 429,
			body: `{"message":"Not enough capacity available for this request, please retry later.","type":"backend_out_of_capacity","code":"3505"}`,
			req:  chat, model: "m", want: ServerError},
		// Fireworks: the model gave no first token in its time, as a 429.
		{name: "Fireworks first token before the given deadline", status: 429,
			body: `{"error":{"message":"Request didn't generate first token before the given deadline"}}`, req: chat, model: "m", want: Timeout},
		// Near-misses (constructed): a tier's capacity is the account's
		// rate; a deadline the client set is not the first token's; a
		// client's text quoted back is no evidence.
		{name: "Mistral service tier capacity exceeded", status: 429,
			body: `{"message":"Service tier capacity exceeded for this model.","type":"service_tier_capacity_exceeded","code":"3505"}`,
			req:  chat, model: "m", want: RateLimited},
		{name: "a deadline member the client sent", status: 400,
			body: `{"error":{"message":"Invalid value for 'deadline': must be a positive number of seconds","type":"invalid_request_error","param":"deadline"}}`,
			req:  chat, model: "m", want: BadRequest},
		{name: "the client's text about a first token and a deadline", status: 400,
			body: `{"error":{"message":"Invalid value: 'first token before the deadline'"}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":"first token before the deadline"}]}`, model: "m", want: BadRequest},
	})
}

// TestVocabularyRoundThirtyEightOpenAI: hunt 38c (OpenAI and Azure OpenAI,
// 2025–2026), labelled before the classifier ran.
func TestVocabularyRoundThirtyEightOpenAI(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		// OpenAI limiting one end user (the safety_identifier the client
		// sent) for suspected cybersecurity misuse, in a Responses stream
		// (openai/codex issues): the request's refusal, never replayed at
		// another vendor to get around it, nothing cooled.
		{name: "cyber_policy_violation stream error event", status: 200, stream: true,
			body: `{"type":"error","sequence_number":2,"error":{"type":"invalid_request","code":"cyber_policy_violation","message":"This user's access to gpt-5.3-codex has been temporarily limited for potentially suspicious activity related to cybersecurity. Learn more about our safety mitigations: https://platform.openai.com/docs/guides/safety-checks/cybersecurity","param":"safety_identifier"}}`,
			req:  chat, model: "m", want: Refusal},
		// Azure's /openai/v1 path given the api-version Detour writes from
		// the endpoint's configuration (pydantic/pydantic-ai#5066).
		{name: "Azure v1 path api-version query parameter not allowed", status: 400,
			body: `{"error":{"code":"BadRequest","message":"api-version query parameter is not allowed when using /v1 path"}}`,
			req:  chat, model: "m", want: Unavailable},
		// The same event type naming a member the client sent (the shape of
		// the Codex events the hunt found, constructed): the request's, as
		// the invalid_request_error event is; words that prove nothing stay
		// the server's.
		{name: "invalid_request stream event naming a member", status: 200, stream: true,
			body: `{"type":"error","sequence_number":3,"error":{"type":"invalid_request","code":"invalid_value","message":"Invalid value: 'fast'. Supported values are: 'low', 'medium' and 'high'.","param":"reasoning.effort"}}`,
			req:  chat, model: "m", want: BadRequest},
		{name: "invalid_request stream event whose words name a parameter", status: 200, stream: true,
			body: `{"type":"error","sequence_number":3,"error":{"type":"invalid_request","code":null,"message":"temperature must be between 0 and 2","param":null}}`,
			req:  chat, model: "m", want: BadRequest},
		{name: "invalid_request stream event that proves nothing", status: 200, stream: true,
			body: `{"type":"error","sequence_number":3,"error":{"type":"invalid_request","code":null,"message":"Upstream request failed","param":null}}`,
			req:  chat, model: "m", want: ServerError},
		// Near-misses (constructed): an api version the answer calls invalid
		// stays as round 28 placed it; a client's text quoted back is no
		// evidence.
		{name: "an invalid api version", status: 400,
			body: `{"error":{"code":"BadRequest","message":"Invalid API version: 2024-13-01."}}`, req: chat, model: "m", want: BadRequest},
		{name: "the client's text names the api-version query parameter", status: 400,
			body: `{"error":{"message":"Invalid value: 'api-version query parameter is not allowed'"}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":"api-version query parameter is not allowed"}]}`, model: "m", want: BadRequest},
	})
}

// TestVocabularyRoundThirtyEightAnthropic: hunt 38d (Anthropic, 2025–2026),
// labelled before the classifier ran.
func TestVocabularyRoundThirtyEightAnthropic(t *testing.T) {
	msgs := `{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		// Claude Code's deferred MCP tools through a relay
		// (diegosouzapw/OmniRoute#215): two members of one tool the client
		// declared that exclude each other, as "cannot specify both".
		{name: "a tool cannot have both defer_loading and cache_control", status: 400,
			body: `{"error":{"message":"Tool 'mcp__playwright__browser_navigate' cannot have both defer_loading=true and cache_control set. Tools with defer_loading cannot use prompt caching.","type":"invalid_request_error","code":"bad_request"}}`,
			req:  msgs, model: "m", want: BadRequest},
		// Near-miss (constructed): the client's own text quoted back is no
		// evidence of anything but its bad input.
		{name: "the client's text says cannot have both", status: 400,
			body: `{"error":{"message":"Invalid value: 'cannot have both'","type":"invalid_request_error"}}`,
			req:  `{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"cannot have both"}]}`, model: "m", want: BadRequest},
	})
}
