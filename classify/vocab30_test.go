package classify

import "testing"

// TestVocabularyRoundThirty: five held-out hunts (multimodal inputs,
// reasoning and thinking, state and caching, inference providers of 2026,
// serving stacks in clusters), each message labelled from
// its meaning before the classifier ran (corpus README, "Vocabulary round
// thirty"). Each positive failed before its rule; the near-misses beside
// them must not move.
func TestVocabularyRoundThirty(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	image := `{"model":"llama-4-scout","messages":[{"role":"user","content":[{"type":"text","text":"desc this pic?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo"}}]}]}`
	// llama.cpp's server (ggml-org/llama.cpp#12947): a text-only model asked
	// about an image; the 500 dumps the client's messages after its reason.
	llama := func(reason, dump string) string {
		return `{"error":{"code":500,"message":"Failed to parse messages: ` + reason + `; messages = ` + dump + `","type":"server_error"}}`
	}
	dump := `[{\"role\":\"user\",\"content\":[{\"type\":\"image_url\"}]}]`
	runHostile(t, []hostileCase{
		{name: "llama.cpp content part type, a 500", status: 500, body: llama(`Unsupported content part type: \"image_url\"`, dump),
			req: image, model: "llama-4-scout", want: Unknown},
		{name: "the same reason at a 400", status: 400, body: llama(`Unsupported content part type: \"image_url\"`, dump),
			req: image, model: "llama-4-scout", want: Unknown},
		{name: "the dump is the client's: its words prove nothing", status: 500,
			body: llama(`Missing content`, `[{\"role\":\"user\",\"content\":\"Unsupported content part type\"}]`),
			req:  `{"model":"m","messages":[{"role":"user","content":"Unsupported content part type"}]}`, model: "m", want: ServerError},
		{name: "a parse failure of the model's output stays cut", status: 500,
			body: `{"error":{"code":500,"message":"Failed to parse input at pos 0: Unsupported content part type","type":"server_error"}}`,
			req:  chat, model: "m", want: Unknown}, // round 59: unknown by its own words, not the quoted ones

		// Gemini (google-gemini/generative-ai-python issues): a cap on the
		// images one request may carry.
		{name: "gemini fewer images", status: 400,
			body: `{"error":{"code":400,"message":"Please use fewer than 3600 images in your request to models/gemini-1.5-flash","status":"INVALID_ARGUMENT"}}`,
			req:  chat, model: "gemini-1.5-flash", want: Overflow},
		{name: "fewer images at a 429 is a throttle's", status: 429,
			body: `{"error":{"code":429,"message":"Please use fewer than 3600 images in your request to models/gemini-1.5-flash","status":"RESOURCE_EXHAUSTED"}}`,
			req:  chat, model: "gemini-1.5-flash", notAny: []Class{Overflow}},

		// Azure OpenAI (a 404 NotFound): the Responses API is not served in
		// the endpoint's region; its chat is.
		{name: "azure responses api not in this region", status: 404,
			body: `{"error":{"code":"NotFound","message":"Azure OpenAI Responses API is not enabled in this region. Please check https://aka.ms/aoai/responsesapi/availability"}}`,
			req:  `{"model":"gpt-5.4","input":"hi"}`, model: "gpt-5.4", want: Unknown},
		// Serving stacks in clusters (their source): llm-d's scheduler
		// (llm-d/llm-d-inference-scheduler) and SGLang's model gateway
		// shedding load from their own queues as 429s; llm-d's missing model
		// member; Workers AI's 5016 (developers.cloudflare.com, errors).
		{name: "llm-d saturated", status: 429, body: "inference error: ResourceExhausted - system saturated, sheddable request dropped", req: chat, model: "m", want: ServerError},
		{name: "llm-d queue at capacity", status: 429, body: "inference error: ResourceExhausted - request rejected pre-queue: queue at capacity", req: chat, model: "m", want: ServerError},
		{name: "sglang gateway queue full", status: 429,
			body: `{"error":{"type":"Too Many Requests","code":"scheduler_queue_full","message":"request queue is full for this priority class","param":null}}`,
			req:  chat, model: "m", want: ServerError},
		{name: "rate wording beside a queue stays a rate", status: 429, body: `{"error":{"message":"Rate limit exceeded: request queue is full"}}`, req: chat, model: "m", want: RateLimited},
		{name: "llm-d model member missing", status: 400, body: "inference error: BadRequest - model not found in request body", req: chat, model: "m", want: Unknown},
		{name: "a model not found in a list stays gone", status: 400, body: `{"error":{"message":"Model not found in the model list"}}`, req: chat, model: "m", want: Unavailable},
		{name: "workers ai model terms", status: 400, body: `{"errors":[{"message":"User has not agreed to Llama3.2 model terms","code":5016}],"success":false}`,
			req: chat, model: "@cf/meta/llama-3.2-11b-vision-instruct", want: Forbidden},
		// FriendliAI (OmniRoute's provider notes): credits spent, as a 403.
		{name: "friendli credits exhausted", status: 403, body: `{"detail":"You have exhausted all your credits"}`, req: chat, model: "m", want: Quota},
		{name: "retries exhausted are no credits", status: 403, body: `{"detail":"All retries exhausted for this request"}`, req: chat, model: "m", notAny: []Class{Quota}},
		{name: "a google api not enabled for the project stays the account's", status: 403,
			body: `{"error":{"code":403,"message":"Generative Language API has not been used in project 123 before or it is disabled.","status":"PERMISSION_DENIED"}}`,
			req:  chat, model: "gemini-2.5-pro", notAny: []Class{Unknown}},
	})
}
