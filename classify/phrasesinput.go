package classify

// inputPhrases say the client's input is at fault (bad_request, where the
// body names it) or that the model lacks what the request asks for (a
// capability gap, unknown); they rank after statePhrases (phrasesstate.go) and before
// featureGonePhrases (phrases.go, mainPhrases).
var inputPhrases = []phrase{
	// A schema one grammar engine cannot take (llama.cpp: "JSON schema
	// conversion failed"; vLLM: "contains features not supported by
	// xgrammar"; Cerebras: "Unsupported JSON schema fields"): another may. First: their detail ("Pattern must start with
	// '^'") is the engine's limit, not bad input.
	{a: "json schema conversion failed", class: Unknown},
	{a: "unsupported json schema", class: Unknown},
	// The grammar compiler's own limits (Anthropic's structured outputs:
	// "The compiled grammar is too large …", "Schemas contains too many
	// optional parameters (41), which would make grammar compilation
	// inefficient"): another vendor serves the same schemas.
	{a: "compiled grammar is too large", class: Unknown},
	{a: "grammar compilation", class: Unknown},
	{a: "schemas contains too many", class: Unknown},
	{a: "features not supported by", class: Unknown},
	// A JSON Schema keyword Gemini's schema does not have ("Invalid JSON
	// payload received. Unknown name \"additional_properties\" at
	// 'generation_config.response_schema'", "Unknown name \"const\" at
	// 'tools[0].function_declarations[5].parameters…'"): a schema another
	// vendor takes, a gap; not an unknown name elsewhere (a part's "role").
	{a: "unknown name", b: "response_schema", gap: 80, class: Unknown},
	{a: "unknown name", b: "function_declarations", gap: 80, class: Unknown},
	// The same subset said after the schema member's path ("* Generate
	// ContentRequest.tools[0].function_declarations[14].parameters.
	// properties[x].enum: only allowed for STRING type", "….format: only
	// 'enum' and 'date-time' are supported for STRING type"): JSON Schema
	// allows both and other vendors take the same tools, so the path the
	// message opens with proves no bad input here (ofPath). Other words
	// after such a path ("items: missing field", "enum[1]: cannot be
	// empty") are bad input everywhere and stay so.
	{a: "only allowed for string type", class: Unknown, ofPath: true},
	// Gemini's schema subset in Vertex's words (round 55, hunt 55c): "Unable
	// to submit request because `f` functionDeclaration `parameters.x`
	// schema didn't specify the schema type field", "… specified other
	// fields alongside any_of", "… parameters schema should be of type
	// OBJECT". JSON Schema needs neither a type nor a lone anyOf, and other
	// vendors take such tools: this vendor's gap, as a keyword it lacks.
	{a: "functiondeclaration", b: "didn't specify the schema type", gap: 80, clause: true, class: Unknown},
	{a: "functiondeclaration", b: "alongside any_of", gap: 80, clause: true, class: Unknown},
	// One member's value required alike across the tools, which OpenAI
	// sets per function (Cerebras: "Tools with mixed values for 'strict'
	// are not allowed", round 55): this server's restriction, over its param.
	{a: "mixed values for", class: Unknown, overParam: true},
	// Mistral's own tool call id form ("Tool call id was call_search but
	// must be a-z, A-Z, 0-9, with a length of 9", round 55): the ids come
	// from whichever target answered the earlier turns, and other vendors
	// take them; this server's gap. A missing id ("Tool call id has to be
	// defined") stays the client's.
	{a: "tool call id was", b: "but must be", gap: 64, clause: true, class: Unknown},
	{a: "are supported for string type", class: Unknown, ofPath: true},
	// A part of the server the request needs and it has not loaded ("Vision
	// add-on is not loaded, but images were provided", LM Studio inside a
	// 200): a capability of this endpoint, not an outage.
	{a: "add-on is not loaded", class: Unknown},
	// Something the request refers to that its own lists do not hold
	// ("Tool reference 'lookup_documents' not found in available tools",
	// "Tool choice 'x' not found in 'tools' parameter"): the request
	// contradicts itself.
	{a: "not found in available tools", class: BadRequest, badInput: true},
	{a: "not found in", b: "tool", gap: 12, class: BadRequest, badInput: true}, // also "not found in 'toolCalls' of previous message" (OCI)
	// bad_request: the body names the bad input. First the parameter and
	// conversation-order families, which outrank the capability gaps below
	// ("Unsupported parameter: 'x' is not supported with this model").
	{a: "unsupported parameter", class: BadRequest, badInput: true},
	{a: "unsupported value", class: BadRequest, badInput: true},
	{a: "unsupported argument", class: BadRequest, badInput: true},
	{a: "parameter not supported", class: BadRequest, badInput: true},
	{a: "argument not supported", class: BadRequest, badInput: true},
	{a: "not support parameter", class: BadRequest, badInput: true},
	{a: "not support", b: "parameter", gap: 24, class: BadRequest, badInput: true}, // "does not support the effort parameter"
	{a: "doesn't support", b: "parameter", gap: 24, class: BadRequest, badInput: true},
	{a: "temperature", class: BadRequest, badInput: true},
	{a: "frequency penalty", class: BadRequest, badInput: true},
	{a: "frequency_penalty", class: BadRequest, badInput: true},
	{a: "presence penalty", class: BadRequest, badInput: true},
	{a: "presence_penalty", class: BadRequest, badInput: true},
	{a: "top_p", class: BadRequest, badInput: true},
	{a: "max_tokens", class: BadRequest, badInput: true},
	{a: "maximum tokens", class: BadRequest, badInput: true},
	// A feature this API version does not offer ("Function calling mode
	// `ANY` is not enabled for api version v1beta"): a capability gap of the
	// endpoint, before the bad-input "api version" below.
	{a: "not enabled for", b: "version", gap: 12, class: Unknown},
	// The same in other words, said of an API or a model version (Azure:
	// "Functions are not supported for this API version or this model
	// version"): the endpoint's api-version and the deployment's model
	// version are the operator's, never the client's; another target
	// serves the feature (round 54c). "API version not supported" (no
	// "for") stays the bad-input row below.
	{a: "not supported for", b: "version", gap: 16, class: Unknown},
	// A feature or model switched on only from a later version than the
	// endpoint's ("response_format value as json_schema is enabled only for
	// api versions 2024-08-01-preview and later"): Azure's api-version is
	// the endpoint's configuration, never the client's; another target
	// serves it.
	// Said of the model, it is the deployment's for good: the endpoint's
	// base_url names a deployment its api-version never serves, so it
	// cools (review28).
	{a: "model", b: "is enabled only for api version", gap: 40, class: Unavailable, clause: true},
	{a: "model", b: "is enabled only for api-version", gap: 40, class: Unavailable, clause: true},
	{a: "enabled only for api version", class: Unknown},
	{a: "enabled only for api-version", class: Unknown},
	// The api-version query parameter refused as such (Azure's /openai/v1
	// path: "api-version query parameter is not allowed when using /v1
	// path"): Detour writes the URL from the endpoint's configuration, so
	// every request to it fails so until the operator mends it; another
	// target serves it. Other words of an api version stay below.
	{a: "api-version query parameter", class: Unavailable},
	{a: "api version", class: BadRequest, badInput: true},
	{a: "api-version", class: BadRequest, badInput: true},
	{a: "mime type", class: BadRequest, badInput: true},
	{a: "invalid provider", class: BadRequest, badInput: true},
	{a: "must alternate", class: BadRequest, badInput: true},
	{a: "交替出现", class: BadRequest, badInput: true},               // (roles) must appear alternately
	{a: "appear alternately", class: BadRequest, badInput: true}, // DashScope: "User and assistant need to appear alternately in the message"
	{a: "alternating", class: BadRequest, badInput: true},
	{a: "must start with", class: BadRequest, badInput: true},
	// A model that refuses a prefill (Claude from 4.6: "This model does not
	// support assistant message prefill. The conversation must end with a
	// user message."): the model's gap, as Mistral's "expected last role"
	// and DeepSeek's and llama.cpp's prefill refusals read, not the order
	// the client sent, which Claude before 4.6, OpenAI and Gemini take
	// (round 67: read bad_request by its second sentence, a route from
	// Sonnet 5.5 to Sonnet 4.5 stopped at the first).
	{a: "does not support", b: "prefill", gap: 32, class: Unknown},
	{a: "must end with", class: BadRequest, badInput: true},
	{a: "unexpected role", class: BadRequest, badInput: true},
	{a: "valid role", class: BadRequest, badInput: true}, // Gemini: "Please use a valid role: user, model."
	{a: "turn", b: "immediately after", gap: 12, class: BadRequest, badInput: true},
	// A tool's result not right after its call (MiniMax's 2013: "invalid
	// params, tool call result does not follow tool call"): the order the
	// client sent.
	{a: "does not follow tool call", class: BadRequest, badInput: true},
	// A tool message with no assistant tool call before it, in a chat
	// template's words (SiliconFlow's 20015 around MiniMax-M2's, and the
	// gpt-oss and Mistral templates': "Message has tool role, but there was
	// no previous assistant message with a tool call!"): OpenAI's own
	// history rule, which every vendor enforces; in a 5xx too (phrases5xx.go).
	{a: "no previous assistant message with a tool call", class: BadRequest, badInput: true},
	// A prompt-cache marker where the client may not put one (Bedrock's
	// "Cache point cannot be inserted after reasoning block. Please remove
	// the invalid cache point and try again."; Anthropic refuses
	// cache_control on a thinking block too): the client's marker, which
	// Detour only carries. Not the TTL order of cache_control blocks, which
	// a relay in front may have broken by adding its own (unknown, below).
	{a: "cache point cannot be", class: BadRequest, badInput: true},
	{a: "invalid cache point", class: BadRequest, badInput: true},
	// A tool result whose call is not in the history (MiniMax's 2013:
	// "invalid params, tool result's tool id(call_function_…) not found"):
	// the turns the client sent, whatever weak code stands beside it.
	{a: "tool result's tool id", b: "not found", gap: 64, clause: true, class: BadRequest, badInput: true},
	// Two messages of one role in a row ("does not support successive user
	// or assistant messages", "consecutive user messages"): the order the
	// client sent, before the capability gaps' "does not support".
	{a: "successive", b: "messages", gap: 32, class: BadRequest, badInput: true},
	{a: "consecutive", b: "messages", gap: 32, class: BadRequest, badInput: true},
	// Too many of one role where the list ends ("Cannot have 2 or more
	// assistant messages at the end of the list"): the order again.
	{a: "messages at the end", class: BadRequest, badInput: true},
	{a: "cannot have", b: "messages", gap: 32, class: BadRequest, badInput: true},
	// A value a named part may not take ("Tool names are not allowed to be
	// [search]"), before the access wording's "not allowed".
	{a: "not allowed to be", class: BadRequest, badInput: true},
	// An instruction to change a named part of the request and send it
	// again ("… which is not supported. Update the mimeType and try
	// again"): what the client must fix, not what the target lacks.
	// More candidates (OpenAI's n) than this model serves (Vertex:
	// "candidateCount must be 1 but the entered value was 3. Update the
	// candidateCount value and try again"; Gemini: "Multiple candidates is
	// not enabled for this model"): a capability other targets have, before
	// the bad-input "update the … and try again". A range the client
	// exceeded ("candidateCount must be between 1 and 8") stays its input.
	{a: "candidatecount must be 1 but", class: Unknown},
	{a: "candidate_count must be 1 but", class: Unknown},
	{a: "multiple candidates", b: "not enabled", gap: 12, class: Unknown},
	{a: "update the", b: "and try again", gap: 40, class: BadRequest, badInput: true, noAcct: true},
	{a: "change the", b: "and try again", gap: 40, class: BadRequest, badInput: true, noAcct: true},
	{a: "modify the", b: "and try again", gap: 40, class: BadRequest, badInput: true, noAcct: true},
	{a: "correct the", b: "and try again", gap: 40, class: BadRequest, badInput: true, noAcct: true},
	// A request field, named as such (snake_case), that the request's other
	// choices exclude ("response_format is not supported with RAG"); a
	// feature in prose ("Image input is not supported with this model")
	// stays a capability gap below.
	// A hosted tool this model or endpoint lacks, the model named ("Tool
	// 'image_generation' is not supported with gpt-5.3-codex-spark", "Hosted
	// tool 'web_search_preview' is not supported with gpt-4.1", GitHub
	// Copilot's "The requested tool image_generation is not supported."):
	// other models take it, though the answer names the tools param or an
	// unsupported_value code (overParam, decide.go).
	{a: "tool '", b: "is not supported with", gap: 64, clause: true, class: Unknown, overParam: true},
	{a: "requested tool ", b: "is not supported", gap: 64, clause: true, class: Unknown, overParam: true},
	// An empty part said "not supported" is a broken conversation, not a
	// capability (DashScope: "Empty tool_calls is not supported in
	// message.", round 55; OpenAI refuses the shape with code empty_array).
	// "… not supported for empty prompts" (the noun after) is not matched.
	{a: "empty ", b: "is not supported", gap: 40, clause: true, class: BadRequest, badInput: true},
	{a: "is not supported with this model", class: Unknown}, // "'response_format' of type 'json_schema' is not supported with this model": a capability of other models
	{a: "is not supported with", class: BadRequest, badInput: true, param: true},
	// Settings or parts of the request that exclude each other, before the
	// capability wording below (Gemini: "thinking_budget and thinking_level
	// are not supported together", "… at least one function_call part
	// which can not be mixed with function_response parts").
	{a: "are not supported together", class: BadRequest, badInput: true},
	{a: "can not be mixed with", class: BadRequest, badInput: true},
	{a: "cannot be mixed with", class: BadRequest, badInput: true},

	// unknown: a capability this model or server lacks (tools, images,
	// grammars). The request is well formed and another target may serve
	// it: not proof of bad input, and nothing to cool.
	// What a model (family) alone takes ("Deep research models only support
	// the 'web_search_preview', 'code_interpreter', 'mcp', and 'file_search'
	// tools"): other models take the rest, a gap even beside a param.
	{a: "models only support", class: Unknown},
	{a: "model only supports", class: Unknown},
	{a: "is not supported", class: Unknown},
	{a: "are not supported", class: Unknown},
	{a: "does not support", class: Unknown},
	{a: "doesn't support", class: Unknown},
	{a: "schema not supported", class: Unknown},  // a valid schema this server cannot compile ("JSON Schema not supported: …")
	{a: "missing data required", class: Unknown}, // "… required for image input"
	// "Only 'text' content type is supported": what the server takes, so
	// what it lacks; about models ("only these models are supported") it
	// is no gap.
	{a: "only", b: "supported", gap: 40, class: Unknown, noModel: true},

	{a: "not valid json", class: BadRequest, badInput: true},
	{a: "invalid json", class: BadRequest, badInput: true},
	{a: "could not parse", class: BadRequest, badInput: true},
	{a: "failed to parse generated", class: Unknown}, // TGI's tool grammar: "Tool error: Failed to parse generated text: …" (the model's output, not the client's)
	{a: "failed to parse", class: BadRequest, badInput: true},
	// Google's front end's own page ("Your client has issued a malformed or
	// illegal request. That's all we know."): the HTTP request, never the
	// client's JSON, which that front end does not read.
	{a: "client has issued a malformed", class: Unknown, vague: true},
	{a: "malformed", class: BadRequest, badInput: true},
	// Data the request carried that does not decode (Ollama: "invalid
	// base64 image data: illegal base64 data at input byte 4"). Not Go's
	// "json: cannot unmarshal … into Go struct field": an older server says
	// it of content parts OpenAI takes (the corpus's Ollama answers).
	{a: "illegal base64 data", class: BadRequest, badInput: true},
	{a: "invalid base64", class: BadRequest, badInput: true},
	{a: "failed to read base64", class: BadRequest, badInput: true}, // tabbyAPI: "Failed to read base64 image input."
	{a: "failed to decode base64", class: BadRequest, badInput: true},
	// A choice among tools the request does not declare (xAI: "A tool_choice
	// was set on the request but no tools were specified."): at odds with
	// itself.
	{a: "no tools were specified", class: BadRequest, badInput: true},
	{a: "no tools were provided", class: BadRequest, badInput: true},
	{a: "unrecognized request argument", class: BadRequest, badInput: true},
	// A strict server that refuses a member it does not take, naming it
	// (Crusoe: "Request blocked: parameter 'reasoning' is not allowed", a
	// 403): the request's member, never the account's access, so it
	// decides over the 403 as well; the looser "parameter 'x' is not
	// allowed" only where the status leaves it open.
	{a: "request blocked: parameter", class: BadRequest},
	{a: "parameter", b: "is not allowed", gap: 40, class: BadRequest, badInput: true},
	// A thought signature the request carries back that the model cannot
	// read (Gemini's INVALID_ARGUMENT "Corrupted thought signature."): the
	// client's history, like a missing one ("is missing a").
	{a: "corrupted thought signature", class: BadRequest, badInput: true},
	// The same family in other words: a reasoning item's signature or
	// encrypted content, which the client replays from an earlier answer,
	// that this endpoint cannot verify (Bedrock Converse: "The signature in
	// the reasoningContent block at messages.1.content.0 is invalid"; Bedrock
	// Mantle's Responses API: "encrypted content missing recognized prefix
	// (expected `rsn_` or `smry_`)"; Gemini: "Unable to submit request because
	// thought_signature is invalid."), as OpenAI's invalid_encrypted_content
	// is. The reasoning noun and the invalidity in one clause: "is invalid"
	// alone names a model or a key as often (round 52, hunt 52f).
	{a: "thought_signature", b: "invalid", gap: 40, class: BadRequest, badInput: true, clause: true},
	{a: "thought signature", b: "invalid", gap: 40, class: BadRequest, badInput: true, clause: true},
	{a: "thoughtsignature", b: "invalid", gap: 40, class: BadRequest, badInput: true, clause: true}, // Gemini's wire name, thoughtSignature
	// The same words in the other order, "invalid" first (Gemini 3 through
	// Antigravity: "Invalid thought signature.", a stale signature in the
	// client's replayed history; round 66, hunt 66h), however the noun is
	// written.
	{a: "invalid thought signature", class: BadRequest, badInput: true},
	{a: "invalid thought_signature", class: BadRequest, badInput: true},
	{a: "invalid thoughtsignature", class: BadRequest, badInput: true},
	{a: "encrypted_content", b: "invalid", gap: 40, class: BadRequest, badInput: true, clause: true},
	{a: "encrypted content", b: "invalid", gap: 40, class: BadRequest, badInput: true, clause: true},
	{a: "encrypted content", b: "recognized prefix", gap: 20, class: BadRequest, badInput: true, clause: true},
	{a: "encrypted content could not be", class: BadRequest, badInput: true}, // OpenAI's reason without its code: "Encrypted content could not be decrypted or parsed."
	// Azure's, code null, the item between: "The encrypted content
	// gAAA...wXBV could not be verified." (round 56, hunt 56b).
	{a: "encrypted content", b: "could not be", gap: 40, class: BadRequest, badInput: true, clause: true},
	{a: "signature in the reasoningcontent block", b: "invalid", gap: 60, class: BadRequest, badInput: true, clause: true},
	{a: "signature in the thinking block", b: "invalid", gap: 60, class: BadRequest, badInput: true, clause: true},
	{a: "unknown parameter", class: BadRequest, badInput: true},
	{a: "unknown field", class: BadRequest, badInput: true},        // Cohere: "unknown field: parameter 'x' is not a valid field"
	{a: "is not a valid field", class: BadRequest, badInput: true}, // (the corpus's line: a member the API does not have is the client's)
	{a: "unknown name", class: BadRequest, badInput: true},
	{a: "extra inputs are not permitted", class: BadRequest, badInput: true},
	{a: "additional properties", class: BadRequest, badInput: true},
	// A content part type of the Chat Completions API an OpenAI-compatible
	// server does not take, in OpenAI's validator words (portal.qwen.ai:
	// "Invalid value: file. Supported values are: 'text','image_url',
	// 'video_url' and 'video'."): a gap another target fills, as the
	// deserializer's "unknown variant `file`" is. OpenAI's own refusal of a
	// part where its API never takes it carries the code invalid_value
	// beside its path, which still decides (a bad-input code outranks a
	// gap).
	{a: "invalid value: file.", class: Unknown},
	{a: "invalid value: 'file'.", class: Unknown},
	{a: "invalid value: input_audio.", class: Unknown},
	{a: "invalid value: 'input_audio'.", class: Unknown},
	{a: "invalid value: image_url.", class: Unknown},
	{a: "invalid value: 'image_url'.", class: Unknown},
	{a: "invalid value", class: BadRequest, badInput: true},
	{a: "invalid type", class: BadRequest, badInput: true},
	{a: "invalid schema", class: BadRequest, badInput: true},
	// Azure AI Foundry's validator on a whole payload ("The provided data
	// does not match the expected schema", param "/", no details): its
	// schema is stricter than OpenAI's (review 27e), and a mismatch that
	// names no member proves nothing of the client's.
	{a: "does not match the expected schema", class: Unknown, vague: true},
	{a: "schema", class: BadRequest, badInput: true},
	// A content part or block this server does not take, in a
	// deserializer's words: a Chat Completions part (DeepSeek:
	// "messages[25]: unknown variant `image_url`, expected `text`", a model
	// without image or audio input that a vision model fills, as "does not
	// support image input" is) or a Messages block an Anthropic-compatible
	// server lacks (DeepSeek's /anthropic: "messages[66].content: unknown
	// variant `image`, expected one of `text`, `tool_use`, …"); and a
	// tool's or part's type one vendor's API does not have (xAI:
	// "tools[55].type: unknown variant `x_search`, expected `function` or
	// `live_search`": types beside `function` and `text` are each vendor's
	// own). A gap another target fills. All before the bad-input words the
	// list of variants it expected may hold ("tool_use", "expected one
	// of"). Not a role's variant (`developer`), which names the request's
	// value as wrong.
	{a: "type: unknown variant", class: Unknown},
	{a: "unknown variant `image_url`", class: Unknown},
	{a: "unknown variant `input_audio`", class: Unknown},
	{a: "unknown variant `input_image`", class: Unknown},
	{a: "unknown variant `video_url`", class: Unknown},
	{a: "unknown variant `file`", class: Unknown},
	{a: "unknown variant `image`", class: Unknown},
	{a: "unknown variant `document`", class: Unknown},
	{a: "unknown variant `search_result`", class: Unknown},
	{a: "unknown variant `thinking`", class: Unknown},
	{a: "unknown variant `redacted_thinking`", class: Unknown},
	{a: "unknown variant `tool_use`", class: Unknown},
	{a: "unknown variant `tool_result`", class: Unknown},
	{a: "unknown variant `server_tool_use`", class: Unknown},
	{a: "tool_calls", class: BadRequest, badInput: true},
	{a: "tool_call_id", class: BadRequest, badInput: true},
	{a: "tool_use", class: BadRequest, badInput: true},
	{a: "tool_result", class: BadRequest, badInput: true},
	// A tool's result as other vendors name it (Bedrock Converse's
	// toolResult blocks), and the pairing of calls and results in the
	// conversation the client sent (Mistral: "Not the same number of
	// function calls and responses"; Gemini: "the number of function
	// response parts is equal to the number of function call parts").
	// Results and responses are only ever the client's; a tool call may be
	// the model's own ("Model produced invalid sequence as part of
	// ToolUse"), so "tooluse" alone proves nothing.
	{a: "toolresult", class: BadRequest, badInput: true},
	{a: "function calls", b: "responses", gap: 8, class: BadRequest, badInput: true},
	{a: "function response", class: BadRequest, badInput: true},
	{a: "no tool output found", class: BadRequest, badInput: true}, // Responses: "No tool output found for function call …"
	// Settings that exclude each other ("You can only set only one of
	// thinking budget and thinking level").
	{a: "only one of", class: BadRequest, badInput: true},
	{a: "cannot specify both", class: BadRequest, badInput: true}, // Cohere: "cannot specify both message and tool_results in multistep mode"
	{a: "cannot have both", class: BadRequest, badInput: true},    // Anthropic, relayed: "Tool 'x' cannot have both defer_loading=true and cache_control set"
	{a: "can't specify both", class: BadRequest, badInput: true},
	// What the client's names may hold (Cohere: "tool names can only contain
	// certain characters (A-Za-z0-9_) and can't begin with a digit").
	{a: "model name can only contain", class: Unknown, vague: true, bareModel: true}, // the id Detour writes (a provider's own naming rule)
	{a: "names can only contain", class: BadRequest, badInput: true},
	{a: "name can only contain", class: BadRequest, badInput: true},
	// The model missing or empty (Ollama: "model is required"; new-api:
	// "Model name not specified, model name cannot be empty"): Detour writes
	// the model itself, so the words prove nothing of the client's input (an
	// endpoint's model the server cannot read, or a body it could not parse);
	// a code still decides. Before "is required" and "cannot be empty"; not
	// a sub-object's model ("session.model is required", review28b).
	{a: "model is required", class: Unknown, vague: true, bareModel: true},
	{a: "model name is required", class: Unknown, vague: true, bareModel: true},
	{a: "model field is required", class: Unknown, vague: true, bareModel: true},
	{a: "model parameter is required", class: Unknown, vague: true, bareModel: true}, // Cohere: "a model parameter is required for this endpoint."
	{a: "model is missing", class: Unknown, vague: true, bareModel: true},
	{a: "model name not specified", class: Unknown, vague: true, bareModel: true},
	{a: "model name cannot be empty", class: Unknown, vague: true, bareModel: true},
	{a: "model cannot be empty", class: Unknown, vague: true, bareModel: true},
	{a: "is required", class: BadRequest, badInput: true},
	{a: "are required", class: BadRequest, badInput: true},                              // the plural twin: the ChatGPT Codex backend's "Instructions are required" (round 57, hunt 57a)
	{a: "has to be defined", class: BadRequest, badInput: true},                         // Mistral: "Tool call id has to be defined."
	{a: "is a required field", class: BadRequest, badInput: true},                       // DashScope: "The content field is a required field."
	{a: "parameter not received", class: BadRequest, badInput: true},                    // Z.ai's 1213: "messages parameter not received properly"
	{a: "has not been passed in", class: BadRequest, badInput: true},                    // vLLM: "Tool 'get_weather' has not been passed in `tools`."
	{a: "not a valid json string", class: BadRequest, badInput: true},                   // xAI: "The arguments to a tool_call … are not a valid JSON string"
	{a: "required parameter", b: "missing", gap: 24, class: BadRequest, badInput: true}, // DashScope: "Required parameter \"model\" missing from request."
	{a: "alternate between user and", class: BadRequest, badInput: true},                // Gemini: "multiturn requests alternate between user and model"
	{a: "should alternate with", class: BadRequest, badInput: true},                     // Perplexity: "user or tool message(s) should alternate with assistant message(s)"
	{a: "does not represent a valid", class: BadRequest, badInput: true},                // OpenAI: "The image data you provided does not represent a valid image."
	{a: "field required", class: BadRequest, badInput: true},
	{a: "is a required property", class: BadRequest, badInput: true}, // JSON Schema validators (KServe): "'input' is a required property"
	// A reasoning item issued to another account ("reasoning
	// `encrypted_content` was not issued to this caller"): a walk across
	// accounts causes it too, and the issuing endpoint may still serve it.
	{a: "not issued to this caller", class: Unknown},
	{a: "at message index", class: BadRequest, badInput: true},     // DeepSeek: "Missing thinking block in the assistant message at message index 11"
	{a: "cache_control block must not come after", class: Unknown}, // Anthropic's TTL order ("a ttl='1h' cache_control block must not come after a ttl='5m' …"): a relay in front may have added the other breakpoint
	{a: "first message should be from", class: Unknown},            // what this model's template takes (OpenAI takes an assistant first)
	// The same template limit in DeepSeek's words, first or last ("The first
	// message (except the system message) of deepseek-reasoner must be a user
	// message, but an assistant message detected.", "The last message of
	// deepseek-reasoner must be a user message, or an assistant message with
	// prefix mode on"): OpenAI takes an assistant turn at either end. Before
	// the bad-input "must be".
	{a: "must be a user message", class: Unknown},
	{a: "last message must be from", class: Unknown},  // LightRAG's Ollama-compatible API: "Last message must be from user role" (the query it answers)
	{a: "first message must be from", class: Unknown}, // the template's first turn, as "should be from" above
	{a: "empty string at index", class: BadRequest, badInput: true},
	{a: "contains an empty part", class: BadRequest, badInput: true},             // Gemini: "EmbedContentRequest.content contains an empty Part."      // Cohere: "inputs contains an element that is the empty string at index 0"
	{a: "invalid image file", class: BadRequest, badInput: true},                 // CLOVA Studio: "Invalid image file"
	{a: "returned invalid tool call arguments", class: Unknown},                  // the model's own call (Ollama), before the client's
	{a: "error parsing tool call", class: Unknown},                               // Ollama's parser on the model's own call ("error parsing tool call: raw='…', err=…"; round 53)
	{a: "invalid tool call arguments", class: Unknown},                           // Ollama's /v1 re-parses the history's arguments as an object, stricter than OpenAI (review27f)
	{a: "logprobs to be set to true", class: BadRequest, badInput: true},         // llama.cpp: "top_logprobs requires logprobs to be set to true"
	{a: "invalid image url", class: BadRequest, badInput: true},                  // CLOVA Studio: "Invalid image url"
	{a: "image does not match the specified", class: BadRequest, badInput: true}, // Bedrock Converse: "The provided image does not match the specified image format." (the client's label for its bytes)
	{a: "cached content model does not match", class: Unknown},                   // Gemini: "Cached content model does not match the model in the request." (a route's targets may serve other models: the walk's doing too)
	{a: "invalid cachedcontent name", class: BadRequest, badInput: true},         // Gemini: "Invalid CachedContent name: 1234567890."
	{a: "document does not have a", class: BadRequest, badInput: true},           // Cohere: "document does not have a 'snippet' or a 'text' field …"
	{a: "duplicate tool", class: BadRequest, badInput: true},                     // Cohere: "cannot have duplicate tool ids"
	{a: "not found in properties", class: BadRequest, badInput: true},            // Cohere: "required field name not found in properties" (the client's JSON Schema)
	// Two of the client's functions under one name (Kimi Code: "function name
	// unnamed_function is duplicated", a 400).
	{a: "duplicate function", class: BadRequest, badInput: true},
	{a: "function name", b: "is duplicated", gap: 80, class: BadRequest, badInput: true, clause: true},
	// Members of the request at odds with each other (OpenAI: "The
	// 'metadata' parameter is only allowed when 'store' is enabled"; vLLM:
	// "Stream options can only be defined when `stream=True`", "The tool
	// specified in `tool_choice` does not match any of the specified
	// `tools`", "You can only use one kind of guided decoding"); an image
	// the client must fix ("Please make sure your image is valid").
	{a: "is only allowed when", class: BadRequest, badInput: true},
	{a: "can only be defined when", class: BadRequest, badInput: true},
	{a: "does not match any of the specified", class: BadRequest, badInput: true},
	{a: "only use one kind of", class: BadRequest, badInput: true},
	{a: "make sure your image is valid", class: BadRequest, badInput: true},
	{a: "mutually exclusive", class: BadRequest, badInput: true},        // mistral.rs: "Request `grammar` and `response_format` were both provided but are mutually exclusive."
	{a: "system prompt at position", class: BadRequest, badInput: true}, // MLC: "System prompt at position 2 in the message list is invalid."
	// A header the adapter writes ("Missing required header:
	// anthropic-version", LMDeploy's /v1/messages), not the client's input;
	// and the model member by another name ("Missing 'model' field",
	// GPUStack), which Detour writes itself (as "model is required").
	{a: "missing required header", class: Unknown, vague: true},
	// The header named before the word ("missing required
	// Copilot-Vision-Request header for vision requests", GitHub Copilot,
	// hunt 67b): the same, but not a credential's (noAcct: "missing
	// required x-api-key header" keeps its reading).
	{a: "missing required", b: " header", gap: 48, noAcct: true, class: Unknown, vague: true},
	{a: "missing 'model' field", class: Unknown, vague: true},
	// A stored model's or fine-tune's own files (Workers AI 3039: "Finetune
	// is missing required files (model.safetensors and config.json)"): no
	// request field is missing, and the answer does not say whose the
	// fine-tune is; unknown, as "missing data required" (hunt 56d).
	{a: "missing required files", class: Unknown},
	{a: "missing required", class: BadRequest, badInput: true},
	{a: "missing", b: "required parameter", gap: 32, class: BadRequest, badInput: true}, // "missing one or multiple required parameters"
	{a: "is not specified", class: BadRequest, badInput: true},
	// A tool schema without what it must hold (Moonshot: "invalid request:
	// missing 'type' or 'anyOf' key in parameter type").
	{a: "missing", b: "key in parameter", gap: 40, class: BadRequest, badInput: true},
	// A mode this endpoint serves only streamed (DashScope: "parameter.
	// enable_thinking must be set to false for non-streaming calls", its
	// 非流式调用 twin): the client need not have sent the member at all;
	// before the bad-input "must be".
	{a: "for non-streaming calls", class: Unknown},
	// One request member's value requires another's (TabbyAPI's 422
	// "continue_final_message requires add_generation_prompt to be false",
	// hunt 54d): the request contradicts itself. Both names member-shaped;
	// a server's --flag ("requires --enable-auto-tool-choice … to be set")
	// is its capability (phrases5xx.go) and does not match.
	{a: "requires", b: "to be", gap: 48, clause: true, memberGap: true, class: BadRequest, badInput: true},
	{a: "must be", class: BadRequest, badInput: true},
	{a: "must not be", class: BadRequest, badInput: true},
	// An empty input list, in text-embeddings-inference's and TGI's words:
	// TEI before its PR #727 said it with a 413, which is no size the next
	// endpoint could take.
	{a: "inputs` cannot be empty", class: BadRequest},
	{a: "cannot be empty", class: BadRequest, badInput: true},
	{a: "must have", class: BadRequest, badInput: true},
	{a: "roles must alternate", class: BadRequest, badInput: true},
	{a: "input validation error", class: BadRequest, badInput: true}, // TGI's checks of the request, in a 422 or a stream's error
	// The bare words, ending the sentence (Bedrock's {"message":"Validation
	// Error"}, for a body a client library built wrong and for a model's own
	// failures alike), name nothing; "1 validation error detected: …" goes on
	// to name it, "Input validation error" names the input (above), and a
	// list of details beside the words (Zod's {"error":"Validation error",
	// "details":[…]}) names it too (review28b).
	{a: "validation error", class: Unknown, vague: true, last: true, noDetails: true},
	{a: "validation error", class: BadRequest, badInput: true},
	{a: "failed to satisfy constraint", class: BadRequest, badInput: true},
	{a: "format of the value at", class: BadRequest, badInput: true}, // Bedrock: "The format of the value at toolConfig.tools.0.toolSpec.inputSchema.json is invalid."
	{a: "expected last role", class: Unknown},                        // Mistral: "Expected last role User or Tool (or Assistant with prefix True) … but got assistant": an assistant prefill others take
	{a: "expected one of", class: BadRequest, badInput: true},
	// llama.cpp's words for a content part it does not take (the deserializer's
	// "unknown variant" above; "Failed to parse messages: Unsupported
	// content part type: \"image_url\"", a 500): a text-only model.
	{a: "unsupported content part type", class: Unknown},
	// The same without "part", ending its sentence (text-generation-webui's
	// 400 "messages: unsupported content type" with param messages, for an
	// input_audio or file part; hunt 54d). With a MIME type after it
	// ("Unsupported content type: text/plain", noMIME) it is the request's
	// HTTP Content-Type and does not match.
	{a: "unsupported content type", class: Unknown, noMIME: true},
	// A feature DeepSeek has switched off, inside its deserializer's wording
	// ("response_format.type `json_schema` is unavailable now", "This
	// response_format type is unavailable now"): a gap another target
	// fills, before "failed to deserialize". Only said of response_format:
	// "… is unavailable now, please try again" is an outage's idiom
	// (review28d).
	{a: "response_format", b: "unavailable", gap: 40, class: Unknown},
	{a: "failed to deserialize", class: BadRequest, badInput: true},
	{a: "valid range", class: BadRequest, badInput: true},
	// A value's allowed range, as "should" ("field MaxTokens invalid,
	// should be in [1, 384000]", "should be between 0 and 2"): the "must
	// be in" of vendors that write "should". Not "should be included", and
	// not pydantic's comparisons ("Input should be greater than 0"), which,
	// like its "should be a valid …", prove bad input only with a location
	// in the request body (fieldpath.go).
	{a: "should be in", word: true, class: BadRequest, badInput: true},
	{a: "should be between", class: BadRequest, badInput: true},
	{a: "should be within", class: BadRequest, badInput: true},
	{a: "out of range", class: BadRequest, badInput: true},
	{a: "invalid message", class: BadRequest, badInput: true},
	// The request as a whole said to be invalid, naming nothing ("The
	// provided request is not valid", a deployment's generic sentence that
	// LiteLLM relayed; round 55): no proof, as Google's "Request contains an
	// invalid argument." "The request body is not valid JSON" names what
	// is wrong and is read below.
	{a: "provided request is not valid", class: Unknown, vague: true},
	{a: "provided request is invalid", class: Unknown, vague: true},
	{a: "the request is not valid", class: Unknown, vague: true},
	{a: "the request is invalid", class: Unknown, vague: true},
	{a: "is not valid", class: BadRequest, badInput: true},
	{a: "not of type", class: BadRequest, badInput: true},
	{a: "is too short", class: BadRequest, badInput: true}, // JSON Schema: "[] is too short - 'messages'"
	{a: "empty", b: "parameter", gap: 12, class: BadRequest, badInput: true},
	{a: "invalid '", class: BadRequest, badInput: true},
	{a: "invalid `", class: BadRequest, badInput: true}, // "Invalid `signature` in `thinking` block"
	// A field the request lacks, named ("Missing json field
	// response_format.type"; DeepSeek: "Missing `reasoning_content` field in
	// the assistant message at message index 112"): room for a quoted field
	// name between the two words.
	{a: "missing", b: "field", gap: 40, class: BadRequest, badInput: true},
	{a: "is blank", class: BadRequest, badInput: true},
	{a: "invalid max_tokens", class: BadRequest, badInput: true},
	{a: "expects", class: BadRequest, badInput: true},
	{a: "must contain", class: BadRequest, badInput: true},
	{a: "must include at least one", class: BadRequest, badInput: true}, // Vertex: "it must include at least one parts field"
	{a: "at most", class: BadRequest, badInput: true},
	{a: "maximum of", class: BadRequest, badInput: true}, // "A maximum of 4 blocks with cache_control may be provided"
	{a: "please provide", class: BadRequest, badInput: true},
	{a: "invalid", b: "type", gap: 10, class: BadRequest, badInput: true}, // "invalid input type", "invalid content type"
	{a: "element predicate failed", class: BadRequest, badInput: true},
	{a: "unexpected value", class: BadRequest, badInput: true}, // "Unexpected value(s) `x` for the `anthropic-beta` header"
	{a: "is a reserved", class: BadRequest, badInput: true},    // "x is a reserved keyword", "… a reserved tool name"
	{a: "may not be", class: BadRequest, badInput: true},       // "… may not be used in the system prompt", "Thinking may not be enabled when …"
	// A named request member declared invalid ("The messages parameter is
	// illegal"; Zhipu: "messages 参数非法", parameter illegal).
	// "The parameter is invalid. Please check again." (SiliconFlow's 20015)
	// names no parameter: no proof, unlike "The messages parameter is invalid".
	{a: "the parameter is invalid", class: Unknown, vague: true},
	{a: "parameter is illegal", class: BadRequest, badInput: true},
	{a: "parameter is invalid", class: BadRequest, badInput: true},
	// The stock Chinese text for a 400, 请求参数错误 ("request parameter
	// error"; new-api relaying an upstream's, hunt 53h), and a bare 参数错误
	// opening its clause name nothing: no proof, as "the parameter is
	// invalid". "messages 参数错误", a member named, stays bad input below.
	{a: "请求参数错误", class: Unknown, vague: true},
	{a: "参数错误", class: Unknown, vague: true, opens: true},
	{a: "参数非法", class: BadRequest, badInput: true},
	{a: "参数不合法", class: BadRequest, badInput: true},
	{a: "参数错误", class: BadRequest, badInput: true},
	// A URL the client gave that the upstream could not fetch. What proves
	// the resource broken for any fetcher is the input, in a 4xx (a 5xx's
	// fetch failure stays the server's): the site's robots denial
	// (Vertex's "Status: URL_ROBOTED-ROBOTED_DENIED"; its "respects
	// robots.txt rules" is boilerplate, no denial), the host's 404 or 410,
	// a URL that is not valid. A bare "Cannot fetch content from the
	// provided URL." is this provider's fetcher (its egress, agent, timeout
	// or size cap): the same presigned URL was downloadable then and the
	// same request served on retry (googleapis/js-genai#1385), so unknown,
	// as a timeout fetching it and DashScope's "Failed to download
	// multimodal content" are. Round 13 read it bad_request; round 56
	// (hunt 56a) reversed that.
	{a: "roboted_denied", class: BadRequest, badInput: true},
	{a: "fetch", b: "404 not found", gap: 60, class: BadRequest, badInput: true, clause: true},
	{a: "fetch", b: "410 gone", gap: 60, class: BadRequest, badInput: true, clause: true},
	{a: "fetch", b: "invalid url", gap: 60, class: BadRequest, badInput: true, clause: true},
	{a: "cannot fetch", b: "url", gap: 40, class: Unknown},
	{a: "could not fetch", b: "url", gap: 40, class: Unknown},
	{a: "unable to fetch", b: "url", gap: 40, class: Unknown},

	// AWS's own words for a failure on its side, which Bedrock sends with
	// ModelStreamErrorException at a 424 ("The system encountered an
	// unexpected error during processing. Try your request again.", "An
	// error occurred while streaming the response. Retry your request."):
	// the provider's, but only where nothing names the request's fault
	// (a preamble before the reason: below every input phrase), and not
	// in a 429, whose status decides (review 29c).
	{a: "encountered an unexpected error during processing", class: ServerError, notRate: true},
	{a: "error occurred while streaming the response", class: ServerError, notRate: true},

	// The request is at fault but nothing is named ("Invalid arguments
	// passed to the model", "Request contains an invalid argument."): not a
	// provider failure, not proven bad input. Last, so any named field wins.
	// Image bytes that do not decode in the format they claim (xAI:
	// "Client specified an invalid argument", message "Invalid PNG image."):
	// they fail at every target, the format-named twin of "invalid base64
	// image"; ahead of the vague "invalid argument" (round 56, hunt 56a).
	// "Invalid image (base64) data" names no format and stays unknown.
	{a: "invalid png image", class: BadRequest, badInput: true},
	{a: "invalid jpeg image", class: BadRequest, badInput: true},
	{a: "invalid jpg image", class: BadRequest, badInput: true},
	{a: "invalid gif image", class: BadRequest, badInput: true},
	{a: "invalid webp image", class: BadRequest, badInput: true},
	{a: "invalid argument", class: Unknown, vague: true},
}
