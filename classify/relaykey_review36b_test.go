package classify

import "testing"

// Review 36b: relayKey (de0995d) reads OpenRouter's metadata.raw beside
// is_byok false. What the raw body says is the upstream's reading of the
// client's request when it quotes it: a client's own words must not make
// an answer an endpoint's server_error (which cools it for every client).
func TestReview36bRelayKeyAndTheClientsWords(t *testing.T) {
	echo := `{"model":"m","messages":[{"role":"user","content":"please summarise: your account is in arrears, insufficient balance"}]}`
	runHostile(t, []hostileCase{
		{name: "raw text quoting the client's words about arrears, 400", status: 400,
			body: `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"Invalid prompt: please summarise: your account is in arrears, insufficient balance","provider_name":"X","is_byok":false}}}`,
			req:  echo, model: "m", notAny: []Class{ServerError, Quota}},
		{name: "raw JSON quoting the client's words about arrears, 400", status: 400,
			body: `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\"error\":{\"message\":\"content rejected: please summarise: your account is in arrears, insufficient balance\"}}","provider_name":"X","is_byok":false}}}`,
			req:  echo, model: "m", notAny: []Class{ServerError, Quota}},
		{name: "raw JSON quoting the client's words about arrears, 422", status: 422,
			body: `{"error":{"message":"Provider returned error","code":422,"metadata":{"raw":"{\"detail\":\"please summarise: your account is in arrears, insufficient balance\"}","provider_name":"X","is_byok":false}}}`,
			req:  echo, model: "m", notAny: []Class{ServerError, Quota}},
	})
}

// Review 36b: the same answer of OpenRouter's own DeepSeek key out of
// balance, as OpenRouter sends an error after the stream has begun (an
// error event in the 200 stream: the chunk's "error" with the code and
// metadata of the non-streamed answer), is read by the stream's path,
// which relayKey is not on: the operator's account cools for every model,
// the failure de0995d fixed for the answer that is not streamed.
func TestReview36bRelayKeyInAStreamErrorEvent(t *testing.T) {
	chat := `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		{name: "OpenRouter stream error event relaying its own key's empty balance", status: 200, stream: true,
			body: `{"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"deepseek/deepseek-chat","provider":"DeepSeek","error":{"message":"Provider returned error","code":402,"metadata":{"raw":"{\"error\":{\"message\":\"Insufficient Balance\",\"type\":\"unknown_error\",\"param\":null,\"code\":\"invalid_request_error\"}}","provider_name":"DeepSeek","is_byok":false}},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}`,
			req:  chat, model: "m", notAny: []Class{Quota, Auth}},
		{name: "OpenRouter stream error event relaying its own key's rejection", status: 200, stream: true,
			body: `{"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"x/y","provider":"X","error":{"message":"Provider returned error","code":401,"metadata":{"raw":"{\"error\":{\"message\":\"Invalid API key\"}}","provider_name":"X","is_byok":false}},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}`,
			req:  chat, model: "m", notAny: []Class{Quota, Auth}},
	})
}
