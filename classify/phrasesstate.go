package classify

// statePhrases speak of the endpoint's or the account's state: timeouts,
// throttles, load and the weaker access wording; they rank after
// requestPhrases (phrases.go) and before inputPhrases (phrasesinput.go),
// in mainPhrases' order.
var statePhrases = []phrase{
	// timeout, rate_limited, server_error wording (for bodies in 2xx and
	// ambiguous 4xx).
	// Fetching what the client's request points to timed out ("Download
	// multimodal file timed out", "Timed out while fetching the image
	// URL"): its URL is slow, not the endpoint's timer.
	{a: "download", b: "timed out", gap: 40, class: Unknown},
	{a: "fetch", b: "timed out", gap: 40, class: Unknown},
	{a: "timed out", b: "download", gap: 24, class: Unknown},
	{a: "timed out", b: "fetch", gap: 24, class: Unknown},
	{a: "timeout", b: "download", gap: 24, class: Unknown}, // "Timeout while downloading {url}" (OpenAI, beside code invalid_value)
	{a: "timeout", b: "fetch", gap: 24, class: Unknown},
	{a: "download", b: "timeout", gap: 40, class: Unknown},
	// A relay's queue for the key's own concurrency ("Request timed out
	// waiting for concurrency slot. Limit: 2 concurrent requests"): a rate.
	{a: "concurrency slot", class: RateLimited},
	{a: "timed out", class: Timeout},
	{a: "deadline exceeded", class: Timeout},
	{a: "deadline_exceeded", class: Timeout},
	{a: "deadline expired", class: Timeout},
	// The model gave no first token in the provider's own time (Fireworks,
	// as a 429: "Request didn't generate first token before the given
	// deadline"): a timeout, whatever the status.
	{a: "first token", b: "deadline", gap: 24, clause: true, class: Timeout},
	// A request member missing, named in backticks ("Missing `max_tokens`
	// for request subject to rate limiting rules", TensorZero): the
	// request's, before the words "rate limit" it explains itself with; at
	// a 429 the status still decides, as for all bad input.
	{a: "missing `", class: BadRequest, badInput: true},
	{a: "rate limit", class: RateLimited},
	{a: "rate_limit", class: RateLimited},
	{a: "too many requests", class: RateLimited, notClient: true}, // not the client's host's 429 (review 32a)
	// Flow control and requests per second (Spark's 11202/11203: "秒级流控超限",
	// "并发流控超限"; Baidu's 18: "Open api qps request limit reached"); a
	// day's flow control is quota (accountPhrases, first).
	{a: "流控", class: RateLimited},
	{a: "qps", word: true, class: RateLimited},
	{a: "超过限额", b: "稍后重试", gap: 12, class: RateLimited}, // Hunyuan: "引擎层请求超过限额；请稍后重试" (over the limit; retry later)
	// A model this account's tier is not offered ("Gemini 2.5 Pro Preview
	// doesn't have a free quota tier. Please use …"): access this endpoint
	// lacks, not the account's money (other models on the key still serve),
	// and after the rate wording, so a free tier's throttle stays one.
	{a: "have a free quota tier", class: Forbidden},
	{a: "no free quota tier", class: Forbidden},
	{a: "throttl", class: RateLimited},
	{a: "overloaded", class: ServerError},
	// A project's service agents still being set up (Vertex's 400
	// FAILED_PRECONDITION: "Service agents are being provisioned … please
	// try again in a few minutes"): the provider's, passing.
	{a: "service agents are being provisioned", class: ServerError},
	{a: "temporarily out of capacity", class: ServerError}, // Vertex, a 429 RESOURCE_EXHAUSTED: "the service is temporarily out of capacity"
	// A router whose every provider of the model is full ("All providers for
	// anthropic/claude-sonnet-4.5 are at capacity. Retry after 40 seconds.",
	// OpenRouter's 429 capacity_exhausted; round 59, hunt 59g): their load.
	{a: "providers", b: "are at capacity", gap: 80, clause: true, class: ServerError},
	{a: "server overload", class: ServerError},   // Ark's ServerOverloaded, as a 429: "… due to server overload"
	{a: "load is saturated", class: ServerError}, // new-api: "Current group upstream load is saturated", as a 429
	// A serving stack shedding load from its own admission queue, as a 429
	// (llm-d's scheduler: "system saturated, sheddable request dropped",
	// "request rejected pre-queue: queue at capacity"; SGLang's gateway,
	// code scheduler_queue_full: "request queue is full for this priority
	// class"): the server's load, not the caller's rate; not a caller's
	// own queue ("your queue").
	{a: "system saturated", class: ServerError},
	{a: "queue at capacity", class: ServerError},
	{a: "request queue is full", class: ServerError},
	// iFlytek Spark's busy, short and broken engines (服务忙, 服务容量不足,
	// 引擎内部错误), in its status envelope's 200; not a user's own storage
	// (用户OSS容量不足). Its 10007, 用户流量受限 (one request at a time per
	// user), is not taught: the client sets the user, so it cools nothing.
	{a: "服务忙", class: ServerError},
	{a: "服务容量不足", class: ServerError},
	{a: "引擎内部错误", class: ServerError},
	// A model still starting, even as a 429 (Bedrock's ModelNotReadyException
	// "Model is not ready for inference"; a Vertex endpoint scaling from zero).
	{a: "not ready for inference", class: ServerError},
	{a: "not ready for serving", class: Unavailable}, // Cohere: "finetuned model with name x is not ready for serving" (training for hours, or failed)
	{a: "not yet ready for inference", class: ServerError},
	{a: "internal server error", class: ServerError},
	{a: "internal error", class: ServerError},
	{a: "internalserverexception", class: ServerError}, // AWS's and DJL's type name, inside a relayed message
	{a: "service unavailable", class: ServerError},
	{a: "temporarily unavailable", class: ServerError},
	{a: "degraded", class: ServerError},
	{a: "during generation", class: ServerError},
	// A GPU or its driver failing (TEI's 424 "Backend error: Inference
	// error: CublasError(CUBLAS_STATUS_NOT_SUPPORTED)", TGI's "CUDA out of
	// memory", "CUDA error: an illegal memory access", cudarc's
	// CUDA_ERROR_…): the provider's hardware, never the request, at any
	// status (round 53). Identifiers by their heads.
	{a: "cublas", class: ServerError},
	{a: "cublas_status_", class: ServerError, prefix: true},
	{a: "cuda_error_", class: ServerError, prefix: true},
	{a: "cudaerror", class: ServerError, prefix: true},
	{a: "cuda error", class: ServerError},
	{a: "cuda out of memory", class: ServerError},
	{a: "while running the model", class: ServerError},
	// A model process that died mid-request (LM Studio's 400 "The model has
	// crashed without additional information. (Exit code: 11)"; round 59,
	// hunt 59a): the server's, at any status, as a GPU's failure.
	{a: "model has crashed", class: ServerError},
	// A busy or saturated server ("Model busy, retry later"); after the rate
	// wording, so "rate limit … busy" stays a rate.
	{a: "busy", word: true, class: ServerError},
	{a: "访问量过大", class: ServerError}, // too much traffic (on the model)
	{a: "负载已饱和", class: ServerError}, // load is saturated
	{a: "負載已飽和", class: ServerError}, // the same in Traditional characters (new-api's zh-TW locale)
	// The same in new-api's Japanese and Korean locales (round 61, hunt
	// 61d), a 429 each.
	{a: "負荷が飽和", class: ServerError},
	{a: "부하가 포화 상태", class: ServerError},
	{a: "负载过高", class: ServerError},   // load too high
	{a: "审核暂不可用", class: ServerError}, // sub2api's "内容安全审核暂不可用，请稍后重试": its moderation service down (a 503), no refusal
	{a: "繁忙", class: ServerError},     // busy
	// The provider's own fleet full, a model in maintenance, traffic on the
	// service: its load, which passes by itself, even as a 429. A tier's or
	// an account's capacity ("Service tier capacity exceeded", "exhausted
	// your capacity") is not worded so.
	{a: "at maximum capacity", class: ServerError},
	{a: "at full capacity", class: ServerError},
	{a: "over capacity", class: ServerError},
	{a: "no available instance", class: ServerError}, // Cloud Run: "The request was aborted because there was no available instance." (even as a 429)
	// Workers AI's 3040, as a 429: "No more data centers to forward the
	// request to", "Capacity temporarily exceeded": its fleet, not a rate.
	{a: "no more data centers", class: ServerError},
	{a: "capacity temporarily exceeded", class: ServerError},
	{a: "no capacity available", class: ServerError},         // "No capacity available for model X on the server"
	{a: "not enough capacity available", class: ServerError}, // Mistral's backend_out_of_capacity, as a 429: "Not enough capacity available for this request, please retry later."
	{a: "under maintenance", class: ServerError},
	{a: "down for maintenance", class: ServerError},
	{a: "undergoing maintenance", class: ServerError},
	{a: "high traffic", class: ServerError},
	// A gateway that got no answer from its upstream ("Failed to get
	// response from provider"), whatever status it chose to send: the
	// upstream failed, not the client.
	{a: "failed to get response from", class: ServerError},
	{a: "failed to get a response from", class: ServerError},
	{a: "no response from upstream", class: ServerError},
	{a: "upstream connect error", class: ServerError},

	// forbidden, weak.
	{a: "permission denied", class: Forbidden},
	{a: "does not have permission", class: Forbidden},
	// A feature this model does not give ("You are not allowed to request
	// logprobs from this model", a 403): the next target may; not "not
	// allowed to sample from this model", access to the model itself.
	{a: "not allowed to request", b: "from this model", gap: 24, class: Unknown},
	// The same for an operation this model does not serve ("You are not
	// allowed to generate embeddings from this model", a 403 for a chat
	// model on /v1/embeddings): the door the client chose, not access.
	{a: "not allowed to generate", b: "from this model", gap: 24, class: Unknown},
	{a: "not allowed to access", class: Forbidden},
	{a: "no permission to access", class: Forbidden},
	// The account must be verified first (Anthropic's 400: "Identity
	// verification is required to continue."): not the request's member,
	// before the bad-input "is required". (Not "verify your identity": a
	// page the upstream fetched for the client may say it, review 29c.)
	{a: "identity verification is required", class: Forbidden},
	{a: "no permission to use", class: Forbidden},     // UCloud ModelVerse: "No permission to use the model"
	{a: "not authorized to invoke", class: Forbidden}, // Bedrock: "Your AWS account is not authorized to invoke this API operation"
	{a: "access denied", class: Forbidden},
	{a: "only authorized for use", class: Forbidden}, // a valid credential scoped to another client or use
	// A tier, plan or key that serves only its vendor's own app ("OpenCode's
	// free tier can only be used in OpenCode"): the same scoping, worded
	// for the thing scoped; not "tool_choice can only be used with tools".
	{a: "free tier can only be used", class: Forbidden}, // not "the priority tier can only be used with …", a tier the client asked for (review28)
	{a: "plan can only be used", class: Forbidden},
	{a: "subscription can only be used", class: Forbidden},
	{a: "credential can only be used", class: Forbidden},
	{a: "credentials can only be used", class: Forbidden},
	// A relay that serves only its vendor's own client ("Please use in
	// Codex. Third-party clients are not supported"): the caller is the
	// one not admitted, not a feature of the request; before the
	// capability gap's "are not supported". Only where clients are the
	// subject ("tools are not supported", "streaming is not supported for
	// this client" stay gaps).
	{a: "clients are not supported", class: Forbidden},
	{a: "third-party client is not supported", class: Forbidden},
	{a: "third party client is not supported", class: Forbidden},
	// An operation the account may not perform (AWS answers a blocked
	// account with "Operation not allowed" in a ValidationException).
	{a: "operation not allowed", class: Forbidden},
	{a: "operation is not allowed", class: Forbidden},
	// A service not offered to this kind of account ("isn't available for
	// personal accounts"); "available for paid accounts" alone advertises.
	{a: "not available for", b: "accounts", gap: 24, class: Forbidden},
	{a: "isn't available for", b: "accounts", gap: 24, class: Forbidden},
	// A feature not (yet) granted to this account or its subscription ("The
	// long context beta is not yet available for this subscription").
	{a: "not available for", b: "account", gap: 24, class: Forbidden},
	{a: "not available for", b: "subscription", gap: 24, class: Forbidden},
	// Ark, as a 404: "Accessing the model via Model ID is not allowed for
	// your account"; "not allowed for this model" is a gap.
	{a: "not allowed for", b: "account", gap: 24, class: Forbidden},
	{a: "not allowed for", b: " org", gap: 24, class: Forbidden},
	// The same for an organisation or a plan ("`service_tier` `auto` is not
	// available for this org").
	{a: "not available for", b: " org", gap: 24, class: Forbidden},  // a word: also "organization", not "gorgon"
	{a: "not available for", b: " plan", gap: 24, class: Forbidden}, // a word: not "explanation"
	// A feature not switched on for the organisation, the account or its
	// plan ("vision is not enabled for this organization"); not one a
	// model or an API version lacks (below).
	{a: "not enabled for", b: " org", gap: 24, class: Forbidden},
	{a: "not enabled for", b: "account", gap: 24, class: Forbidden},
	{a: "not enabled for", b: "subscription", gap: 24, class: Forbidden},
	{a: "not enabled for", b: " plan", gap: 24, class: Forbidden},
	{a: "not enabled for", b: " project", gap: 24, class: Forbidden},
	{a: "not yet available for", b: "subscription", gap: 24, class: Forbidden},
	{a: "not yet available for", b: "account", gap: 24, class: Forbidden},
	{a: "not available to", b: "accounts", gap: 24, class: Forbidden},
	{a: "only available for", b: "accounts", gap: 24, class: Forbidden},
	{a: "only available to", b: "accounts", gap: 24, class: Forbidden},
	// Terms an administrator must accept before the account may use the
	// model ("requires terms acceptance. Please have the org admin accept
	// the terms"): access not granted yet.
	{a: "requires terms acceptance", class: Forbidden},
	{a: "accept the terms", class: Forbidden},
	{a: "not agreed to", b: "terms", gap: 40, class: Forbidden}, // Workers AI's 5016: "User has not agreed to Llama3.2 model terms"
	// A form the account must submit before a vendor's models serve it
	// (Bedrock, as a ResourceNotFoundException 404: "Model use case details
	// have not been submitted for this account"), and an account setting a
	// model requires (Bedrock's ValidationException: "data retention mode
	// 'default' is not available for this model" until the account opts
	// in): nothing in the request can fix either, and another account or
	// vendor serves the same request, so this endpoint cools at once and
	// the walk moves on (unavailable; forbidden would stop it, review 46c).
	{a: "use case details have not been submitted", class: Unavailable},
	{a: "data retention mode", b: "not available", gap: 24, clause: true, class: Unavailable},
	// A local server that answers only callers on its own host (its guard
	// against DNS rebinding): the Host Detour sends is not granted.
	{a: "invalid host header", class: Forbidden},
}
