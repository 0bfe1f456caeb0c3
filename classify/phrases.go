package classify

// The taught sentences, highest priority first: the first phrase of this list
// found anywhere in a body's human texts decides (not the first in the text),
// unless its matched text is also in the client's request (echo.go, pick.go).
// The order encodes which cause wins when a body names several: a rejected key beats all;
// money beats everything request-shaped; a model that is gone beats its
// wording about the request; the context window beats "request too large";
// a per-minute period beats the generic "exceeded your current quota"; bad
// input is the last resort and only where the status default is unknown
// (save "is missing a", a named lack, which outranks the provider-load asides).
//
// Phrases are lower case; a space matches any run of blanks.
var mainPhrases = newPhraseSet(joinPhrases(connectorPhrases, accountPhrases, gonePhrases, requestPhrases, statePhrases, inputPhrases, memberInvalidPhrases, featureGonePhrases))

// twoXXPhrases are read only in an error a 2xx carries with no status of its
// own (a stream's error line or event, blocks.go), after every other word and
// code found nothing: words only a model's output, failing to parse, makes
// there. Go's encoding/xml under Ollama's XML tool-call parsers ("XML syntax
// error on line 3: unexpected EOF", a mid-stream NDJSON line; round 53) is
// the model's own tool call, unknown; in a 5xx the same words may be a
// proxy that failed to parse its upstream's XML answer, the server's.
var twoXXPhrases = newPhraseSet([]phrase{
	{a: "xml syntax error on line", class: Unknown},
})

// connectorPhrases name what the client connected the request to, ranked
// before the account wording: a remote MCP server the request declared
// (Anthropic's mcp_servers, OpenAI's mcp tools). "Invalid API key for MCP
// server 'notion'", its timeouts and failures are the client's connector,
// never the endpoint's key or timer; the client runs that server and
// writes what it answers, which no echo check can see.
var connectorPhrases = []phrase{
	{a: "mcp server", class: BadRequest},
	// Cohere's connectors the request declared ("connectors failed with
	// continue on failure disabled: connector xyz failed with message
	// 'failed to get auth token …'"): the client's, never the account's.
	{a: "connectors failed", class: BadRequest},
}

// requestPhrases: the request at this endpoint (batch caps, the window,
// content policy, size, money, settings at odds); the transient and access
// wording follows (statePhrases, phrasesstate.go), then bad input and the
// capability gaps (inputPhrases, phrasesinput.go).
var requestPhrases = []phrase{
	// overflow, before the window: a batch over this endpoint's per-request
	// cap (tokens or items per batch, inputs per request), even where the
	// text also says "too many tokens". The cap is the endpoint's (one
	// deployment takes 1 input, another 2048), not the model's window.
	{a: "tokens", b: "batch", gap: 16, class: Overflow}, // "tokens in batch", "tokens per submitted batch"
	{a: "in one batch", class: Overflow},
	// A batch size capped ("batch size is invalid, it should not be larger
	// than 10", DashScope's embeddings): the cap, before the bad-input words.
	{a: "batch size", b: "larger than", gap: 40, class: Overflow},
	{a: "batch size", b: "at most", gap: 24, class: Overflow},
	{a: "batch size", b: "exceeds", gap: 24, class: Overflow},
	{a: "too many inputs", class: Overflow},
	{a: "max number of inputs", class: Overflow},
	// A count of a batch's texts or inputs capped ("total number of texts
	// must be at most 96"): the endpoint's cap per request.
	{a: "number of texts", b: "at most", gap: 24, class: Overflow},
	{a: "number of inputs", b: "at most", gap: 24, class: Overflow},
	// A list over its cap in Pydantic's words, which every FastAPI-served
	// model server answers with ("List should have at most 4 items after
	// validation", "Value should have at most 1024 items": an embeddings
	// batch over its cap, BerriAI/litellm#32528; round 58, hunt 58c): the
	// endpoint's cap, as "array too long … maximum length" is, before the
	// bad-input "at most" (a string's characters stay there).
	{a: "should have at most", b: "items", gap: 16, class: Overflow, notRate: true},
	// An endpoint that takes no batch at all ("does not support batch
	// embeddings"): its cap is one input per request.
	{a: "support batch", class: Overflow},
	// A request's bytes over the endpoint's size cap ("total referenced
	// files bytes are too large to be read"; AWS: "Value at 'body' failed
	// to satisfy constraint: Member must have length less than or equal to
	// 25000000", the API's cap on the whole payload).
	{a: "bytes", b: "too large", gap: 12, class: Overflow},
	// "too many total text bytes: 17929476 > 16000000" (Anthropic): the
	// request's size cap, not its window.
	{a: "too many", b: "bytes", gap: 16, class: Overflow, notRate: true}, // not a throttle's "bytes in the last minute"
	{a: "at 'body'", b: "length less than", gap: 60, class: Overflow},
	// A cap on an item's bytes (DashScope: "Exceeded limit on max bytes per
	// data-uri item : 10485760"); not a throttle's bytes per minute.
	{a: "max bytes per", class: Overflow, notRate: true},
	{a: "file size is too large", class: Overflow}, // DashScope: "Multimodal file size is too large"
	// Per-request caps of embeddings servers (TEI: "batch size 64 > maximum
	// allowed batch size 32"; Vertex: "5 instance(s) is allowed per
	// prediction"; Jina: "Each input list can contain at most 512 items").
	{a: "maximum allowed batch size", class: Overflow},
	{a: "allowed per prediction", class: Overflow},
	{a: "input list can contain at most", class: Overflow},
	{a: "too many files", class: Overflow}, // DashScope: "Too many files provided." (a 5xx's "too many open files" is the server's)
	// How many images, documents or videos one request may carry, a cap of
	// this endpoint that a bigger one may not have: Azure's "Exceeded
	// maximum number of images (50) allowed in the request.", Bedrock's
	// "You can't include more than 5 documents in a request.", Meta's "…
	// exceeding the maximum of 50 allowed per request", vLLM's
	// --limit-mm-per-prompt, Vertex's "20 video files but the model only
	// supports up to 10", new-api's "too many images in the message"
	// ("too many images", below). Passed over at a 429, where a throttle
	// counting media says the same (review 29d).
	{a: "maximum number of images", b: "request", gap: 24, class: Overflow, notRate: true}, // "… (50) allowed in the request"; not "… for this month"
	{a: "maximum number of documents", b: "request", gap: 24, class: Overflow, notRate: true},
	{a: "maximum number of files", b: "request", gap: 24, class: Overflow, notRate: true},
	{a: "documents in a request", class: Overflow, notRate: true},
	{a: "images in a request", class: Overflow, notRate: true},
	{a: "use fewer than", b: "images", gap: 12, class: Overflow, notRate: true}, // Gemini: "Please use fewer than 3600 images in your request to models/…"
	{a: "limit-mm-per-prompt", class: Overflow, notRate: true},
	{a: "files but the model only supports up to", class: Overflow, notRate: true},
	{a: "image count", b: "exceeds", gap: 8, class: Overflow, notRate: true},
	{a: "can contain only one image", class: Overflow, notRate: true},
	// The request's bytes over this endpoint's cap in other words (ngrok:
	// "Request body is too long. Max …"; Kong's request-size-limiting, a
	// 417: "Request size limit exceeded"; Vertex: "… which exceeds max
	// allowed file size of 31457280").
	{a: "request body is too long", class: Overflow, notRate: true},
	// A list of the request over this endpoint's length cap (OpenAI:
	// "Invalid 'tools': array too long. Expected an array with maximum
	// length 128, but got an array with length 217 instead."): another
	// vendor takes more tools, stop sequences or messages; a string too
	// long stays the client's bad input.
	{a: "array too long", b: "maximum length", gap: 40, class: Overflow, notRate: true},
	// Groq's validator for the same cap ("'tools' : maximum number of items
	// is 128", round 55); another member's cap ("'stop' : maximum number of
	// items is 4") is not matched.
	{a: "tools' : maximum number of items", class: Overflow, notRate: true},
	// The same cap in Kimi's words ("a max of 128 tools can be
	// supported"): before the bad-input "maximum of".
	{a: "max of", b: "tools", gap: 12, clause: true, class: Overflow, notRate: true},
	{a: "maximum of", b: "tools", gap: 12, clause: true, class: Overflow, notRate: true},
	{a: "request size limit exceeded", class: Overflow, notRate: true},
	{a: "max allowed file size", class: Overflow},
	// The engine's per-step token budget, a deployment setting, not the
	// model's window (TensorRT-LLM's trtllm-serve: "The sum of prompt length
	// (50857.0), query length (0) should not exceed max_num_tokens (32768)").
	{a: "exceed max_num_tokens", class: Overflow},

	// A client setting measured against the window (vLLM: "truncate_prompt_tokens
	// value is greater than max_model_len"): the setting, not the prompt.
	{a: "truncate_prompt_tokens", class: BadRequest, badInput: true},

	// context_length: the prompt exceeds the window.
	{a: "context_length_exceeded", class: ContextLength},
	{a: "maximum context length", class: ContextLength},
	{a: "context length", class: ContextLength},
	{a: "context window", class: ContextLength},
	{a: "context size", class: ContextLength},
	{a: "context limit", class: ContextLength},
	{a: "input length", class: ContextLength},
	{a: "tokens in request", b: "more", gap: 16, class: ContextLength}, // Z.ai's 1210: "tokens in request more than max tokens allowed"
	{a: "model token limit", class: ContextLength},
	{a: "inputs", b: "tokens", gap: 32, class: ContextLength}, // TGI: "`inputs` must have less than 4096 tokens"
	{a: "prompt is too long", class: ContextLength},
	{a: "maximum prompt length", class: ContextLength},
	{a: "prompt too long", class: ContextLength},
	{a: "prompt exceeds", class: ContextLength},
	{a: "超过最大长度", class: ContextLength}, // exceeds the maximum length
	{a: "input is too long", class: ContextLength},
	{a: "input too long", class: ContextLength},
	// A prompt's or input's token count said to exceed a limit (Copilot:
	// "prompt token count of 514673 exceeds the limit of 128000"); a
	// throttle wording its per-minute cap so stays the throttle's.
	{a: "input token count", b: "exceeds", gap: 60, class: ContextLength, notRate: true},
	// Vertex: "the input token count is 1251952 but model only supports up
	// to 1048576".
	{a: "input token count", b: "supports up to", gap: 60, class: ContextLength, notRate: true},
	{a: "prompt token count", b: "exceeds", gap: 60, class: ContextLength, notRate: true},
	// Amazon Nova on Bedrock: "Input Tokens Exceeded: Number of input
	// tokens exceeds maximum length." (hunt 68b); and "input tokens
	// exceed the configured limit" of the same kind.
	{a: "input tokens", b: "exceed", gap: 8, class: ContextLength, notRate: true},
	// One text of an embeddings request over the model's window (Jina:
	// "Input text exceeds the model's maximum of 8194 tokens. Use 'truncate:
	// true' …"), before the bad-input "maximum of"; a batch's token cap
	// ("tokens per submitted batch") is the overflow above, a length in
	// characters names no tokens, and a throttle's wording stays its own.
	{a: "input text exceeds", b: "tokens", gap: 48, class: ContextLength, notRate: true, clause: true},
	// IBM's: "input tokens (35000) plus prefix length (0) must be < 4096",
	// the prompt compared with the window.
	{a: "input tokens", b: "must be <", gap: 48, class: ContextLength, notRate: true},
	// Yandex's: "number of input tokens must be no more than 32768, got
	// 59830" (round 37).
	{a: "input tokens", b: "must be no more than", gap: 48, class: ContextLength, notRate: true},
	{a: "reduce the length of the messages", class: ContextLength},
	{a: "reduce the length of the prompt", class: ContextLength},
	{a: "too many input tokens", class: ContextLength},
	{a: "prompt tokens too long", class: ContextLength}, // Baidu's tokens_too_long
	{a: "max input characters", class: ContextLength},   // Qianfan v2's characters_too_long: "the max input characters is N"
	{a: "prompt 超长", class: ContextLength},              // Zhipu's 1261: "Prompt 超长" (the prompt is too long)
	{a: "prompt超长", class: ContextLength},
	{a: "提示词超长", class: ContextLength},
	{a: "token数量超过上限", class: ContextLength},                   // Spark's 10907: the history and question over the limit
	{a: "token length exceed", class: ContextLength},           // DashScope: "Total message token length exceed model limit"
	{a: "token length too long", class: ContextLength},         // Moonshot: "Input token length too long"
	{a: "model_context_window_exceeded", class: ContextLength}, // the window finish, relayed in words ("provider error: finish_reason=model_context_window_exceeded")
	{a: "max_model_len", class: ContextLength},
	{a: "maximum model length", class: ContextLength},
	{a: "max_seq_len", class: ContextLength},
	{a: "token sequence length is longer than the specified maximum", class: ContextLength}, // watsonx: "Token sequence length is longer than the specified maximum sequence length for this model (1336 > 512)"
	// "too many tokens" about the output cap ("max tokens must be less than
	// or equal to 4096, the maximum output for this model") is the client's
	// max_tokens, not the prompt's size: below every window wording above.
	{a: "maximum output", class: BadRequest, badInput: true},
	{a: "split into more batches", class: Overflow}, // Mistral's embeddings: "Too many tokens overall, split into more batches." (a batch's cap, not a window)
	{a: "too many tokens", class: ContextLength, notRate: true},

	// refusal: content policy or safety.
	{a: "content_filter", class: Refusal},
	{a: "content filter", class: Refusal},
	{a: "content management policy", class: Refusal},
	{a: "content_policy_violation", class: Refusal},
	{a: "content policy", class: Refusal},
	{a: "responsibleaipolicyviolation", class: Refusal},
	// A plan's fair-usage terms (Z.ai's 1313 at a 429: "does not comply with
	// the Fair Usage Policy, and your request frequency has been limited"):
	// no content policy; the status says what it is.
	{a: "fair usage policy", class: Unknown, vague: true},
	{a: "usage policies", class: Refusal},
	{a: "usage policy", class: Refusal},
	{a: "safety system", class: Refusal},
	{a: "safety settings", class: Refusal},
	{a: "safety filter", class: Refusal}, // Vertex Imagen: "Your current safety filter threshold prohibited one or more words in this prompt."
	// Vertex: "The response is blocked, as it may violate our policies." (an
	// account's suspension for a violation is ranked before, as access).
	{a: "violate our polic", class: Refusal},
	{a: "violates our polic", class: Refusal},
	{a: "prohibited content", class: Refusal},
	{a: "pii detected", class: Refusal},                         // a gateway's guardrail (vLLM production-stack's router: "PII detected in request"); not "PII detection service unavailable"
	{a: "contains text that is not allowed", class: Refusal},    // a relay's moderation (VoAPI, a 403: "Your submission contains text that is not allowed")
	{a: "contains content that is not allowed", class: Refusal}, // not "contains parameters that are not allowed"
	{a: "flagged", class: Refusal},
	// MiniMax's 1026 and 1027 as its OpenAI- and Anthropic-compatible
	// endpoints word them, at any status, in a stream too: "input
	// new_sensitive (1026)", "output new_sensitive (1027)".
	{a: "new_sensitive", class: Refusal},
	// A gateway's prompt guard (Kong: "Request was filtered by Lakera
	// Guard", "Request was filtered by GCP Model Armor", its ai-prompt-guard's
	// "prompt pattern is blocked."); not a firewall's or CORS's filter.
	{a: "was filtered by", b: "guard", gap: 16, class: Refusal, notRate: true},
	{a: "filtered by gcp model armor", class: Refusal},
	{a: "prompt pattern is blocked", class: Refusal},
	{a: "usage guidelines", class: Refusal},
	// An "Acceptable Use Policy" the prompt or this request is held against
	// (Sourcegraph's Cody Gateway, a 400: "We blocked your request because
	// we detected your prompt to be against our Acceptable Use Policy …",
	// round 53): this prompt is refused, rephrasing passes. Only with the
	// prompt or this one request its subject in the same clause (not "your
	// requests", which a ban may cite), and no key or plan between: an
	// account banned for the policy stays where the account words or the
	// status put it.
	{a: "your prompt", b: "acceptable use policy", gap: 40, class: Refusal, clause: true, noAcct: true},
	{a: "this request", b: "acceptable use policy", gap: 40, class: Refusal, clause: true, noAcct: true},
	{a: "inappropriate content", class: Refusal},
	{a: "inappropriate", b: "content", gap: 12, class: Refusal}, // OCI: "Inappropriate output content detected in output blocklist"
	{a: "may contain sensitive", class: Refusal},                // Huawei MaaS 81011: "Input text May contain sensitive information", a 403
	{a: "sensitive chat", class: Refusal},                       // UCloud ModelVerse: "Sensitive chat messages"
	{a: "content was filtered", class: Refusal},                 // Tencent TokenHub's 451: "content was filtered by safety policy"
	{a: "filtered due to safety", class: Refusal},               // SAP's orchestration: "Input Filter: Prompt filtered due to safety violations. Please modify the prompt and try again."
	{a: "content", b: "risk", gap: 10, class: Refusal},          // "Content Exists Risk"
	{a: "敏感内容", class: Refusal},                                 // sensitive content (not 大小写敏感, case-sensitive)
	{a: "敏感词", class: Refusal},                                  // sensitive words
	{a: "contains sensitive words", class: Refusal},             // new-api's keyword filter: "input contains sensitive words: […]"
	{a: "内容审核", class: Refusal},                                 // content moderation
	// sub2api's moderation block (a 403 "内容审计命中风险规则，请调整输入后
	// 重试", its 317 forks' and TokenFlux's too; round 61, hunt 61e); not
	// its "内容安全审核暂不可用" (moderation itself down, a 503: below).
	{a: "命中风险规则", class: Refusal},
	{a: "内容审计", class: Refusal},
	// 敏感内容's English form (Z.ai's 1301 in English: "System detected potentially
	// unsafe or sensitive content in input or generation.", round 53; Ark's
	// "includes sensitive content that violates ContentSecurityDetection").
	{a: "unsafe or sensitive content", class: Refusal},
	{a: "sensitive content", class: Refusal},
	// A gateway's guardrail blocking this content (LiteLLM's guardrails,
	// Portkey's "guardrail checks … failed", Databricks' "blocked by input
	// guardrail"), and the classifiers' own names for what they caught.
	{a: "guardrail failed", class: Refusal},
	{a: "content blocked", class: Refusal}, // LiteLLM's keyword guardrail: "Content blocked: keyword 'x' detected"
	// A filter, guard or moderation step that "blocked content" (SAP AI
	// Core's Llama Guard input filter: "Filtering module blocked content:
	// content violated a configured category.", round 53), and Llama
	// Guard's category wording on its own. Not a bare "blocked content": a
	// firewall's names no policy and stays where its status puts it.
	{a: "filter", b: "blocked content", gap: 24, class: Refusal, clause: true, notRate: true},
	{a: "guard", b: "blocked content", gap: 24, class: Refusal, clause: true, notRate: true},
	{a: "moderation", b: "blocked content", gap: 24, class: Refusal, clause: true, notRate: true},
	{a: "violated a configured category", class: Refusal},
	// A gateway's guardrail that blocked the request or the answer
	// (LiteLLM's "Violated guardrail policy", "Violated OpenAI moderation
	// policy", "Violated content safety policy", whichever guardrail ran).
	{a: "violated guardrail", class: Refusal},
	// LiteLLM's guardrails in their vendors' words: "Violated Lasso
	// guardrail policy", "Request blocked by Onyx Guard. Violations: Prompt
	// Defense.", "File blocked by Prompt Security. Violations: …", "Blocked
	// PII entity detected: US_SSN by Guardrail: …". Not a WAF's or CORS's
	// block, nor a guardrail service's own throttle (review 29b).
	{a: "violated", b: "guardrail", gap: 24, class: Refusal, clause: true, notRate: true},
	{a: "blocked by prompt security", class: Refusal},
	{a: "blocked pii entity", class: Refusal},
	{a: "violated", b: "moderation policy", gap: 16, class: Refusal},
	{a: "violated content safety", class: Refusal},
	{a: "violates", b: "content safety", gap: 24, class: Refusal}, // Azure AI Foundry's model server: "request input violates azure ai content safety setting."
	{a: "violated content policy", class: Refusal},
	{a: "guardrail checks", b: "failed", gap: 40, class: Refusal},
	{a: "blocked by", b: "guardrail", gap: 24, class: Refusal},
	{a: "blocked by", b: "guard", gap: 24, class: Refusal, notRate: true}, // "Request blocked by Onyx Guard" (LiteLLM's Onyx guardrail)
	{a: "prompt injection", class: Refusal},
	{a: "prompt_injection", class: Refusal}, // the same, as a label: "Violations: prompt_injection"
	{a: "jailbreak", class: Refusal},
	// Content withheld "for safety reasons" ("we've limited access to this
	// content for safety reasons", under a generic invalid_prompt code).
	{a: "safety reasons", class: Refusal},
	{a: "infringement", class: Refusal},                // DashScope's IPInfringementSuspect: "suspected of being involved in IP infringement"
	{a: "failed content safety check", class: Refusal}, // Azure API Management's content-safety policy: "Request failed content safety check."
	// A gateway's guardrail on the prompt or the answer (Cloudflare AI
	// Gateway's 2016/2017: "Prompt blocked due to security configurations";
	// APISIX's ai-prompt-guard: "Request doesn't match allow patterns").
	// A bare "Request blocked." names no policy and stays unknown.
	{a: "prompt blocked", class: Refusal},
	{a: "response blocked", class: Refusal},
	{a: "match allow pattern", class: Refusal},
	{a: "审核不通过", class: Refusal}, // Spark's 10014: the output failed review
	{a: "违规信息", class: Refusal},  // Spark's 10019: the content tends to violations

	// overflow: this request is too large for this endpoint.
	{a: "request too large", class: Overflow},
	{a: "extra usage is required", class: Overflow},
	{a: "usage credits are required for long context", class: Overflow}, // the same, newer: "Usage credits are required for long context requests" (a 429)
	{a: "request entity too large", class: Overflow},
	{a: "payload too large", class: Overflow},
	// The request's header fields past a proxy's buffers: RFC 6585's 431 in
	// words, where nginx (and Kong, on it) answers its 494 as a 400:
	// "Request Header Or Cookie Too Large" (hunt 64c). Another endpoint,
	// with larger buffers, takes it.
	{a: "request header or cookie too large", class: Overflow},
	{a: "request_too_large", class: Overflow},
	{a: "request exceeds the maximum allowed number of bytes", class: Overflow},
	{a: "payload size exceeds", class: Overflow},
	// Per-request media limits of this endpoint: size, dimensions, count.
	{a: "image dimensions", class: Overflow},
	{a: "image exceeds", class: Overflow},
	{a: "image size exceeds", class: Overflow},  // "Image size exceeds the limit." (beside code invalid_image)
	{a: "invalid image size", class: Overflow},  // CLOVA Studio: "Invalid image size" (this endpoint's media limits)
	{a: "invalid image ratio", class: Overflow}, // CLOVA Studio: "Invalid image ratio"
	// An image that needs more patches (the vision encoder's tiles) than
	// the model takes (OpenAI: "The image you provided requires 53800
	// patches after processing, exceeding the limit of 30000", beside code
	// invalid_value): its size, for this model; another may take it.
	{a: "patches", b: "exceed", gap: 24, class: Overflow, clause: true, notRate: true},
	{a: "max allowed size", class: Overflow},
	{a: "maximum allowed size", class: Overflow},
	{a: "largest allowed size", class: Overflow}, // Jina: "\"input\" length 2049 is larger than the largest allowed size 2048"
	{a: "too much media", class: Overflow},
	{a: "too many images", class: Overflow, notRate: true},
	{a: "more than one image", class: Overflow},      // "only supports one image while more than one image requested"
	{a: "image per", class: Overflow, notRate: true}, // not "images per minute" at a 429 (review 29d)
	{a: "images per", class: Overflow, notRate: true},
	// A count of media over this endpoint's per-request cap ("At most 1
	// image(s) may be provided in one request"); a size ("each image must
	// be at most 20MB") names no count before the medium.
	{a: "at most", b: "image", gap: 12, class: Overflow},
	{a: "at most", b: "video", gap: 12, class: Overflow},
	{a: "at most", b: "audio", gap: 12, class: Overflow},
	{a: "pdf pages", class: Overflow},
	// A count of anything the request lists over this endpoint's cap ("At
	// most 512 function declarations can be specified"), and a schema past
	// what it can serve ("a constraint that has too many states for
	// serving"): the endpoint's limits, not the client's bad input.
	{a: "at most", b: "can be specified", gap: 40, class: Overflow, clause: true},
	{a: "too many states", class: Overflow},
	// An embeddings batch over this endpoint's cap (Vertex: "it included too
	// many instances. Reduce the number of instances and try again"),
	// before the bad-input "update the … and try again".
	{a: "too many instances", class: Overflow},
	// A body or its messages over this endpoint's size cap (Huawei MaaS
	// 81113, as a 429: "Invalid request body, exceeds the maximum size";
	// Kimi Code: "total message size N exceeds limit M"): the same body
	// fails here however long the wait. Not a queue over its size.
	{a: "request body", b: "exceeds", gap: 12, class: Overflow},
	{a: "message size", b: "exceeds", gap: 24, class: Overflow},
	// Vertex's online prediction: "The request size (1857939 bytes) exceeds
	// 1.500MB limit." (a FAILED_PRECONDITION); a gRPC message over its cap
	// ("grpc: received message larger than max (10485832 vs. 4194304)", a
	// RESOURCE_EXHAUSTED 429): the same body fails however long the wait.
	{a: "request size", b: "exceeds", gap: 24, class: Overflow, notRate: true},
	{a: "request size is too large", class: Overflow, notRate: true}, // LiteLLM\'s max_request_size_mb: "Request size is too large. Request size is N MB. Max size is M MB"
	{a: "message larger than max", class: Overflow},
	{a: "number of urls", b: "exceeds", gap: 24, class: Overflow, notRate: true}, // Gemini's URL context: "Number of urls to lookup exceeds the limit (21 > 20)"

	// rate_limited by its period: beats the generic quota wording below.
	{a: "per minute", class: RateLimited},
	{a: "per min", class: RateLimited},
	{a: "per second", class: RateLimited},
	{a: "per_minute", class: RateLimited},
	{a: "per-minute", class: RateLimited},
	{a: "per-second", class: RateLimited},
	// A count in a window of minutes or seconds ("maximum 100 requests in 1
	// minutes"; "1分钟内最多请求60次", at most 60 within a minute).
	{a: "requests in", b: "minute", gap: 8, class: RateLimited},
	{a: "requests in", b: "second", gap: 8, class: RateLimited},
	{a: "tokens in", b: "minute", gap: 8, class: RateLimited},
	{a: "分钟内", class: RateLimited},
	// A request rate or concurrency over its limit (round 61, hunt 61d:
	// AIHubMix's 429 "请求频率超过限制" and its zh-Hant twin; Zhipu's 1303
	// "您当前使用该 API 的频率过高" and 1302 "并发数过高", whose "联系客服增加
	// 限额" asks for a higher limit, no spent allowance); an official speed
	// limit met (AIHubMix's "该模型遇到官方限速", a 503 too: fiveXXPhrases;
	// not 限速 alone: a new-api group named "3.5-不限速", no speed limit);
	// new-api's rate_limit.reached in its Japanese and Korean locales.
	{a: "频率超过限制", class: RateLimited},
	{a: "頻率超過限制", class: RateLimited},
	{a: "频率过高", class: RateLimited},
	{a: "頻率過高", class: RateLimited},
	{a: "并发数过高", class: RateLimited},
	{a: "官方限速", class: RateLimited},
	// one-hub's and done-hub's 429 "您的速率达到上限，请稍后再试。" (the rate
	// at its cap; not 用量上限, an allowance) and MiniMax's 2062 "已达到 Token
	// Plan 速率限制" (round 61, hunt 61e).
	{a: "速率达到上限", class: RateLimited},
	{a: "速率限制", class: RateLimited},
	{a: "リクエスト制限に達しました", class: RateLimited},
	{a: "요청 수 제한에 도달했습니다", class: RateLimited},
	{a: "tpm)", class: RateLimited},
	{a: "rpm)", class: RateLimited},
	{a: "tpm", word: true, class: RateLimited},
	{a: "rpm", word: true, class: RateLimited},
	{a: "rps", word: true, class: RateLimited}, // SenseNova's 429: "rps exhausted"
	{a: "minute", slash: true, word: true, class: RateLimited},
	{a: "minutes", slash: true, word: true, class: RateLimited},
	{a: "second", slash: true, word: true, class: RateLimited},

	// quota, weak: wording also used for short-term limits.
	{a: "exceeded your current quota", class: Quota, weak: true},
	// A spend cap set on the key (OpenRouter's "Key limit exceeded (total
	// limit)"); a key's throttle names its period first ("(60/minute)").
	{a: "key limit exceeded", class: Quota, weak: true},
	{a: "billing", class: Quota, weak: true},
	// A free allowance spent (DashScope: "Free allocated quota exceeded.", at
	// a 429 whose "Allocated quota exceeded" alone is its per-minute cap;
	// Ark: "has exhausted its free trial quota"), after the period wording:
	// a free tier's per-minute cap says so.
	{a: "free", b: "quota exceeded", gap: 12, class: Quota, weak: true},
	{a: "free trial quota", class: Quota, weak: true},
	// At a 429 with nothing else it is the throttle the 429 says
	// (DashScope's Throttling.AllocationQuota, its per-minute cap: "Allocated
	// quota exceeded"; Vertex: "Online prediction request quota exceeded …
	// try again later with backoff").
	// Credit is money, even at a 429 (LiveKit's gateway: "LLM token credit
	// quota exceeded, category: MaxGatewayCredits"); its per-minute caps say
	// "token/min rate limit exceeded".
	{a: "credit quota", class: Quota, weak: true},
	{a: "quota is exceeded", class: Quota, weak: true, notRate: true}, // Azure API Management's token quota policy: "Token quota is exceeded. Try again in 21 minutes …"
	{a: "quota exceeded", class: Quota, weak: true, notRate: true},
	// A long period after a slash ("1000 API calls / month"); weak, so that
	// "10 requests per minute … the $20/month plan" stays a rate.
	{a: "day", slash: true, word: true, class: Quota, weak: true},
	{a: "days", slash: true, word: true, class: Quota, weak: true},
	{a: "month", slash: true, word: true, class: Quota, weak: true},
	{a: "months", slash: true, word: true, class: Quota, weak: true},
	// A plan's usage limit that resets at a stated time or needs an
	// upgrade; "usage limits, try again later" alone is a throttle.
	// A free allowance that resets every hour ("You reached free usage limit
	// (reset hourly)", Hugging Face's 429): a throttle's window, before the
	// weak "usage limit … reset".
	{a: "reset hourly", class: RateLimited},
	{a: "resets hourly", class: RateLimited},
	// A free allowance spent, worded "free usage" (OpenCode Zen's 429
	// FreeUsageLimitError "Free usage exceeded", round 53), as "Free
	// allocated quota exceeded" and "free trial quota" above: weak, so a
	// minute's or a second's wording or a Retry-After under an hour beside
	// it still makes it a throttle; after the hourly reset, so Hugging
	// Face's "free usage limit (reset hourly)" stays one.
	{a: "free usage", b: "exceeded", gap: 24, clause: true, class: Quota, weak: true, shortWins: true},
	{a: "free usage", b: "exhausted", gap: 24, clause: true, class: Quota, weak: true, shortWins: true},
	{a: "free usage", b: "used up", gap: 24, clause: true, class: Quota, weak: true, shortWins: true},
	{a: "used up your free usage", class: Quota, weak: true, shortWins: true},
	{a: "out of free usage", class: Quota, weak: true, shortWins: true},
	{a: "usage limit", b: "reset", gap: 80, class: Quota, weak: true},
	{a: "usage limit", b: "refreshed", gap: 80, class: Quota, weak: true}, // Kimi Code: "… usage limit for this period. Your quota will be refreshed in the next period."
	{a: "usage limit", b: "upgrade", gap: 40, class: Quota, weak: true},
	{a: "使用上限", b: "重置", gap: 80, class: Quota, weak: true}, // usage cap … reset
	// A usage cap (用量上限) with an upgrade or a purchase for remedy, as
	// "usage limit … upgrade" (MiniMax's 2067: "当前已达到 Token Plan 用量上限。
	// 为避免调用中断，请升级 Token Plan 套餐，或购买积分…", as a 429 with type
	// rate_limit_error). Weak: a minute's period still makes it a throttle.
	{a: "用量上限", b: "升级", gap: 60, class: Quota, weak: true},
	{a: "用量上限", b: "购买", gap: 60, class: Quota, weak: true},
	// Paid overage beyond a plan ("out of extra usage", "draw from your
	// extra usage"); "extra usage is required" for a long request is the
	// overflow phrase above and ranks first.
	{a: "extra usage", class: Quota, weak: true},
	// A plan's usage limit reached ("The usage limit has been reached");
	// "exceeded your usage limits, try again later" is a throttle's.
	{a: "usage limit", b: "reached", gap: 24, class: Quota, weak: true},
	{a: "usage limit exceeded", class: Quota, weak: true, notRate: true}, // Portkey: "Portkey API Key Usage Limit Exceeded", a 412; at a 429, a throttle's words ("AI usage limit exceeded. Please try again in a moment")
	{a: "usage quota", b: "reset", gap: 80, class: Quota, weak: true},
	{a: "week quota", class: Quota, weak: true},   // Qwen's token plan: "Your token-plan 1-week quota has been exhausted", a 429
	{a: "weekly quota", class: Quota, weak: true}, // Ark: "You have exceeded the weekly usage quota. It will reset at …"

	// What the request lacks, named ("Function call is missing a
	// thought_signature"): it outranks an aside on the provider's load
	// below ("may lead to degraded … performance"), and like all bad input
	// decides only where the status says nothing else.
	{a: "is missing a", class: BadRequest, badInput: true},
	{a: "is missing in", class: BadRequest, badInput: true}, // Kimi: "reasoning_content is missing in assistant tool call message at index 3"
	// Settings of the request that exclude each other or lack their
	// partner ("tools … should not be set in the request when using cached
	// content", "CachedContent can not be used with GenerateContent request
	// setting system_instruction", "function_calling_config is set without
	// function_declarations").
	{a: "should not be set in the request", class: BadRequest, badInput: true},
	{a: "can not be used with", b: "request", gap: 40, class: BadRequest, badInput: true},
	{a: "is set without", class: BadRequest, badInput: true},
	{a: "should only be specified", class: BadRequest, badInput: true}, // Gemini, relayed: "`allowed_function_names` should only be specified for ANY mode."
}

// joinPhrases concatenates phrase groups in priority order.
func joinPhrases(groups ...[]phrase) []phrase {
	var out []phrase
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// endingMediaPhrases are per-request media counts worded only as a limit,
// which say a count only where they end their sentence: CLOVA Studio's 400
// 40003 "Image limit exceeded" (at most 5 images a request; round 58, hunt
// 58a) is overflow, as "too many images" is, but "Image limit exceeded for
// today" is a period's allowance (review29d_test.go, vocab29_test.go). Read
// by decide only where no main phrase and no strong code spoke and the
// status is not 429; kept out of mainPhrases because a phrase there must
// also match mid-sentence (echo_test.go's generated bodies).
var endingMediaPhrases = newPhraseSet([]phrase{
	{a: "image limit exceeded", class: Overflow, notRate: true, last: true},
})
