// Package gemini is the door for Google's Gemini API
// (POST /v1beta/models/{model}:generateContent and
// :streamGenerateContent?alt=sse, :countTokens): pure translation between
// the Gemini wire shapes and the canonical OpenAI Chat Completions shapes
// every upstream adapter takes (internal/provider/chat), plus Google's
// error envelope. It does no HTTP and knows nothing of dispatch; the
// server wires it (internal/server/gemini.go). A Gemini target gets the
// client's body as sent instead (internal/provider/gemini/native.go).
//
//   - Translate: a GenerateContentRequest → canonical chat JSON, for the
//     route named in the URL. Errors are *Error: Unsupported for what only
//     a Gemini target serves (which a route to one still serves as sent),
//     else malformed (a 400).
//   - Answer: a canonical chat.completion → a GenerateContentResponse.
//   - Encoder: canonical chat.completion.chunk objects, one at a time →
//     SSE frames of GenerateContentResponse, every one with content (a
//     call whole, the finish reason and usage in the last).
//   - Envelope, ClassEnvelope, ErrorFrame, StatusFor: errors in Google's
//     envelope {"error":{"code","message","status"}} with Google's status
//     names, as a body or as the stream's last event.
//   - Estimate: :countTokens for targets that are not Gemini (bytes/4).
//   - TranslateEmbed, EmbedAnswer: :embedContent and :batchEmbedContents
//     → an OpenAI embeddings body for the embeddings dispatch, and its
//     answer back (embed.go); every target gets the translation.
//
// What Translate does with each request member (docs/doors.md, "Google
// Gemini", has the same table for operators; members are read in
// camelCase and snake_case, object.go):
//
//	contents[].role            user, "" or function → user; model → assistant
//	parts[].text               kept; thought parts dropped
//	parts[].inlineData         image/* → image_url (data: URL), PDF → file,
//	                           wav/mp3 → input_audio; other types refused
//	parts[].fileData           an http(s) image → image_url; Google's files,
//	                           gs://, other types refused
//	parts[].functionCall       assistant tool_calls (its id, else
//	                           call_<turn>_<part>); a sealed (detour1.)
//	                           thoughtSignature → extra_content.google.
//	                           thought_signature, a raw one dropped
//	parts[].functionResponse   a tool message answering the call of its id,
//	                           else the first unanswered one of its name
//	executableCode, code results, videoMetadata   refused
//	systemInstruction          one system message (text parts joined)
//	tools[].functionDeclarations  function tools (parametersJsonSchema as
//	                           sent but upper-case type names lowered,
//	                           parameters made JSON Schema: tools.go)
//	tools[] Google's own       refused (googleSearch, codeExecution…)
//	toolConfig                 AUTO/VALIDATED → auto, ANY → required (one
//	                           name: that function; several: allowed_tools),
//	                           NONE → none
//	generationConfig           temperature, topP, seed, penalties,
//	                           stopSequences kept; maxOutputTokens →
//	                           max_completion_tokens; topK dropped;
//	                           candidateCount > 1 refused; JSON mime type
//	                           (with a schema) → response_format; logprobs,
//	                           non-text modalities, speechConfig refused;
//	                           thinkingConfig dropped (includeThoughts makes
//	                           the answer carry reasoning as thought parts)
//	safetySettings, labels     dropped (Gemini's alone)
//	cachedContent              refused
//	anything else              dropped
//
// It imports provider/chat (canonical structs), rawjson and classify (for
// the status name of a class), nothing else of ours.
package gemini
