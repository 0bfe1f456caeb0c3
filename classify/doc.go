// Package classify places every upstream LLM answer in one of twelve closed
// failure classes, with the evidence that decided it.
//
// It reads the status first and, only where providers are known to overload
// a status, the first 4 KiB of the body, in every major dialect (OpenAI-style
// error.code/type/param, Anthropic error.type, Gemini error.status and
// details.reason, promptFeedback.blockReason, finishReason SAFETY, OpenRouter's
// 200-with-error body, SSE error events, the Responses API's response.error)
// and the envelopes of other vendors (Baidu error_code/error_msg, MiniMax
// base_resp and its documented codes, iFlytek Spark header.code/message, a
// vendor's own {status|code, msg} with no answer beside it (iFlow),
// Cloudflare errors[], FastAPI
// detail as text or object, Zod's {"field":{"_errors":[…]}}, Ollama NDJSON
// lines, llama.cpp's `error: {…}` stream line).
//
// How a verdict is reached (see decide.go for the exact precedence):
//
//   - operator rules (Classifier.Rules), first match wins, "rule:<n>";
//   - the status default (status.go), final for 401, 402, 405, 407, 408, 410
//     (but for a feature of the request gone: fixedstatus.go, fixedVerdict), 504
//     and 524; a 5xx stays server_error unless its body names a timeout,
//     proves a request-scoped class or a capability gap, proves the account
//     cannot pay, or quotes its upstream's 4xx as the SDKs print it ("Error
//     code: 429 - {…}", read as that 4xx) (server.go), or a relay's own wording
//     of it at a message's start (the Node SDK's "400 Unable to …", SageMaker's
//     "Received client error (400) from …") (relay.go);
//   - for other 4xx and for error bodies inside a 2xx or a stream: Gemini
//     quota periods, then strong codes, then the period of a Google quota
//     metric, then taught phrases (phrases.go; a capability gap is unknown),
//     then weak codes, then structural evidence of bad input — a 400/422 is
//     bad_request only with that evidence, otherwise unknown;
//   - a 2xx is a success unless it carries an error or a block, or its only
//     finish is the model's failed tool call with no content (blocks.go);
//     recognising an unusable success body is left to the adapters.
//
// Text the client supplied is no evidence (echo.go, pick.go): given the
// client's request body (Response.Request), a phrase or a rule match whose
// text also occurs in it is discarded and the next-best evidence decides, so
// an upstream quoting the client's input back cannot make the client's words
// page an operator or cool an account. Given also the model Detour sent
// (Response.Model), a not-found answer naming something the client's request
// names, other than that model, is bad_request (notfound.go): a client naming
// a file that does not exist cannot cool an endpoint. So is a gone-model
// answer about a model the client named in another member of its request (a
// tool's own model), never one about the model Detour sent (clientmodel.go).
//
// Bodies are walked by an allocation-free, truncation-tolerant JSON scanner
// (scan.go); a status-only answer costs tens of nanoseconds and allocates
// nothing. Transport classifies failures with no HTTP answer; Message
// extracts the human message of a body and AnswerMessage that of an error
// answer (a plain-text 4xx or 5xx is its server's message), for the
// client's error envelope;
// ParseRetryAfter reads Retry-After, retry-after-ms and x-ratelimit-reset-*.
//
// It is public on purpose: any Go program that calls LLM providers can import
// it without the gateway. It imports nothing of Detour's, only the standard
// library.
package classify
