package classify

// gonePhrases say the model or endpoint is gone (unavailable); they rank after
// the account wording and before anything about the request (phrases.go).
var gonePhrases = []phrase{
	// unavailable: the model or endpoint is gone.
	// A model with no endpoint for a capability the request asks for (tools,
	// images) is not gone: nothing cools, the request moves on.
	// Azure API Management with no operation for the path ("Unable to match
	// incoming request to an operation."): the door the client chose, as AWS
	// API Gateway's unrouted path is (codescan.go).
	{a: "unable to match incoming request to an operation", class: Unknown},
	// An API this endpoint or its model does not serve, named before the
	// gone-model wording it also holds ("The requested model 'x' is not
	// supported with the Responses API.", OpenAI, beside code
	// model_not_found); an API switched on only from a version of the
	// endpoint's ("Azure OpenAI Responses API is enabled only for
	// api-version 2025-03-01-preview and later"), before the bad-input
	// "api-version". More below, with the gone wording they resemble.
	{a: "not supported with the responses api", class: Unknown, door: true},
	{a: "not supported with the chat completions api", class: Unknown, door: true},
	{a: "not supported with the completions api", class: Unknown, door: true},
	{a: "not supported with the embeddings api", class: Unknown, door: true},
	{a: "not supported with the assistants api", class: Unknown, door: true},
	{a: "not supported with the batch api", class: Unknown, door: true},
	{a: "api is enabled only for", class: Unknown, door: true},
	// Azure's "Azure OpenAI Responses API is not enabled in this region"
	// (a 404, code NotFound): that API, not the endpoint's others (its chat
	// serves), as above; not Google's "… API has not been used in project".
	{a: "api is not enabled in this region", class: Unknown, door: true},
	{a: "must only be called if model has it", class: Unknown, door: true}, // Baseten: "`chat_completions` must only be called if model has it." (a 404)
	{a: "not supported in the v1/", class: Unknown, door: true},            // OpenAI: "This is a chat model and not supported in the v1/completions endpoint."
	{a: "don't support text generation", class: Unknown, door: true},       // LoRAX: "Embedding models don't support text generation" (a 422 validation error)
	{a: "do not support text generation", class: Unknown, door: true},
	// A mode this endpoint insists on (the Codex backend's "Store must be
	// set to false", "Stream must be set to true"): the client's request is
	// valid elsewhere. Before the bad-input "must be"; not "logprobs must
	// be set to true if top_logprobs is set", the request at odds with itself.
	{a: "store must be set to false", class: Unknown, last: true},
	{a: "stream must be set to true", class: Unknown, last: true},
	{a: "model you requested is unavailable in", class: Unavailable}, // Snowflake Cortex: "… unavailable in your region. To access it, enable cross region inference" (the endpoint's region)
	{a: "cannot run this remote model", class: Unavailable},          // Ollama: "this server cannot run this remote model" (a cloud model on a server without it)
	{a: "no endpoints found that can handle", class: Unknown},        // OpenRouter: "… that can handle the requested parameters"
	{a: "no endpoints found that support", class: Unknown},
	{a: "no endpoints found", class: Unavailable},
	{a: "is not a valid model id", class: Unavailable},
	// The model Detour sent, named and refused (ngrok's AI Gateway:
	// "`fast-chat` isn't a valid model."); not a tool's model.
	{a: "isn't a valid model.", class: Unavailable, ourModel: true}, // the sentence ends there: not "… for batch requests" (review 29c)
	{a: "is not a valid model.", class: Unavailable, ourModel: true},
	// llama-swap, which routes by the model member: "could not find
	// suitable inference handler for x", "could not find real modelID for x".
	{a: "could not find suitable inference handler for", class: Unavailable, ourModel: true},
	{a: "could not find real modelid for", class: Unavailable, ourModel: true},
	{a: "model_not_found", class: Unavailable},
	{a: "model_not_available", class: Unavailable},
	{a: "model_decommissioned", class: Unavailable},
	{a: "decommissioned", class: Unavailable},
	// NAVER CLOVA Studio's 40082 "model fade out" (cause: model
	// deprecation; fix: change to a supported model), round 54d: a model's
	// retirement, said of a model only (an audio fade-out is the client's).
	{a: "model fade out", class: Unavailable},
	{a: "model faded out", class: Unavailable},
	{a: "model has faded out", class: Unavailable},
	// Something "no longer supported" or "deprecated" is the endpoint's
	// only where the sentence names a model, the endpoint or its API
	// (goneSubject); a feature of the request that is gone ("Live search
	// is deprecated") is a capability the next target may still have
	// (featureGonePhrases, ranked last).
	// A parameter this model no longer takes ("`temperature` is deprecated
	// for this model.", Claude Opus 4.7, direct or relayed by Bedrock as
	// "The model returned the following errors: …"): a capability other
	// models still have, before the gone wording and the parameter names.
	// Only of a member named in quotes, the sentence ending at "model": not
	// the endpoint's api-version, nor "… for this model family" (review 29b).
	{a: "is deprecated for this model", class: Unknown, last: true, quoted: true},
	{a: "is deprecated on this model", class: Unknown, last: true, quoted: true},
	{a: "is deprecated with this model", class: Unknown, last: true, quoted: true},
	{a: "model", b: "no longer", gap: 80, class: Unavailable, subject: true},
	{a: "no longer supported", class: Unavailable, goneNoun: true},
	{a: "no longer available", class: Unavailable, goneNoun: true},
	{a: "is deprecated", class: Unavailable, goneNoun: true},
	{a: "has been deprecated", class: Unavailable, goneNoun: true},
	{a: "has been taken offline", class: Unavailable, goneNoun: true}, // Z.ai's 1221: "API glm-4v has been taken offline"
	// The model member missing, not a model gone (Kong: "model parameter not
	// found in request, nor in gateway configuration"): Detour writes it,
	// as "model is required".
	{a: "model parameter not found in request", class: Unknown, vague: true},
	{a: "model not found in request", class: Unknown, vague: true}, // llm-d's scheduler: "model not found in request body"
	{a: "model", b: "not found", gap: 80, class: Unavailable},
	{a: "model", b: "does not exist", gap: 80, class: Unavailable},
	{a: "model", b: "deprecated", gap: 80, class: Unavailable},
	{a: "model", b: "retired", gap: 80, class: Unavailable},
	{a: "model", b: "is not available", gap: 80, class: Unavailable},
	// MLC: 'The requested model "X" is not served.'; "… is not served as an
	// embedding model" is the API the client chose (below).
	{a: "is not served as", class: Unknown},
	{a: "model", b: "is not served", gap: 80, class: Unavailable},
	// A model "not supported for" a capability or a kind of input (GitHub
	// Copilot: 'model "claude-opus-4.6" not supported for vision'; "… not
	// supported for streaming", "… for tool calling"): the model is served,
	// what the request asks of it is not, and another model or endpoint
	// has it (round 66, hunt 66h). Read as a gone model, one image request
	// cooled the model for every text client. Not "for your account", "for
	// your region" or "for this request": no capability follows, so the
	// gone wording below still reads them.
	{a: "model", b: "not supported for", gap: 60, clause: true, forWhat: true, class: Unknown, evidence: "phrase:model…not supported for+capability"},
	{a: "model", b: "not currently supported for", gap: 60, clause: true, forWhat: true, class: Unknown, evidence: "phrase:model…not supported for+capability"},
	{a: "model", b: "not supported", gap: 60, class: Unavailable, subject: true},
	{a: "model", b: "not currently supported", gap: 60, class: Unavailable, subject: true},
	{a: "model", b: "isn't supported", gap: 80, class: Unavailable, subject: true},
	{a: "model", b: "isn’t supported", gap: 80, class: Unavailable, subject: true},
	{a: "model", b: "not exist", gap: 80, class: Unavailable},
	{a: "model", b: "disabled", gap: 40, class: Unavailable},
	{a: "model", b: "legacy", gap: 40, class: Unavailable},
	{a: "not found the model", class: Unavailable},
	// "Unable to access model x": the model does not exist or is not
	// this key's, read as OpenAI's "does not exist or you do not have
	// access to it" is.
	{a: "unable to access model", class: Unavailable},
	{a: "at 'modelid'", class: Unavailable}, // AWS: "Value '…' at 'modelId' failed to satisfy constraint"
	{a: "模型不存在", class: Unavailable},        // model does not exist
	{a: "model identifier is invalid", class: Unavailable},
	{a: "model name is invalid", class: Unavailable}, // "… or the model name is invalid" (Google's Code Assist)
	{a: "model name format", class: Unavailable},     // Gemini: "* GenerateContentRequest.model: unexpected model name format"
	// The model name itself called malformed, in one clause (Vertex: "The
	// Model name projects/…/models/123 is malformed and it should be in form
	// of …", a tuned model's path this route does not serve): the model
	// member is Detour's, so the endpoint's; ahead of the bad-input
	// "malformed" (hunt 56d).
	{a: "model name", b: "is malformed", gap: 120, class: Unavailable, clause: true},
	{a: "model names are", class: Unavailable}, // DeepSeek: "The supported API model names are A or B, but you passed C.
	{a: "model id is invalid", class: Unavailable},
	{a: "incorrect model id", class: Unavailable}, // AIHubMix: "Incorrect model ID. Please request to view the model page …"
	{a: "unknown model", class: Unavailable},
	// An adapter (LoRA) this endpoint does not have (Triton's OpenAI
	// frontend: "Unknown LoRA: x; for model: base_lora_x", a 400): the
	// model Detour sends, with that adapter, is not served here, as an
	// unknown model is not; one the client named in its own request is the
	// client's (clientmodel.go, adapterNamed). Not a LoRA the endpoint
	// cannot take ("LoRA is not supported", a rank over its cap).
	{a: "unknown lora", class: Unavailable},
	{a: "lora adapter", b: "not found", gap: 80, clause: true, class: Unavailable},
	{a: "lora adapter", b: "does not exist", gap: 80, clause: true, class: Unavailable},
	{a: "no adapter found", class: Unavailable},
	// A key's or a team's model access list (LiteLLM: "Invalid model for
	// key", "Invalid model for team x: y. Valid models for team are: […]",
	// the latter even in a 500): access not granted, not a gone model.
	{a: "invalid model for key", class: Forbidden, word: true},
	{a: "invalid model for team", class: Forbidden, word: true},
	{a: "invalid model", class: Unavailable},
	// Laravel's wording of a value outside the allowed list, for the model
	// (Infomaniak: "The selected model is invalid.", the list of the models
	// this endpoint serves beside it).
	{a: "selected model is invalid", class: Unavailable},
	{a: "no such model", class: Unavailable},
	{a: "deployment", b: "does not exist", gap: 40, class: Unavailable},
	{a: "deployment not found", class: Unavailable},
	// The service a deployment was reached through deleted (Huawei
	// ModelArts' 4203, a 400: "Invalid request because requested service
	// <id> is unavailable."). Not read at a 5xx nor a 429, where a
	// service unavailable is load.
	{a: "requested service", b: "is unavailable", gap: 60, class: Unavailable, notRate: true},
	// Bedrock's model served only through an inference profile or
	// provisioned throughput ("The provided model doesn't support on-demand
	// throughput.", "Invocation of model ID x with on-demand throughput isn't
	// supported"): the endpoint's model id can serve no request, whatever
	// it asks.
	{a: "support on-demand throughput", class: Unavailable},
	{a: "with on-demand throughput", class: Unavailable},
	// "Endpoint x of account n not found." (SageMaker); an endpoint the
	// client named ("MCP server endpoint 'https://…' not found") is the
	// client's, as with a bare 404 (notfound.go).
	{a: "endpoint", b: "not found", gap: 80, class: Unavailable, scoped: true},
	{a: "deploymentnotfound", class: Unavailable},
	{a: "unknown deployment", class: Unavailable},
	// OpenRouter's 404 when no provider its routing allows serves the
	// model: the endpoint's, unless the client sent the preferences that
	// allow none ("provider": {"only": […]}; routing, decide.go).
	{a: "no allowed providers are available", class: Unavailable, routing: true},
	{a: "endpoint", b: "not running", gap: 80, class: Unavailable},
	// A dedicated endpoint in its failed state (Hugging Face: "Your endpoint
	// is in error, check its status on endpoints.huggingface.co"): down until
	// its owner fixes or re-creates it; in one clause. Scoped as "endpoint
	// … not found" is: an endpoint the client named is the client's (hunt
	// 56d).
	{a: "endpoint", b: "is in error", gap: 40, class: Unavailable, scoped: true, clause: true},
	{a: "no route for", class: Unavailable},
	// A gateway that holds no key serving the model it was sent (Bifrost:
	// "no keys found that support model: MiniMax-M3", a 400), or serves a
	// list the model is not on (SAP's orchestration: "Model name must be
	// one of dict_keys([…])"): the endpoint's model, not a tool's.
	{a: "no keys found that support model", class: Unavailable, ourModel: true},
	// LiteLLM's router with no deployment for the model group it was sent
	// ("You passed in model=x. There are no healthy deployments for this
	// model.", "There is no 'model_name' with this string", a 400 or a
	// 500): the endpoint's model. Not "No deployments available for
	// selected model, Try again in N seconds" (its cooldown, a 429), nor a
	// pool with no healthy provider (nodes down).
	{a: "there are no healthy deployments for this model", class: Unavailable, ourModel: true},
	{a: "there is no 'model_name' with this string", class: Unavailable, ourModel: true},
	{a: "model name must be one of", class: Unavailable, bareModel: true, opens: true},
	{a: "model must be one of", class: Unavailable, bareModel: true, opens: true},
	// A server that has no such endpoint or method (LM Studio: "Unexpected
	// endpoint or method. (POST /chat/completions)"), even in a 200: a
	// base URL this target does not serve.
	{a: "unexpected endpoint", class: Unavailable},
	{a: "unknown endpoint", class: Unavailable},
	{a: "no such endpoint", class: Unavailable},
	// An operation the host does not serve (Bedrock's 400 ValidationException
	// "The requested operation is not recognized by the service.", an
	// invoke sent to the control plane's host; round 59, hunt 59b).
	{a: "operation is not recognized", class: Unavailable},
	// A model served without a chat template (TGI: "Template error:
	// template not found"): this deployment does not serve chat for it.
	{a: "template error", b: "not found", gap: 16, class: Unavailable},
	{a: "chat template", b: "not found", gap: 16, class: Unavailable},
	{a: "no chat template", class: Unavailable},
	// A self-hosted server whose model or engine is not up (Cortex: "Model
	// is not loaded yet: X", "Engine is not loaded yet"; LM Studio: "Failed
	// to load model \"x\". Error: Error loading model."; Lemonade: "All loaded
	// models of type llm are pinned. Unload a model first.", a 409), as a 4xx:
	// the endpoint's state, which comes back by itself or by its operator,
	// as a model still loading does in a 5xx.
	{a: "is not loaded yet", class: ServerError},
	// MLServer under KServe scaling from zero: "Model sklearn-iris is not
	// ready yet." (a 400); the model, not a file the client uploaded.
	{a: "model", b: "is not ready yet", gap: 80, clause: true, class: ServerError},
	{a: "has no active replicas", class: ServerError}, // Xinference: "Model has no active replicas, uid: x" (a 400): nothing running it now
	{a: "failed to load model", class: ServerError},
	// The same in Triton's words, the model left at UNAVAILABLE ("load
	// failed for model 'x': version 1 is at UNAVAILABLE state: Internal:
	// unable to create TensorRT context", a 400; hunt 69q).
	{a: "load failed for model", class: ServerError},
	{a: "error loading model", class: ServerError},
	{a: "unload a model", class: ServerError},
	{a: "must provide a chat template", class: Unavailable}, // vLLM: "default chat template is no longer allowed, so you must provide a chat template"
	// A relay whose operator set no price for the model (one-api's forks:
	// "Model x ratio or price not set", 倍率或价格未配置): it does not serve
	// that model until configured, even as a 500.
	{a: "price not set", class: Unavailable},
	{a: "ratio not set", class: Unavailable},
	{a: "价格未配置", class: Unavailable}, // price not configured
	{a: "倍率未配置", class: Unavailable}, // ratio not configured
	{a: "could not route", class: Unavailable},
	{a: "unsupported model", class: Unavailable, subject: true},   // a gateway that does not route it: "Unsupported model X, please use models API"
	{a: "not supported model", class: Unavailable, subject: true}, // MiMo: "Not supported model X"
	{a: "doesn't support the model", class: Unavailable},
	{a: "does not support the model", class: Unavailable},
	// A gateway: "Provider openai does not support model claude-3-5-sonnet"
	// (the model Detour sent; not "Model x does not support streaming",
	// nor a tool that does not support it, nor an API: the door's).
	{a: "api does not support model", class: Unknown, door: true},
	{a: "provider", b: "does not support model", gap: 40, class: Unavailable, ourModel: true},
	// A gateway with nothing serving the model ("No provider available for
	// the requested model"); not one for what the request asks ("… that
	// supports tool calling").
	{a: "no provider available that", class: Unknown},
	{a: "no provider available", class: Unavailable},
	// The same in Helicone's AI Gateway's word order ("No available
	// providers for the requested models. Check provider names …", a
	// plain-text 400), and its feature exception as above.
	{a: "no available provider", b: "that support", gap: 48, clause: true, class: Unknown},
	{a: "no available providers for", b: "model", gap: 24, clause: true, class: Unavailable},
	{a: "provider prefix", class: Unavailable, ourModel: true}, // the endpoint's model name, not routable as configured: "Model x must be requested with a provider prefix", "must include a provider prefix"; before the bad-input "must be"
	{a: "no model found for", class: Unavailable, ourModel: true},
	// A gateway that knows no provider of the model it was sent
	// (ModelScope: "Model id : X , has no provider supported"; CLIProxyAPI:
	// "unknown provider for model X"), as "no provider available"; and one
	// that wants the model it was sent in another form (Bifrost: "model
	// should be in provider/model format"): the endpoint's configured model,
	// which Detour writes, never the client's. Before the bad-input "should
	// be in".
	{a: "has no provider supported", class: Unavailable, ourModel: true},
	{a: "unknown provider for model", class: Unavailable, ourModel: true},
	// A gateway with no provider config for the model it was sent
	// (LiteLLM's /v1/messages: "Anthropic messages provider config not
	// found for model: X", hunt 53h): the endpoint cannot serve it until
	// its operator reconfigures it. Not LiteLLM's cooldown ("No
	// deployments available for selected model, Try again in …").
	{a: "config not found for model", class: Unavailable, ourModel: true},
	{a: "provider/model format", class: Unavailable},
	{a: "non-serverless model", class: Unavailable, ourModel: true}, // Together: "Unable to access non-serverless model x … create and start a new dedicated endpoint"
	// A relay with nothing serving the model ("No available channels for model
	// X in group default", one-api's 当前分组 … 下对于模型 … 无可用渠道).
	{a: "no available channel", class: Unavailable},
	{a: "no valid channel", class: Unavailable}, // new-api: "no_valid_channel_error", as a 500 too
	{a: "no_valid_channel_error", class: Unavailable},
	{a: "failed to get config for provider", class: Unavailable}, // Bifrost: "failed to get config for provider anthropic: not found"
	{a: "无可用渠道", class: Unavailable},
	{a: "無可用管道", class: Unavailable}, // the same in new-api's zh-TW locale (管道 for 渠道)
	// new-api's "no channel" in its Korean locale ("그룹 y의 모델 x에 사용
	// 가능한 채널이 없습니다"; round 61, hunt 61d), its Japanese "price not
	// set" ("モデルxの倍率または価格が設定されていません"), AIHubMix's
	// "模型名字错误…或当前分组下对于模型无使用权限" (a 503), and a model or
	// API taken offline (Zhipu's 1221 "API x 已下线"; said of what the
	// sentence names, as "has been taken offline" is: "联网搜索功能已下线",
	// a feature, is unknown: featureGonePhrases; review 61j).
	{a: "사용 가능한 채널이 없습니다", class: Unavailable},
	{a: "倍率または価格が設定されていません", class: Unavailable},
	{a: "模型名字错误", class: Unavailable},
	{a: "已下线", class: Unavailable, goneNoun: true},
	{a: "已下線", class: Unavailable, goneNoun: true},
	// The relay's channel for it switched off (new-api: "This channel has
	// been disabled", 该渠道已被禁用, as 403s).
	{a: "channel has been disabled", class: Unavailable},
	{a: "渠道已被禁用", class: Unavailable},
	// A gateway route pinned to one model (Kong: "cannot use own model -
	// must be: gpt-3.5-turbo"): this endpoint serves no other, before the
	// bad-input "must be".
	{a: "cannot use own model", class: Unavailable},
	// A server that serves no chat until configured (TabbyAPI: "Chat
	// completions are disabled because a prompt template is not set").
	{a: "chat completions are disabled", class: Unknown},
	// A setting of the request this endpoint cannot honour (OpenRouter, Nous
	// Portal: "Reasoning is mandatory for this endpoint and cannot be
	// disabled"), even after a generic "This request is not valid".
	{a: "mandatory for this endpoint", class: Unknown},
	// A file the request points to that is still being processed (Gemini:
	// "The File x is not in an ACTIVE state and usage is not allowed.", a
	// FAILED_PRECONDITION): the client's own upload, which only this key's
	// project holds, so no other endpoint can serve it; the client waits or
	// uploads again. Nothing to cool.
	{a: "file", b: "not in an active state", gap: 40, class: BadRequest},
	// An embeddings endpoint that serves no embeddings (TEI: "Model is not
	// an embedding model"; llama.cpp started without an OAI pooling type;
	// LocalAI: "embeddings not supported by the backend").
	{a: "is not an embedding model", class: Unknown},
	{a: "pooling type", b: "not oai compatible", gap: 16, class: Unknown},
	{a: "embeddings not supported", class: Unknown},
	// The model's URI Detour sends, refused (Yandex: "invalid model_uri",
	// "Failed to parse model URI"), before the bad-input "failed to parse".
	{a: "model_uri", class: Unavailable},
	{a: "model uri", class: Unavailable},
	// Vertex: "Publisher Model `…` is not servable in region us-central1."
	{a: "not servable", class: Unavailable},
	// A Vertex endpoint with nothing deployed ("Endpoint projects/…/endpoints/N
	// doesn't have traffic_split.", a FAILED_PRECONDITION).
	{a: "doesn't have traffic_split", class: Unavailable},
	{a: "has no deployed model", class: Unavailable},
	// A model that does not serve this API at all, whatever the request holds
	// ("The model does not support Chat Completions API", Ollama's "\"bert\"
	// does not support chat"): every request of this kind fails here, but the
	// kind is the door the client chose, and an endpoint's health is kept for
	// all its doors: as unavailable, one embeddings request to a chat route
	// would cool the endpoint for every chat client. A missing API is this
	// endpoint's capability for this door, unknown: the walk moves on and
	// nothing cools (docs/behaviour.md).
	{a: "model does not support", b: "api", gap: 24, class: Unknown, door: true},
	{a: "model is only supported in", class: Unknown, subject: true, door: true}, // "This model is only supported in v1/responses and not in v1/chat/completions"
	{a: "does not support chat", class: Unknown, door: true},
	{a: "does not support generate", class: Unknown, door: true},
	{a: "does not support embedding", class: Unknown, door: true},
	// Ollama's current wording for an embedding-only model at the chat
	// endpoint ("… nomic-embed-text:latest does not support completion"),
	// the noun ending the sentence: not "completions with logprobs", not
	// "completion-only options".
	{a: "does not support completion", last: true, class: Unknown},
	// A model this service will not load at all (Hugging Face's serverless
	// API, as a 403: "The model X is too large to be loaded automatically
	// (16GB > 10GB)"); an input "too large to be loaded" is the request's.
	{a: "too large to be loaded automatically", class: Unavailable},
}

// featureGonePhrases are the same words about a feature of the request
// (goneSubject finds no model, endpoint or API before them): a capability
// the next target may still have, unknown. Ranked after every other phrase,
// so a named field ("Invalid 'tools[0].name': … is deprecated") still proves
// bad input.
var featureGonePhrases = []phrase{
	{a: "no longer supported", class: Unknown, feature: true},
	{a: "no longer available", class: Unknown, feature: true},
	{a: "is deprecated", class: Unknown, feature: true},
	{a: "has been deprecated", class: Unknown, feature: true},
	{a: "has been taken offline", class: Unknown, feature: true},
	{a: "已下线", class: Unknown, feature: true},
	{a: "已下線", class: Unknown, feature: true},
}
