// Package gemini is the adapter for Google's Gemini API (Generative Language
// API, v1beta): POST {base_url}/v1beta/models/{model}:generateContent, or
// :streamGenerateContent?alt=sse when streaming, with x-goog-api-key.
//
// Requests: system and developer messages become systemInstruction parts;
// user turns stay "user", assistant turns become "model"; consecutive turns of
// one role are merged (Gemini wants them alternating). Empty text parts are
// left out; a conversation left with no turn sends its system parts as the
// one user content instead (Gemini wants a content), and one with nothing
// at all is a translation error (docs/doors.md, "Chat Completions to Claude
// and Gemini targets"), as is a request for logprobs (Gemini's are not
// translated back) and one that chat.Request.Unanswerable refuses (a tool
// that is not a function, the deprecated functions, audio output,
// web_search_options). Text parts stay text, and so does an assistant's
// refusal (its refusal member or a refusal part; a refusal part in another
// turn is a translation error); image data: URLs become inlineData when
// their type is one Gemini takes (image/png, image/jpeg, image/webp,
// image/heic, image/heif; another is a translation error, so the route
// moves on), other image URLs fileData (mimeType guessed from the
// extension, else image/jpeg); a file part holding a PDF and an
// input_audio part (wav, mp3) become inlineData too. Assistant tool_calls
// become
// functionCall parts; "tool" messages become functionResponse parts in one
// user turn, their name looked up by tool_call_id among earlier tool_calls,
// their response the tool's JSON object if it sent one, else
// {"content": <text or JSON value>}; a tool message's images follow its run
// of functionResponse parts in that turn. tools become functionDeclarations,
// tool_choice becomes toolConfig.functionCallingConfig (auto→AUTO,
// none→NONE, required→ANY, a named function→ANY + allowedFunctionNames,
// allowed_tools: required→ANY + allowedFunctionNames, auto→AUTO with the
// listed functions alone declared;
// not sent without function declarations, which Gemini refuses),
// and sampling settings go to generationConfig (temperature, topP,
// maxOutputTokens from max_completion_tokens or max_tokens, stopSequences,
// candidateCount from n, seed, and presencePenalty and frequencyPenalty
// for the gemini-1.5 and gemini-2.0 models alone: later models refuse
// them, TakesPenalties).
//
// Structured output beside function tools (structured.go): Gemini
// 1.5, 2.0 and 2.5 refuse functionDeclarations with responseMimeType
// application/json (400 "Function calling with a response mime type:
// 'application/json' is unsupported"), Gemini 3 takes them
// (TakesSchemaWithTools). So for a model before Gemini 3, a json_schema or
// json_object response_format beside the client's functions sends neither
// responseMimeType nor responseJsonSchema; a reserved function,
// detour_json_answer (parameters: the schema, {"type":"object"} for
// json_object) or detour_json_value (a schema whose top level is not an
// object, wrapped in {"value": …}), joins the declarations with mode ANY
// (with tool_choice none, ANY allowing it alone); tool_choice required or a
// named function, or a request ending with an assistant turn, gets no
// answer function. The Anthropic adapter asks Claude the same way. A
// client function or tool_choice naming a reserved function is a
// translation error. In answers and streams a call of the reserved
// function is the message's content (its arguments as compact JSON, or
// their "value"), text beside it and a second answer dropped; it is no
// tool call, so finish_reason is stop unless a client function was called.
//
// Two deliberate choices of field:
//   - Schemas travel as JSON Schema: function parameters as
//     parametersJsonSchema and a json_schema response_format as
//     responseJsonSchema (with responseMimeType application/json). The older
//     parameters/responseSchema take an OpenAPI 3.0 subset that rejects what
//     OpenAI clients routinely send (additionalProperties: false under
//     strict mode, $defs/$ref); the JSON Schema fields are documented as the
//     alternative that accepts JSON Schema, so a request that works at OpenAI
//     does not become a bad_request here.
//   - A function call's thoughtSignature reaches the client tagged with
//     the endpoint that wrote it, as the call's
//     extra_content.google.thought_signature (where Gemini's own
//     OpenAI-compatible API puts it), and goes back only to that endpoint
//     (signature.go); a replayed call without one of its own gets the
//     documented "skip_thought_signature_validator" on the first call of
//     its step, since Gemini 3 models reject a step without one.
//
// Answers: text parts are concatenated (thought parts dropped), functionCall
// parts become tool_calls with ids "call_<n>", image inlineData parts
// become the message's (or delta's) images as OpenRouter carries them (an
// image_url part with a data: URL; chat has no member of its own), finishReason maps to
// finish_reason (STOP→stop, MAX_TOKENS→length, a filter's reason — SAFETY,
// RECITATION, BLOCKLIST, PROHIBITED_CONTENT, SPII, IMAGE_SAFETY,
// IMAGE_PROHIBITED_CONTENT, IMAGE_RECITATION, MODEL_ARMOR — →
// content_filter, but beside a function call it fails the answer, whole
// or streamed: no call a filter flagged is handed on; otherwise tool_calls
// whenever a function was called), usageMetadata
// to usage (thoughts count as completion tokens, as OpenAI counts reasoning;
// toolUsePromptTokenCount, the results of Gemini's own tools, as prompt
// tokens beside promptTokenCount), modelVersion to model. A body with no
// candidates, or whose every candidate was blocked without content, is an
// error, never an empty success; the gateway's classifier reads the block
// reason (a block reason of BLOCK_REASON_UNSPECIFIED, the enum's default,
// blocks nothing). In streams such chunks set Event.Error. A streamed
// chunk's text, each of its function calls and its finish reason go out in
// chat chunks of their own, as OpenAI streams them
// (a client's accumulator tells a finished text or call by the chunk after
// it). Gemini streams end without [DONE]: the chunk carrying the last
// finishReason sets Done and the reader then returns io.EOF. A relay's
// [DONE] (OpenAI's end) also sets Done; a passthrough (native.go) does not
// hand it on to the Gemini client.
//
// Embeddings (embed.go, provider.Embedder): an OpenAI embeddings body
// becomes :batchEmbedContents, one request per input string with
// outputDimensionality from dimensions; token-array input is refused; the
// answer becomes OpenAI's embeddings list, each vector scaled to unit
// length as OpenAI's are (Gemini's are only at 3072 dimensions; a unit or
// zero vector travels as sent), base64-encoded (little-endian float32) when
// the client asked for it, with zero usage (Gemini reports none). docs/doors.md lists the fields.
//
// It imports provider, sse and provider/chat (shared OpenAI wire structs),
// nothing else of ours.
package gemini
