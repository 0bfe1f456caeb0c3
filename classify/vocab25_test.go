package classify

import "testing"

// TestVocabularyClientCaused5xx: self-hosted servers and relays that answer
// a client's request with a 5xx (llama.cpp's request checks and template
// exceptions, SGLang, LocalAI's relayed gRPC codes, Xinference's PIL
// errors; their source named in classify/testdata/corpus/README.md,
// "Twenty-second round"). As server_error one client's request would count
// against the endpoint and cool it for everyone. Each positive failed before
// its rule; the server's own failures must stay server_error.
func TestVocabularyClientCaused5xx(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	ll := func(msg string) string {
		return `{"error":{"code":500,"message":"` + msg + `","type":"server_error"}}`
	}
	runHostile(t, []hostileCase{
		{name: "a template raising on the conversation", status: 500,
			body: ll(`\n------------\nWhile executing CallExpression at line 19, column 27 in source:\n...% 2 == 0) -%}↵        {{ raise_exception(\"Conversation roles must alternate user...\n`), req: chat, model: "m", want: BadRequest},
		{name: "roles must alternate in a 500", status: 500, body: `{"detail":"Conversation roles must alternate user/assistant/user/assistant/..."}`, req: chat, model: "m", want: BadRequest},
		{name: "a tool message without its call in a 500", status: 500,
			body: `{"object":"error","message":"Internal server error: Message has tool role, but there was no previous assistant message with a tool call!","type":"InternalServerError","param":null,"code":500}`, req: chat, model: "m", want: BadRequest},
		{name: "json_schema and grammar together", status: 500, body: ll("Cannot use both json_schema and grammar"), req: chat, model: "m", want: BadRequest},
		// (A relayed gRPC "code = InvalidArgument" is not taught: LocalAI
		// wraps its backend's load failures in it too, classify/review25_test.go.)
		{name: "invalid value for a field", status: 500, body: `{"error":{"code":500,"message":"invalid value for 'size'","type":""}}`, req: chat, model: "m", want: BadRequest},
		{name: "invalid response_format", status: 500, body: `{"error":{"code":500,"message":"invalid response_format","type":""}}`, req: chat, model: "m", want: BadRequest},
		{name: "an image that fails to load", status: 500, body: ll("Failed to load image or audio file"), req: chat, model: "m", want: Unknown},
		{name: "an image that fails to download", status: 500, body: ll("Failed to download image"), req: chat, model: "m", want: Unknown},
		{name: "pil cannot identify the image", status: 500, body: `{"detail":"cannot identify image file <_io.BytesIO object at 0x7f3b2c1d5e90>"}`, req: chat, model: "m", want: Unknown},
		{name: "a schema the grammar cannot take, in a 500", status: 500,
			body: ll(`JSON schema conversion failed:\nUnrecognized schema: {\"required\":[\"instructions\"]}`), req: chat, model: "m", want: Unknown},
		// The server's own failures stay its own.
		{name: "grpc unavailable", status: 500, body: `{"error":{"code":500,"message":"rpc error: code = Unavailable desc = connection refused","type":""}}`, req: chat, model: "m", want: ServerError},
		{name: "an embedding model that fails to load", status: 503,
			body: `{"error":{"message":"Error: Failed to load embedding model: sentence-transformers/all-mpnet-base-v2","type":"server_error","param":null,"code":503}}`, req: chat, model: "m", want: ServerError},
		{name: "a model that fails to load", status: 500, body: ll("Failed to load model"), req: chat, model: "m", want: ServerError},
		{name: "no slots", status: 500, body: `{"error":"no slots available after 10 retries"}`, req: chat, model: "m", want: ServerError},
	})
}

// TestVocabularyToolsAndSchemas: tools and structured output across vendors
// (Cerebras, vLLM, llama.cpp, xAI, Ollama): a schema feature one grammar
// engine lacks is a gap another may not have; a broken tool history is the
// client's.
func TestVocabularyToolsAndSchemas(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		{name: "schema conversion failed at a 400", status: 400,
			body: `{"error":{"code":400,"message":"JSON schema conversion failed:\nUnrecognized schema: {\"description\":\"Arguments for the tool (JSON object)\"}","type":"invalid_request_error"}}`, req: chat, model: "m", want: Unknown},
		{name: "schema features a grammar backend lacks", status: 400,
			body: `{"object":"error","message":"The provided JSON schema contains features not supported by xgrammar.","type":"BadRequestError","param":null,"code":400}`, req: chat, model: "m", want: Unknown},
		{name: "a pattern the grammar engine cannot take", status: 400,
			body: `{"error":{"code":400,"message":"JSON schema conversion failed:\nPattern must start with '^' and end with '$'","type":"invalid_request_error"}}`, req: chat, model: "m", want: Unknown},
		// Gemini's schema lacks JSON Schema keywords other vendors take.
		{name: "gemini response_schema keyword", status: 400,
			body: `{"error":{"code":400,"message":"Invalid JSON payload received. Unknown name \"additional_properties\" at 'generation_config.response_schema': Cannot find field.","status":"INVALID_ARGUMENT"}}`, req: chat, model: "m", want: Unknown},
		{name: "gemini tool schema keyword", status: 400,
			body: `{"error":{"code":400,"message":"Invalid JSON payload received. Unknown name \"const\" at 'tools[0].function_declarations[5].parameters.properties[0].value': Cannot find field.","status":"INVALID_ARGUMENT"}}`, req: chat, model: "m", want: Unknown},
		{name: "an unknown name in a part stays bad input", status: 400,
			body: `{"error":{"code":400,"message":"Invalid JSON payload received. Unknown name \"role\" at 'contents[0].parts[0]': Cannot find field.","status":"INVALID_ARGUMENT"}}`, req: chat, model: "m", want: BadRequest},
		{name: "a tool not passed in tools", status: 400,
			body: "{\"error\":{\"message\":\"Tool 'get_weather' has not been passed in `tools`.\",\"type\":\"BadRequestError\",\"param\":null,\"code\":400}}", req: chat, model: "m", want: BadRequest},
		{name: "tool call arguments not valid json", status: 400,
			body: `{"code":"Client specified an invalid argument","error":"The arguments to a tool_call with ID 'initial_list_datasets' are not a valid JSON string. Parsing error: Error(\"EOF while parsing a value\", line: 1, column: 0)"}`, req: chat, model: "m", want: BadRequest},
		// (Go's "json: cannot unmarshal …" is not taught: Ollama says it of a
		// malformed request and of content parts an older server cannot
		// read alike; the corpus marks both.)
	})
}
