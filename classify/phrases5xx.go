package classify

// fiveXXPhrases prove a class other than server_error inside a 5xx
// (server.go): only wording no server uses for its own failure. Self-hosted servers send a
// too-long prompt as a 500 (llama.cpp "the request exceeds the available
// context size", "Context size has been exceeded."; SGLang "is longer than
// the model's context length"; Ollama "the input length exceeds the context
// length"; LM Studio "… when context the overflows", "greater than the
// context length"; vLLM "too long to fit into the model"), and TGI validates
// input before it runs anything ("Input validation error: …").
var fiveXXPhrases = newPhraseSet([]phrase{
	{a: "mcp server", class: BadRequest}, // the client's connector (connectorPhrases), in a 5xx too
	{a: "connectors failed", class: BadRequest},
	// A relay whose own credentials for its upstream have died, as its 500
	// (accountPhrases has them for a 4xx): the operator must sign in again.
	{a: "re-authenticate", class: Auth, notClient: true},
	{a: "re-authentication required", class: Auth, notClient: true},
	{a: "no refresh token", class: Auth, notClient: true},
	// An account banned or unknown, whatever status carries it (Kimi Code
	// sends "unauthenticated: failed_precondition: 因违反用户协议，该账号已被禁用。"
	// and "unauthenticated: not_found: 未找到该账号，请确认是否注册" as 500s): the
	// account, never the server's failure.
	{a: "account banned", class: Auth},
	{a: "账号已被", b: "禁用", gap: 6, class: Auth},
	{a: "账户已被", b: "禁用", gap: 6, class: Auth},
	{a: "未找到该账号", class: Auth},
	{a: "failed to refresh", b: "token", gap: 24, class: Auth, notClient: true},
	{a: "context_length_exceeded", class: ContextLength},
	{a: "maximum context length", class: ContextLength},
	{a: "exceeds the available context size", class: ContextLength},
	{a: "context size has been exceeded", class: ContextLength},
	{a: "context size exceeded", class: ContextLength},
	{a: "longer than the model's context length", class: ContextLength},
	{a: "input length exceeds the context length", class: ContextLength},
	{a: "greater than the context length", class: ContextLength},
	{a: "when context the overflows", class: ContextLength},
	{a: "too long to fit into the model", class: ContextLength},
	{a: "maximum model length", class: ContextLength}, // vLLM: "longer than the maximum model length of 65536"
	{a: "maximum input length", class: ContextLength}, // "exceeds maximum input length 8192"
	{a: "prompt is too long", class: ContextLength},
	{a: "context window is full", class: ContextLength},
	{a: "exceeds the context window", class: ContextLength}, // a relay's 502, OpenAI's words (round 59, hunt 59e)
	// The account cannot pay, whatever status carried it (MiniMax sends
	// "insufficient balance (1008)" as a 500): quota, by the lead's decision
	// recorded in docs/design.md.
	{a: "insufficient balance", class: Quota},
	{a: "insufficient_balance", class: Quota},
	{a: "insufficient account balance", class: Quota},
	{a: "balance is insufficient", class: Quota},
	{a: "insufficient credit", class: Quota}, // "insufficient credits", and Upstage's singular: "API key suspended due to insufficient credit"
	{a: "insufficient funds", class: Quota},
	{a: "credit balance is too low", class: Quota},
	// A spend cap reached, relayed in a 5xx (Continue's hosted proxy answered 500
	// with Anthropic's "You have reached your specified API usage limits. You
	// will regain access on 2026-04-01 at 00:00 UTC."; round 57, hunt 57b):
	// the account's limit, as the 4xx tables read it, never the server failing.
	{a: "api usage limits", class: Quota},
	{a: "regain access on", class: Quota},
	{a: "余额不足", class: Quota},
	{a: "欠费", class: Quota},
	// A throttle said in a 5xx (AIHubMix's 503 "Rate limited by provider –
	// contact support to request higher concurrency or try again later.";
	// round 61, hunt 61a): the endpoint asks for less, as a 429 does; not
	// "rate limit script" or "rate_limit_check_failed", the limiter's own
	// failure.
	{a: "rate limited", class: RateLimited},
	{a: "官方限速", class: RateLimited}, // AIHubMix's 503 "该模型遇到官方限速,联系客服增加并发或请稍后重试"
	{a: "餘額不足", class: Quota},
	{a: "积分不足", class: Quota},
	// Access the account was not granted, relayed in a 5xx (LiteLLM's 500
	// around Bedrock's "Model access is denied due to … AWS Marketplace
	// actions"): the account's, never the server failing.
	{a: "payment instrument", class: Quota}, // the same denial "due to INVALID_PAYMENT_INSTRUMENT": the account cannot pay
	{a: "model access is denied", class: Forbidden},
	{a: "invalid model for team", class: Forbidden, word: true}, // LiteLLM's team access list, raised as a 500 with its traceback
	{a: "invalid model for key", class: Forbidden, word: true},
	// The provider's moderation stopped the output, relayed inside a 5xx
	// (OpenRouter's 502 "Upstream error from Alibaba: <400>
	// InternalError.Algo.DataInspectionFailed: Output data may contain
	// inappropriate content."): a refusal, never replayed. Only the
	// unambiguous words: "content filter" alone may name a service down.
	{a: "datainspectionfailed", class: Refusal},
	{a: "new_sensitive", class: Refusal}, // MiniMax's 1026/1027 relayed in a 500: "input new_sensitive, messages[13]'s content[2] image is sensitive"
	{a: "data_inspection_failed", class: Refusal},
	{a: "inappropriate content", class: Refusal},
	// OpenAI's cyber_policy refusal as a relay wraps it in a 5xx or in a
	// 200 whose error.code is 502 (OpenRouter: "This content was flagged
	// for possible cybersecurity risk..."): the request's, never replayed.
	{a: "flagged for possible cybersecurity risk", class: Refusal},
	// A per-request limit of the server's own configuration.
	{a: "physical batch size", class: Overflow},
	{a: "max payload size", class: Overflow}, // KoboldCpp: "Payload is too big. Max payload size is 32MB."
	{a: "too many images", class: Overflow},  // new-api's own cap, a 500: "too many images in the message, max allowed is 16"
	{a: "input validation error", class: BadRequest},
	// A self-hosted server's 500 for the client's request (llama.cpp's checks
	// and message-order checks, SGLang's message order, LocalAI's own
	// checks): the request's, which must not count against the endpoint. (A request that carries its own chat_template makes no
	// phrase evidence: pick.go.)
	{a: "roles must alternate", class: BadRequest},
	{a: "first message should be from", class: Unknown}, // Azure AI Foundry's model server, a 500: "The first message should be from the system or the user." (what this model's template takes, or the server's own rewriting: it moves on and cools nothing)
	{a: "no previous assistant message with a tool call", class: BadRequest},
	{a: "cannot use both json_schema and grammar", class: BadRequest},
	{a: "invalid value for '", class: BadRequest},
	{a: "invalid response_format", class: BadRequest},
	{a: "arguments must be valid json", class: BadRequest}, // SGLang: "Internal server error: Assistant tool call function.arguments must be valid JSON."
	{a: "messages' is required", class: BadRequest},        // llama.cpp's /v1/messages, a 500: "'messages' is required"
	// Data the client sent that does not decode (llama-server's 500
	// "Invalid base64 value" to an image_url given as a bare string): only
	// that whole sentence, or a decode failure that names the client's
	// image. Base64 the server decodes for itself ("Invalid base64 value
	// for `KEY`", Go's bare "illegal base64 data at input byte 0" from a
	// relay's stored credential) is its own failure: server_error.
	{a: "invalid base64 value", class: BadRequest, last: true},
	{a: "invalid base64 image", class: BadRequest},        // "invalid base64 image data: illegal base64 data at input byte 4"
	{a: "failed to read base64 image", class: BadRequest}, // TabbyAPI: "Failed to read base64 image input."
	{a: "failed to decode base64 image", class: BadRequest},
	// The model's own tool call broken ("llama-server returned invalid tool
	// call arguments for \"get_weather\"", Ollama's 500): like
	// tool_use_failed, what this generation did, not the server failing.
	{a: "returned invalid tool call arguments", class: Unknown},
	// Ollama's parser on the model's own call ("error parsing tool call:
	// raw='We need to list subscriptions …'", gpt-oss's Harmony prose in the
	// tool channel, a 500; round 53).
	{a: "error parsing tool call", class: Unknown},
	// What the request points to or asks of the grammar engine, failing:
	// the client's image, a schema this engine cannot take (another may).
	{a: "failed to load image", class: Unknown},
	{a: "failed to download image", class: Unknown},
	{a: "cannot identify image file", class: Unknown},
	{a: "json schema conversion failed", class: Unknown},
	// Any other exception a chat template raised ("Only user, system and
	// assistant roles are supported!", "System role not supported"): what
	// this model's template takes, which another target's may; after the
	// wordings above that say the request is malformed. (A gRPC "code =
	// InvalidArgument" a relay prints says nothing of its own: LocalAI
	// wraps its backend's load failures in it too.)
	{a: "raise_exception", class: Unknown},
	// Nothing here serves the model: no model loaded (TabbyAPI's "No models are
	// currently loaded."), or a relay without a channel for it. Not the
	// server failing under load: the endpoint cools as a gone model does. (An
	// engine asleep or a model still loading comes back by itself: those stay
	// server_error.)
	{a: "is no longer compatible with your version", class: Unavailable}, // Ollama: "'llama3.2-vision' is no longer compatible with your version of Ollama … run 'ollama pull …'" (a 500)
	{a: "no models", b: "loaded", gap: 24, class: Unavailable},
	{a: "no model", b: "loaded", gap: 16, class: Unavailable},
	{a: "no embedding models", b: "loaded", gap: 24, class: Unknown}, // TabbyAPI: "No embedding models are currently loaded." (a door's API, as above)
	// Infinity 0.0.32 given /rerank for a model it loaded as an embedder
	// ("InternalServerError: the loaded moded cannot fullyfill `rerank`.
	// options are {'embed'}", a 500; newer versions say "does not support
	// `rerank`" in a 400): the operation the door asked for, not the
	// server failing. Its own spelling, and the plain one; not a bare
	// "cannot fulfill" (an overloaded server "cannot fulfill the request").
	{a: "loaded moded cannot fullyfill", class: Unknown},
	{a: "loaded model cannot fulfill", class: Unknown},
	{a: "no available channel", class: Unavailable},
	{a: "no valid channel", class: Unavailable},
	{a: "no_valid_channel_error", class: Unavailable},
	{a: "failed to get config for provider", class: Unavailable},
	// LiteLLM's 500: "Anthropic messages provider config not found for
	// model: X" (phrasesgone.go).
	{a: "config not found for model", class: Unavailable, ourModel: true},
	// A gateway that knows no provider of the model it was sent, as in a
	// 4xx (phrasesgone.go): CLIProxyAPI's 502 "unknown provider for model
	// X" with no account loaded for it (hunt 63d).
	{a: "unknown provider for model", class: Unavailable, ourModel: true},
	{a: "has no provider supported", class: Unavailable, ourModel: true},
	{a: "unknown model:", class: Unavailable},                     // a gateway in front (TensorZero: "Unknown model: x", a 500); not "unknown model type"
	{a: "no model found for", class: Unavailable, ourModel: true}, // Targon's 503: "no model found for deepseek-ai/DeepSeek-R1"
	// LiteLLM's router with no deployment for the model (phrasesgone.go).
	{a: "there are no healthy deployments for this model", class: Unavailable, ourModel: true},
	{a: "there is no 'model_name' with this string", class: Unavailable, ourModel: true},
	{a: "has not been launched", class: Unavailable, ourModel: true},
	{a: "deprecated and no longer available", class: Unavailable, goneNoun: true}, // EPAM AI DIAL's 500: "The model associated with the deployment is deprecated and no longer available for use." // Xinference's 500: "Model qwen3 has not been launched yet" (not "is launching")
	{a: "provider prefix", class: Unavailable, ourModel: true},                    // the endpoint's model as configured: "Model name must include a provider prefix"
	// A plan that does not serve the model Detour sent (MiniMax's 2061 "your
	// current token plan not support model, MiniMax-M2.7-highspeed (2061)"
	// as a 500; round 53): forbidden in a 4xx (accountPhrases); in the
	// endpoint's own 5xx the walk moving on is the lesser harm: this
	// endpoint will not serve the model, another target may, as the Codex
	// backend's "not supported when using … account".
	{a: "plan not support", b: "model", gap: 8, class: Unavailable, ourModel: true},
	{a: "model", b: "does not exist", gap: 80, class: Unavailable}, // LocalAI's 500: "llama: model does not exist gpt: model does not exist …"
	{a: "无可用渠道", class: Unavailable},
	{a: "無可用管道", class: Unavailable},             // new-api's zh-TW locale: "分組 default 下模型 x 無可用管道（distributor）"
	{a: "사용 가능한 채널이 없습니다", class: Unavailable},   // new-api's ko locale (round 61, hunt 61d)
	{a: "倍率または価格が設定されていません", class: Unavailable}, // new-api's ja locale: "price not set"
	{a: "模型名字错误", class: Unavailable},            // AIHubMix's 503: the model's name wrong, or no right to it in the group
	{a: "price not set", class: Unavailable},
	{a: "ratio not set", class: Unavailable},
	{a: "价格未配置", class: Unavailable},
	{a: "倍率未配置", class: Unavailable},
	// An API this server or model does not serve at all (llama-server
	// started without --embeddings answers a 501 "This server does not
	// support embeddings"): every request of the kind fails here, as
	// gonePhrases has it for a 4xx.
	{a: "model does not support", b: "api", gap: 24, class: Unknown},
	{a: "does not support chat", class: Unknown},
	{a: "does not support generate", class: Unknown},
	{a: "does not support embedding", class: Unknown},
	{a: "does not support completion", last: true, class: Unknown},
	{a: "embeddings not supported", class: Unknown}, // LocalAI: "embeddings not supported by the backend", a 500
	// gRPC's UNIMPLEMENTED from a backend (LocalAI: "rpc error: code =
	// Unimplemented desc = ", a 500): the operation is not served there,
	// which another endpoint may serve; not the server failing.
	{a: "code = unimplemented", class: Unknown},
	// The same in words (new-api: "not implemented (request id: …)", a 500
	// for a model its channel cannot convert; round 55): not a failure that
	// passes. Python's NotImplementedError, one word, is not matched.
	{a: "not implemented", word: true, class: Unknown},
	// CLOVA Studio's 501 50100 "Not yet implemented" (an API it does not
	// serve; round 58, hunt 58a), in the same words.
	{a: "not yet implemented", class: Unknown},
	// A capability this server lacks (an image to a model loaded without
	// its projector, tools to a server started without templates): the
	// request moves on and nothing cools.
	{a: "is not supported", class: Unknown},
	{a: "does not support", class: Unknown},
	{a: "unsupported param", class: Unknown}, // llama-server: "Unsupported param: tools", as a 500
	{a: "cannot use tools", class: Unknown},  // llama-server: "Cannot use tools with stream"
	// llama-server's other refusals of what the request asks, thrown as a
	// 500: "Only one completion choice is allowed" (n > 1), "Only no echo
	// is supported" (round 59, hunt 59a). Not "only one request …": a
	// server taking one at a time is the server's.
	{a: "only one completion choice", class: Unknown},
	{a: "only no echo is supported", class: Unknown},
	// Its chat parser failing on the model's own output ("Failed to parse
	// input at pos 0: <|channel|>"): proves neither side, as Ollama's
	// "error parsing tool call" (round 59, hunt 59a).
	{a: "failed to parse input at pos", class: Unknown},
	// llama-server: "Failed to parse messages: Unsupported content part
	// type: \"image_url\"; messages = …", a 500 (a text-only model; its
	// reason is read without the dump, facts.go messagesDump).
	{a: "unsupported content part type", class: Unknown},
	// nlohmann::json's parse error (llama-server's 500
	// "[json.exception.parse_error.101] parse error at line 3, column 20:
	// syntax error while parsing object …", hunt 54d): the server could not
	// parse what it was sent, not its own failure; but a relay may be the
	// one that failed to parse its upstream's answer: unknown, not
	// bad_request.
	{a: "json.exception.parse_error.", class: Unknown, prefix: true},
	// Fetching what the request points to timed out, a URL between ("Failed
	// to download https://…: ConnectTimeoutError"): the client's slow host,
	// before the server's own timeout wording below.
	{a: "download", b: "timeout", gap: 120, class: Unknown, clientThing: true},
	{a: "download", b: "timed out", gap: 120, class: Unknown, clientThing: true},
	{a: "fetch", b: "timeout", gap: 120, class: Unknown, clientThing: true},
	{a: "fetch", b: "timed out", gap: 120, class: Unknown, clientThing: true},
	{a: "requires", b: "flag", gap: 16, class: Unknown},
	{a: "image", b: "unknown format", gap: 12, class: Unknown},
	// A model packaged without what a medium needs (Ollama's 500 "Failed to
	// create new sequence: failed to process inputs: this model is missing
	// data required for image input"): the model's gap for this request,
	// as the same words in a 4xx are, not the server's failure (round 56,
	// hunt 56a).
	{a: "missing data required", class: Unknown},
})

// timeoutPhrases decide an explicit upstream timeout inside a 5xx.
var timeoutPhrases = newPhraseSet([]phrase{
	{a: "deadline exceeded", class: Timeout},
	{a: "deadline_exceeded", class: Timeout},
	{a: "timed out", class: Timeout},
	{a: "gateway timeout", class: Timeout},
	{a: "upstream request timeout", class: Timeout},
	{a: "request timeout", class: Timeout},
	{a: "response timeout", class: Timeout},      // DashScope's RequestTimeOut: "Response timeout!"
	{a: "first byte timeout", class: Timeout},    // Fastly: "Error 503 first byte timeout"
	{a: "between bytes timeout", class: Timeout}, // Fastly
	{a: "timeout occurred", class: Timeout},
	{a: "deadline expired", class: Timeout},
	{a: "timeout after", class: Timeout},      // the server's own timer: "Decode wall clock timeout after 600s"
	{a: "connection timeout", class: Timeout}, // Envoy: "reset reason: connection timeout", its upstream unreached in time (as a 522)
	{a: "connect timeout", class: Timeout},
	// Go's transport timers in a relay's 500 ("do request failed: Post
	// \"https://api.moonshot.cn/…\": net/http: TLS handshake timeout",
	// "dial tcp …: i/o timeout"): its upstream not reached in time.
	{a: "handshake timeout", class: Timeout},
	{a: "i/o timeout", class: Timeout},
	// Tornado's HTTP client timers, HTTPTimeoutError(599, …), in a proxy's
	// 5xx (LLM Foundry's "HTTP 599: Timeout in request queue", "Timeout
	// while connecting"; round 57, hunt 57c). Exact: a 400's "Timeout while
	// downloading <url>" is the client's URL, and never read here.
	{a: "timeout in request queue", class: Timeout},
	{a: "timeout while connecting", class: Timeout},
	{a: "timeout during request", class: Timeout},
})

// dependencyPhrases say, in a 424 whose words decided nothing else, that
// what the endpoint depends on failed or cannot be reached (OpenGateLLM's
// "Model provider not reachable."): the endpoint's, server_error. 424's
// default stays unknown (Bedrock's ModelErrorException: the model's own
// output). Round 57, hunt 57c.
var dependencyPhrases = newPhraseSet([]phrase{
	{a: "dependency failed", class: ServerError},
	{a: "not reachable", class: ServerError},
	{a: "unreachable", word: true, class: ServerError},
})

// reasonPhrases are 424's own reason phrase, which a body that says
// nothing else may carry alone (UiPath's LLM Gateway's RFC 7807
// {"title":"Failed dependency","status":424}); beside any other words it is
// only the envelope's title (a problem's detail decides).
var reasonPhrases = newPhraseSet([]phrase{
	{a: "failed dependency", class: ServerError},
})

// failedDependency reads a 424 the default left unknown (v): for
// dependencyPhrases in the answer's texts (its first htmlScan bytes where
// it has none), and for reasonPhrases where it has no text at all; not
// where the words are the client's (echoed), nor where a text names a URL
// the client sent (its host, not the endpoint's dependency).
func failedDependency(v Verdict, f *facts, body, req []byte, model string) Verdict {
	ts := textScan{f: f, req: req, model: model}
	set := dependencyPhrases
	if !f.parsed || f.nTexts == 0 {
		ts.f, ts.body = nil, quotedCut(body[:min(len(body), htmlScan)])
		if f.parsed {
			set = reasonPhrases
		}
	}
	i := ts.pick(set, 0)
	if i >= len(set.list) || ts.clientURL() {
		return v
	}
	return Verdict{Failed: true, Class: ServerError, Evidence: set.list[i].evidence}
}
