package classify

// accountPhrases: a rejected key, access not granted, money. They outrank
// everything about the model or the request.
var accountPhrases = []phrase{
	// auth: the credential is rejected.
	{a: "incorrect api key provided", class: Auth},
	{a: "invalid x-api-key", class: Auth},
	{a: "invalid api key", class: Auth},
	{a: "invalid api-key", class: Auth},
	// "please check the api-key you provided" (Baseten, as a 403): the key
	// sent is the one at fault.
	{a: "check the api key you provided", class: Auth},
	{a: "check the api-key you provided", class: Auth},
	{a: "api key you provided is invalid", class: Auth},
	{a: "api-key you provided is invalid", class: Auth},
	{a: "api key not valid", class: Auth},
	{a: "api key is invalid", class: Auth},
	{a: "api key is not valid", class: Auth}, // before the bad-input "is not valid"
	{a: "api key expired", class: Auth},
	{a: "api key has expired", class: Auth},
	{a: "api key was revoked", class: Auth},
	{a: "api key has been revoked", class: Auth},
	// An OAuth or access token of the account's, revoked (Anthropic, a 403
	// permission_error: "OAuth token has been revoked. Please obtain a new
	// token."): the credential is dead, not a permission it lacks.
	{a: "token has been revoked", class: Auth, notClient: true},
	{a: "token was revoked", class: Auth, notClient: true},
	// A credential of the wrong kind for this API (GitHub Copilot: "bad
	// request: Personal Access Tokens are not supported for this endpoint"):
	// no request made with it can succeed; before the gap's "are not
	// supported".
	{a: "access tokens are not supported", class: Auth},
	// A gateway in front that holds no key for its upstream (TensorZero: "API
	// key missing for provider openai: Environment variable … is missing");
	// not one it expected the client to send ("… Dynamic api key `x` is
	// missing": the request left out its credentials).
	{a: "dynamic api key", class: Unknown},
	{a: "api key missing", class: Auth},
	{a: "api key is missing", class: Auth},
	{a: "security token included in the request is invalid", class: Auth},
	{a: "security token included in the request is expired", class: Auth},
	// The same AWS sentence for the services signed in with an SSO or OAuth
	// token instead (CodeWhisperer, behind Kiro, as a 403: "The bearer token
	// included in the request is invalid."): the login the operator holds
	// is dead, not a permission it lacks.
	{a: "bearer token included in the request is invalid", class: Auth},
	{a: "request signature we calculated does not match", class: Auth},
	// AWS's clock skew, in the body alone ("Signature expired: 20250130T203827Z
	// is now earlier than 20250130T204340Z (… - 5 min.)", a 403 without its
	// x-amzn-ErrorType): the signing of the credential, not access.
	{a: "is now earlier than", class: Auth, notClient: true},
	// The API key written as one word (apiKey, APIKEY), as many vendors
	// spell their parameter, and a key or access key (AK) blocked for good.
	{a: "invalid apikey", class: Auth},
	{a: "apikey is invalid", class: Auth},
	{a: "apikey not valid", class: Auth},
	{a: "apikey has expired", class: Auth}, // Baichuan's 10102, in its {"code","msg"} envelope
	// A key whose owner has left the key's organization: the key is dead,
	// whatever the 403 or permission_error says (OpenAI: "You do not have
	// access to the organization tied to the API key."; Anthropic: "Account
	// is no longer a member of the organization associated with this
	// token."), not an organization without access to one model.
	{a: "organization tied to the api key", class: Auth},
	{a: "no longer a member of the organization", class: Auth},
	// What the key Detour holds needs beside it ("anthropic-workspace-id is
	// required when authenticating with an identity-linked API key"): the
	// credential as configured cannot work. Only the key's own words: what
	// a client's connector, OAuth flow or prompt needs "when authenticating
	// with" it is the client's (review 29b).
	{a: "when authenticating with an identity-linked", class: Auth, notClient: true},
	// The same header, other words: "This API key is not scoped to a
	// workspace, so this request must include the anthropic-workspace-id
	// header …", and a configured id that is wrong ("anthropic-workspace-id
	// header must be a valid workspace ID"). No client request carries it.
	{a: "anthropic-workspace-id header", class: Auth, notClient: true},
	// A token without the scope to call this provider's models at all
	// (Hugging Face's router: "This authentication method does not have
	// sufficient permissions to call Inference Providers on behalf of user
	// …"), as Google's ACCESS_TOKEN_SCOPE_INSUFFICIENT: not one gated model.
	{a: "authentication method does not have sufficient permissions", class: Auth},
	{a: "apikey expired", class: Auth},
	{a: "api_key has expired", class: Auth},
	{a: "api-key has expired", class: Auth},
	{a: "key has been blocked", class: Auth},
	{a: "ak has been blocked", class: Auth},
	{a: "key is blocked", class: Auth},
	// A request signature (HMAC over the request, AK/SK or SecretId
	// signing) that the provider computed otherwise: the credential's
	// signing is rejected. "Calculated" ties it to request signing, not to
	// a thinking block's signature the client sends back (bad input).
	{a: "signature calculated", class: Auth},
	{a: "calculated signature", class: Auth},
	{a: "signature we calculated", class: Auth},
	// Baidu's 110/111: "Access token invalid or no longer valid", "Access
	// token expired" (the OAuth token Detour holds for the account).
	{a: "access token invalid", class: Auth},
	{a: "iam certification failed", class: Auth}, // Baidu's error_code 14: the AK/SK signature rejected
	{a: "access token expired", class: Auth},
	{a: "鉴权失败", class: Auth},   // authentication failed
	{a: "认证失败", class: Auth},   // authentication failed
	{a: "签名验证失败", class: Auth}, // signature verification failed
	{a: "签名校验失败", class: Auth}, // signature check failed
	{a: "invalid subscription key", class: Auth},
	{a: "invalid authentication", class: Auth},
	{a: "invalid bearer token", class: Auth},
	// The token the Authorization header carried (Requesty's router 403
	// "Invalid authorization token"; round 58, hunt 58b). A token of the
	// client's own resource ("… for MCP server 'notion'") is the client's:
	// "mcp server" outranks it, and a URL the client sent makes it none.
	{a: "invalid authorization token", class: Auth, notClient: true},
	{a: "no auth credentials found", class: Auth},
	{a: "didn't provide an api key", class: Auth},
	{a: "did not provide an api key", class: Auth},
	{a: "missing authentication", class: Auth},
	{a: "unregistered callers", class: Auth},
	{a: "authentication failed", class: Auth},
	{a: "authentication error", class: Auth},       // Cloudflare's 10000 "Authentication error", as a 403
	{a: "authentication is disabled", class: Auth}, // Azure: "Key based authentication is disabled for this resource"
	// Cloudflare's 10001 for a bad or revoked API token, as a 400: "Unable
	// to authenticate request" (its numeric codes are not read). Not "unable
	// to authenticate with" a server the client's connector names.
	{a: "unable to authenticate request", class: Auth, notClient: true},
	// OCI's one 404 for a missing IAM policy and a missing model alike
	// ("Authorization failed or requested resource not found."): never a bad
	// key, so not auth; the endpoint's, as its 404 says.
	{a: "authorization failed or requested resource not found", class: Unavailable},
	{a: "authorization failed", class: Auth},
	{a: "organization has been disabled", class: Auth},
	{a: "organization has been restricted", class: Auth},
	{a: "account has been restricted", class: Auth},
	{a: "reported as leaked", class: Auth},
	{a: "organization has been deactivated", class: Auth},
	{a: "account has been disabled", class: Auth},
	// The same in Chinese (Kimi Code: "因违反用户协议，该账号已被禁用。", "已被暂时禁用";
	// "未找到该账号，请确认是否注册", an account that does not exist). In a 5xx too
	// (fiveXXPhrases).
	{a: "账号已被", b: "禁用", gap: 6, class: Auth},
	{a: "账户已被", b: "禁用", gap: 6, class: Auth},
	{a: "未找到该账号", class: Auth},
	{a: "account has been deactivated", class: Auth},
	{a: "account is disabled", class: Auth},
	{a: "account has been suspended", class: Auth},
	{a: "not authenticated", class: Auth},              // FastAPI's HTTPBearer: {"detail":"Not authenticated"}
	{a: "access has been disabled", class: Auth},       // "API access has been disabled for this account"
	{a: "access was terminated", class: Auth},          // OpenAI's access_terminated: "Your access was terminated due to violation of our policies", as a 429
	{a: "project has been denied access", class: Auth}, // Google: "Your project has been denied access. Please contact support." (a project shut out, as CONSUMER_SUSPENDED)
	{a: "does not match resource tenant", class: Auth}, // Entra ID: "Token tenant … does not match resource tenant." (Detour's token, from another tenant)
	// Kimi Code's ban: "Access terminated. Review our Community Guidelines
	// … or contact support". The words open the message: its type
	// access_terminated_error also comes with a coding-agent whitelist
	// (forbidden) and a weekly cap (quota), which say other words.
	{a: "access terminated", class: Auth, opens: true},
	// An end user the client named (its user id) locked for violations
	// (Z.ai: "Terminal user has violation, account has been locked",
	// 终端用户存在违规行为，账号已被锁定): that user's requests are refused, the
	// account is not; a refusal, which cools nothing and is not replayed.
	{a: "terminal user", b: "violation", gap: 12, class: Refusal},
	{a: "终端用户", b: "违规", gap: 12, class: Refusal},
	// An account locked, frozen, banned, missing or inactive (Zhipu's 1110-1121,
	// sent as 429s); "账户已被临时锁定" (locked for a while, a throttle's) is
	// none of these words.
	{a: "账户已被锁定", class: Auth},
	{a: "账号已被锁定", class: Auth},
	{a: "账户已被冻结", class: Auth},
	{a: "账号已被冻结", class: Auth},
	{a: "账户已被封禁", class: Auth},
	{a: "账号已被封禁", class: Auth},
	{a: "账户不存在", class: Auth},
	{a: "账号不存在", class: Auth},
	{a: "账户", b: "非活动", gap: 12, class: Auth}, // "您的账户当前处于非活动状态"
	// The same in English (Z.ai's 1110-1121, as 429s); not "temporarily
	// locked", a throttle's.
	{a: "account is currently inactive", class: Auth},
	{a: "account does not exist", class: Auth},
	{a: "account has been locked", class: Auth},
	{a: "and has been locked", class: Auth},      // "Account has irregular activities and has been locked"
	{a: "appid", b: "黑名单", gap: 12, class: Auth}, // Spark's 10015: "appid在黑名单中", the app id (the credential) blacklisted
	{a: "用户已被封禁", class: Auth},                   // one-api/new-api: the user behind the key banned
	// The same in new-api's other locales (round 61, hunt 61d: zh-TW
	// "使用者已被封禁", also AIHubMix's zh-Hant table; ko "사용자가
	// 차단되었습니다."; ja "ユーザーはBANされています"), a 403 each; not
	// those in cased scripts (ru, fr: above, "餘額不足").
	{a: "使用者已被封禁", class: Auth},
	{a: "사용자가 차단되었습니다", class: Auth},
	{a: "ユーザーはbanされています", class: Auth},
	// The relay key's group or team gone or suspended (round 61, hunt
	// 61e: sub2api's GROUP_DELETED and GROUP_DISABLED, "API Key 所属分组已
	// 删除", "… 已停用", as TokenFlux's error table shows them, a 403 each;
	// its team states "团队已暂停", "团队成员关系已失效", "团队密钥所属成员
	// 已停用", "团队付款所有者已停用"): the key is dead for every model,
	// as a banned user's is.
	{a: "所属分组已删除", class: Auth},
	{a: "所属分组已停用", class: Auth},
	{a: "团队已暂停", class: Auth},
	{a: "成员关系已失效", class: Auth},
	{a: "所属成员已停用", class: Auth},
	{a: "付款所有者已停用", class: Auth},
	// iFlow's "API Key 无效" (its error table; "API key 无效或已停用" in a
	// published answer): the key Detour sends.
	{a: "api key 无效", class: Auth, notClient: true},
	// A key the relay holds for the caller, off (Bifrost: "Virtual key is
	// inactive", "Virtual key has expired", as 403s), and the team it
	// belongs to gone (LiteLLM: "Team doesn't exist in db", as a 404).
	{a: "virtual key is inactive", class: Auth},
	{a: "virtual key has expired", class: Auth},
	{a: "team doesn't exist", class: Auth},
	// No credential reached the provider ("Authorization header is missing",
	// "Missing Authorization header"): the operator's key, even as 403.
	{a: "authorization header", b: "missing", gap: 12, class: Auth},
	{a: "missing", b: "authorization header", gap: 12, class: Auth},
	{a: "missing `authorization`", class: Auth}, // before the bad-input "missing `" (a member the request left out)
	{a: "no authorization header", class: Auth}, // Azure: "No authorization header present" (the key Detour sends, or none configured)
	// The credential header could not be checked (Huawei ModelArts' 4905:
	// "Failed to check the authorization request header.", a 400 its
	// reference gives for a key wrong or absent).
	{a: "failed to check the authorization", class: Auth, notClient: true},
	// A credential header the provider cannot read at all (Gemini's
	// OpenAI-compatible endpoint: "Invalid Authorization header.", a 400):
	// Detour writes that header from the operator's key, so the key is
	// empty or malformed. Not a token the client declared for a tool (an
	// MCP server's "authorization token").
	{a: "invalid authorization header", class: Auth, notClient: true},
	// "Missing required header: Authorization" (or "… header parameter:
	// x-api-key"): the key Detour sends, before the adapter's "missing
	// required header"; not where the text names a URL the client sent (its
	// resource's header, review28f).
	{a: "required header", b: "authorization", gap: 16, class: Auth, notClient: true},
	{a: "required header", b: "x-api-key", gap: 16, class: Auth, notClient: true},

	// forbidden, strong: a routing policy of the account, not a gone model.
	// OpenRouter's "No endpoints found matching your data policy (Zero data
	// retention)": the account's privacy settings, unless the client's
	// request asked it ("provider": {"zdr": true}; routing, decide.go).
	{a: "data policy", class: Forbidden, routing: true},
	// An anti-bot challenge this client has not passed (ChatGPT's web
	// backend's 418 "Client challenge required", DuckDuckGo AI Chat's 418
	// ERR_CHALLENGE): access not granted from here, as Cloudflare's managed
	// challenge; at a 4xx (round 57, hunt 57c).
	{a: "challenge required", class: Forbidden},
	{a: "challenge_required", class: Forbidden},
	{a: "err_challenge", class: Forbidden},
	// Access granted by a list the provider keeps ("You can get access …
	// through an allowlist"): the account is not on it. Before the weak
	// "billing" a way out may name.
	{a: "allowlist", class: Forbidden},
	{a: "allow list", class: Forbidden},
	{a: "whitelist", class: Forbidden},
	{a: "白名单", class: Forbidden}, // whitelist
	// No right to use or reach a model, a group or an operation (round 61,
	// hunt 61d): one-api's "该令牌无权使用模型：x" (FastGPT#3894's 403, and
	// AIHubMix's table), new-api's "该令牌无权访问模型 x", "无权访问 vip
	// 分组", AIHubMix's "无权进行此操作,权限不足", Zhipu's "您无权访问 x";
	// Traditional 無權使用 / 無權存取. The relay key's allowed networks
	// (new-api's "您的 IP 不在令牌允许访问的列表中", one-api's "该令牌只能在
	// 指定网段使用").
	// A model or an endpoint id that "does not exist, or you have no
	// access to it" (Volcengine Ark's InvalidEndpointOrModel.NotFound in
	// Chinese: "模型或者推理接入点不存在或者您无权访问它。"): the endpoint's
	// gone model, as its English twin reads (review 61j).
	{a: "不存在或", b: "无权访问", gap: 12, class: Unavailable},
	{a: "无权使用", class: Forbidden},
	{a: "無權使用", class: Forbidden},
	{a: "无权访问", class: Forbidden},
	{a: "無權存取", class: Forbidden},
	{a: "无权进行", class: Forbidden},
	{a: "允许访问的列表", class: Forbidden},
	{a: "指定网段", class: Forbidden},
	{a: "黑名单", class: Forbidden}, // blacklist (an IP, a region); the app id's is auth, above
	{a: "does not have access to model", class: Forbidden},
	// A model the account has not switched on ("Your account … has not
	// activated the model X. Please activate the model service", 未开通):
	// the operator can enable it in the console; not a gone model.
	{a: "has not activated the model", class: Forbidden},
	{a: "activate the model service", class: Forbidden},
	{a: "unavailable for account", class: Forbidden}, // Workers AI's 3023: "Service unavailable for account" (the account blocked), before "service unavailable"
	{a: "unavailable for your account", class: Forbidden},
	{a: "billing country", class: Forbidden}, // Google: "restricted from your billing country": where the account is, before the weak "billing"
	{a: "organization must be verified", class: Forbidden},
	// An Azure resource blocked for its conduct ("Your resource has been
	// temporarily blocked because we detected behavior that may violate our
	// content policy"): every request is refused, not this content.
	{a: "resource has been temporarily blocked", class: Forbidden},
	{a: "resource has been blocked", class: Forbidden},
	// A plan that does not include the model (Ark: "The X model does not
	// support the coding plan feature", as a 404); not a planning tool.
	{a: "does not support the", b: " plan ", gap: 16, class: Forbidden},
	// A model the account's plan does not include (Nous Portal: "Model
	// 'gpt-5' is not available on the Free Tier. Upgrade …", as a 404):
	// before the gone wording "model … is not available".
	{a: "not available", b: "free tier", gap: 12, class: Forbidden},
	{a: "not available", b: "subscription tier", gap: 16, class: Forbidden}, // Mistral's 1910 tier_not_allowed: "This model is not available in your subscription tier"
	// The Codex backend's model gate for a kind of account ("The 'gpt-5.1-codex'
	// model is not supported when using Codex with a ChatGPT account.", a 400):
	// this endpoint cannot serve the model, an API-key endpoint of the same
	// target can, so unavailable and the walk moves on, as Copilot's
	// integrator gate (round 47); forbidden would stop it (round 52).
	{a: "not supported when using", b: "account", gap: 40, class: Unavailable, ourModel: true},
	// A plan or a key that does not cover the model or the use (Z.ai's 1311
	// "Your current subscription plan does not yet include access to
	// GLM-5", 1315 "This API Key is limited to enterprise coding package
	// scenarios", both as 429s); not a key "limited to 50 requests per
	// minute". A relay's key without the model ("Model not allowed. The
	// requested model 'x' is not in the allowed list").
	{a: "does not yet include access", class: Forbidden, ourModel: true},
	// The same, the plan first: MiniMax's 2061 "your current token plan not
	// support model, MiniMax-M2.7-highspeed (2061)" (round 53; a 5xx is
	// unavailable, phrases5xx.go), the mirror of Ark's "does not support the
	// coding plan".
	{a: "plan not support", b: "model", gap: 8, class: Forbidden, ourModel: true},
	{a: "does not include access to", class: Forbidden, ourModel: true},
	{a: "limited to", b: "scenarios", gap: 40, class: Forbidden},
	{a: "model not allowed", class: Forbidden, ourModel: true},
	// A plan that serves the model nowhere ("no endpoints available for
	// this model under your current plan and policies", GitHub Copilot), a
	// model behind a higher plan ("Model requires a Pro subscription",
	// Hugging Face's router, as a 400).
	{a: "no endpoints available", b: "under your current plan", gap: 40, class: Forbidden},
	{a: "model requires a", b: "subscription", gap: 16, class: Forbidden},
	// A seat the account lacks (Gemini Code Assist: "You must be a named
	// user on your organization's Gemini Code Assist Standard edition
	// subscription … request an entitlement", also relayed inside a 429).
	{a: "named user on", b: "subscription", gap: 64, class: Forbidden},
	{a: "request an entitlement", class: Forbidden},
	// A relay whose own credentials for its upstream have died (community
	// proxies in front of subscriptions: "Failed to refresh Codex token.
	// Please re-authenticate.", "Token revoked - re-authentication
	// required", "No active credentials for provider: x").
	{a: "re-authenticate", class: Auth, notClient: true},
	{a: "re-authentication required", class: Auth, notClient: true},
	{a: "no refresh token", class: Auth, notClient: true},

	{a: "disabled in this account for violation", class: Auth}, // Google: "Gemini has been disabled in this account for violation of Terms of Service", a 403 (not a feature "disabled in this account")
	{a: "failed to refresh", b: "token", gap: 24, class: Auth, notClient: true},
	{a: "no active credentials for", class: Auth},
	{a: "no credentials for embedding provider", class: Auth, notClient: true}, // OmniRoute's embeddings: "No credentials for embedding provider: gemini" (not a provider the client picks, review 29c)
	// A gateway asked for a stored provider key (BYOK) it does not hold
	// (Cloudflare AI Gateway's 2040: "Provider 'google-ai-studio' has no
	// BYOK credential named 'x'. Configured aliases: …", as a 400): the
	// alias is the operator's configuration, the key the operator's; no
	// client can mend it.
	{a: "no byok credential", class: Auth, notClient: true},
	// A gateway in front without a key of its own for the provider ("No API
	// key set for provider: anthropic", LLM Gateway).
	{a: "no api key set", class: Auth},
	{a: "couldn't find a secret", class: Auth}, // Continue's hub proxy: "We couldn't find a secret with the name \"MISTRAL_API_KEY\""
	{a: "not available", b: "free plan", gap: 12, class: Forbidden},
	{a: "not available", b: "your plan", gap: 12, class: Forbidden},
	{a: "not available", b: "current plan", gap: 16, class: Forbidden},
	// The account's identity not yet verified (用户未实名，请先进行实名认证, Hunyuan).
	{a: "未实名", class: Forbidden},
	{a: "实名认证", class: Forbidden},
	{a: "location is not supported", class: Forbidden},
	{a: "not available in your country", class: Forbidden},
	{a: "not available in your region", class: Forbidden},
	{a: "country, region, or territory not supported", class: Forbidden},
	{a: "unsupported countries", class: Forbidden}, // Bedrock's Anthropic models: "not allowed from unsupported countries, regions, or territories"
	{a: "unsupported_country_region_territory", class: Forbidden},

	// quota, strong: the account cannot pay or its allowance is spent.
	{a: "credit balance is too low", class: Quota},
	{a: "balance is too low", class: Quota},  // Nous Portal: "Your account balance is too low to use paid models", as a 404
	{a: "quota is not enough", class: Quota}, // new-api: "token quota is not enough, token remain quota: …"
	// An allowance used up: new-api's "This token quota is exhausted" (a
	// relay key's own quota, at a 401 or 403), Huawei MaaS's "The free
	// quota has been used up." (a 401). Weak and passed over at a 429,
	// where a quota "exhausted" may be a minute's.
	{a: "quota is exhausted", class: Quota, weak: true, notRate: true},
	{a: "quota has been exhausted", class: Quota, weak: true, notRate: true},
	{a: "quota has been used up", class: Quota, weak: true, notRate: true},
	{a: "have enough quota", class: Quota, weak: true}, // CoAI (chatnio): "You don't have enough quota to use this model. please buy or subscribe …"
	{a: "payment instrument", class: Quota},            // Bedrock: "Model access is denied due to INVALID_PAYMENT_INSTRUMENT: A valid payment instrument must be provided."
	{a: "credit card on file", class: Quota},           // Vercel: "AI Gateway requires a valid credit card on file to service requests"
	// A free or daily allocation used up (Cloudflare's 4006: "you have used
	// up your daily free allocation of 10,000 neurons").
	{a: "daily", b: "allocation", gap: 24, class: Quota},
	{a: "monthly", b: "allocation", gap: 24, class: Quota},
	// A day's allowance (Zhipu's 1304: "该 API 已达今日调用次数限额", today's
	// call limit; Spark's 11201: "日流控超限。超过当日最大访问量的限制", the
	// day's flow control): before the flow-control wording of a short one.
	{a: "今日", b: "限额", gap: 30, class: Quota},
	{a: "当日", b: "限制", gap: 30, class: Quota},
	{a: "日流控", class: Quota},
	{a: "workspace api usage limits", class: Quota},
	{a: "api usage limits", class: Quota},
	{a: "insufficient_quota", class: Quota},
	{a: "insufficient quota", class: Quota},
	{a: "insufficient balance", class: Quota},
	{a: "insufficient_balance", class: Quota},
	{a: "insufficient account balance", class: Quota},
	{a: "insufficient credit", class: Quota}, // "insufficient credits", and Upstage's singular: "API key suspended due to insufficient credit"
	{a: "insufficient funds", class: Quota},
	{a: "insufficient budget", class: Quota}, // OpenGateLLM's 400: "Insufficient budget." (the key's budget spent)
	// A relay key's quota spent, in every language one-api and new-api
	// write it: their marker "TokenStatusExhausted[sk-…]" follows the
	// localized words.
	{a: "tokenstatusexhausted", class: Quota},
	{a: "not enough credits", class: Quota},
	{a: "requires more credits", class: Quota},
	{a: "out of credits", class: Quota},
	{a: "no remaining credits", class: Quota}, // Abacus.AI's 400: "You have no remaining credits to use the LLM apis."
	{a: "no credits remaining", class: Quota}, // Continue's proxy (402): "You have no credits remaining …"
	{a: "run out of credits", class: Quota},
	{a: "credits exhausted", class: Quota},
	{a: "credit limit", class: Quota},
	{a: "can only afford", class: Quota},
	// A status's reason phrase: no evidence beside a URL the client sent
	// ("Failed to download https://img…: 402 Payment Required": the
	// client's host, review 32a).
	{a: "payment required", class: Quota, notClient: true},
	{a: "spend limit", class: Quota},
	{a: "spending limit", class: Quota},
	{a: "spend cap", class: Quota},
	{a: "budget exceeded", class: Quota},
	// A cap with its amount between ("Workspace monthly budget of $500.00
	// exceeded", OpenRouter's 403; round 59, hunt 59g): the dollar sign
	// keeps it off a thinking budget's tokens.
	{a: "budget of $", b: "exceeded", gap: 24, class: Quota},
	{a: "budget of $", b: "reached", gap: 24, class: Quota},
	{a: "budget has been exceeded", class: Quota},
	{a: "exceeded budget", class: Quota}, // "Exceeded budget for provider openai"
	{a: "crossed budget", class: Quota},  // LiteLLM's provider budget: "No deployments available - crossed budget"
	// A gateway's spend budget for a period, however short (MLflow AI
	// Gateway's 429 "Budget limit exceeded. Limit: $5.00 USD per 1 hour").
	{a: "budget limit exceeded", class: Quota},
	{a: "budget limit reached", class: Quota},
	// A gateway's token allowance for the consumer, spent (Higress ai-quota:
	// "Request denied by ai quota check, No quota left", as a 403).
	{a: "no quota left", class: Quota},
	{a: "no quota remaining", class: Quota},
	{a: "billing hard limit", class: Quota},
	{a: "billing_hard_limit_reached", class: Quota},
	{a: "billing_not_active", class: Quota},
	{a: "daily quota", class: Quota},
	{a: "daily rate limit", class: Quota},
	{a: "weekly rate limit", class: Quota}, // GitHub Copilot: "you've exceeded your weekly rate limit" (code user_weekly_rate_limited), as a 429
	// A plan's window named in hours before the limit's noun (GitHub
	// Copilot: "Sorry, you've exceeded your 5 hour session limits. Please
	// retry after 2733 seconds.", code user_global_rate_limited:pro, a 429;
	// "5-hour usage limit"): the plan's allowance for the window, whatever
	// wait the answer names, as Z.ai's, MiniMax's and Ollama Cloud's 5-hour
	// windows are. Not "concurrent sessions", "requests per hour" or a limit
	// that "resets hourly": the plan's nouns, not the hours, decide
	// (windowPeriod gives an hours window no class).
	{a: "hour session limit", class: Quota},
	{a: "hours session limit", class: Quota},
	{a: "hour usage limit", class: Quota},
	{a: "daily token limit", class: Quota},
	{a: "monthly quota", class: Quota},
	{a: "daily limit", class: Quota},
	{a: "monthly limit", class: Quota},
	{a: "tokens per day", class: Quota},
	{a: "requests per day", class: Quota},
	{a: "per day", class: Quota},
	{a: "per month", class: Quota},
	{a: "per_day", class: Quota},
	{a: "per-day", class: Quota}, // "free-models-per-day"
	{a: "per-month", class: Quota},
	{a: "tpd)", class: Quota},
	{a: "rpd)", class: Quota},
	{a: "tpd", word: true, class: Quota}, // "organization TPD rate limit"
	{a: "rpd", word: true, class: Quota},
	{a: "daily", b: "limit", gap: 24, class: Quota}, // "daily request limit reached"
	{a: "daily", b: "quota", gap: 24, class: Quota}, // Baidu AI Search: "Daily request quota per user … exceeded"
	// sub2api's subscription windows, at a 429: "monthly usage limit
	// exceeded", "weekly usage limit exceeded" (its daily twin reads by
	// "daily … limit"; hunt 62g). Whole words, no gap: "monthly … limit"
	// read a client's end-user id "monthly" beside LiteLLM's own "Limit
	// type" as a month's quota (review 62k).
	{a: "monthly usage limit", class: Quota},
	{a: "weekly usage limit exceeded", class: Quota},
	// A paid plan or subscription that has run out ("Your GLM Coding Plan
	// has expired … renew", 套餐已到期): nothing more until it is renewed,
	// even sent as a 429.
	{a: "plan has expired", class: Quota},
	{a: "package has expired", class: Quota}, // Z.ai's 1309: "Your GLM Coding Plan package has expired and is temporarily unavailable"
	{a: "subscription has expired", class: Quota},
	// No plan at all where every model needs one (Zed's 403 "You must
	// subscribe to a plan in order to use models provided by Zed …",
	// hunt 63d): the account serves nothing until it pays, as a lapsed
	// one. A plan one model needs is a tier gate ("model requires a …
	// subscription", forbidden, below).
	{a: "must subscribe to a plan", class: Quota},
	{a: "套餐已到期", class: Quota}, // the plan has expired
	{a: "套餐已过期", class: Quota}, // the plan has expired
	{a: "套餐已失效", class: Quota}, // the plan has lapsed (Zhipu's 1314: "您的企业套餐已失效，请联系企业管理员。", a 429)
	// A spending cap reached, of any period (Zhipu's 1318 and 1321: "已达子账号
	// 月消费上限" / "企业级月消费上限 … 无法使用超额按量付费", as 429s): the
	// account may not spend more, not a throttle.
	{a: "单次消费上限", class: Overflow}, // a per-request spending cap: this request too costly here, not the account spent
	{a: "单笔消费上限", class: Overflow},
	{a: "消费上限", class: Quota},
	// An account in arrears, a balance to top up, credits never bought.
	{a: "overdue", class: Quota},
	{a: "payment is past due", class: Quota},        // Ollama Cloud, a 403: "your subscription payment is past due. update your payment method …"
	{a: "update your payment method", class: Quota}, // the same notice, worded as what to do
	{a: "arrears", class: Quota},
	{a: "balance is insufficient", class: Quota},
	// A count of requests in flight over its limit is a rate, whatever
	// remedy the answer names for raising that limit (round 55, hunt 55a):
	// DeepSeek scales the limit with the balance ("Your current concurrency
	// is 26, which exceeds your concurrency limit of 25 based on your
	// remaining balance. Please top up …"); the account still has money.
	{a: "exceeds your concurrency limit", class: RateLimited},
	// The same reached, whatever type the answer gives it (Kimi Code's 403
	// permission_error "You've reached your concurrent request limit.
	// Please wait for your ongoing requests to finish and try again.",
	// through sub2api; hunt 63k): the requests in flight end and it clears,
	// the key is good. Read as forbidden, a relay disabled good accounts.
	{a: "concurrent request limit", class: RateLimited},
	{a: "concurrent requests limit", class: RateLimited},
	{a: "reached your concurrency limit", class: RateLimited},
	{a: "wait for your ongoing requests to finish", class: RateLimited},
	{a: "top up", class: Quota},
	{a: "out of", b: "credits", gap: 24, class: Quota},    // GitHub Copilot's 429: "You've run out of your included AI credits for the month."
	{a: "exhausted", b: "credits", gap: 16, class: Quota}, // FriendliAI's 403: "You've exhausted all your credits…"; not "retries exhausted"
	{a: "top_up", class: Quota, word: true},               // fal.ai, a 403: "User is locked. Reason: TOP_UP."
	{a: "have any credits", class: Quota},
	{a: "over budget", class: Quota},
	// A key's allowance for a period, spent ("Out of call volume quota. Quota
	// will be replenished in 22.14:18:12": Azure API Management's quota policy).
	{a: "out of", b: "quota", gap: 24, class: Quota},
	{a: "free tier", b: "exhausted", gap: 40, class: Quota},
	{a: "余额不足", class: Quota}, // insufficient balance
	// The same in Japanese (new-api's ja locale): 残高不足, balance short.
	// (Only ASCII letters are matched without regard to case, so Cyrillic
	// or Vietnamese wordings are not taught: a case the client or a relay
	// changed would slip past them.)
	{a: "残高不足", class: Quota},
	{a: "残高が不足", class: Quota},
	// A balance short in Korean (잔액 부족, 잔액이 부족합니다), as the
	// Japanese above: a balance is never per-minute, so strong, at a 429
	// too (round 53).
	{a: "잔액이 부족", class: Quota},
	{a: "잔액 부족", class: Quota},
	// Quota short or used up in Japanese and Korean (new-api's ja and ko
	// locales, at a 403: "ユーザークォータが不足しています", "このトークンのクォータは使い
	// 果たされました", "할당량이 부족합니다", "이 토큰의 할당량이 소진되었습니다"):
	// scripts without case. Weak and passed over at a 429, as the bare
	// "quota exceeded" is: the words also name a per-minute quota (분당 요청
	// 할당량), so the status, the period and the wait decide there (review
	// 29c).
	{a: "クォータ", b: "不足", gap: 12, class: Quota, weak: true, notRate: true},
	{a: "クォータ", b: "使い果た", gap: 12, class: Quota, weak: true, notRate: true},
	{a: "クォータの事前消費", class: Quota, weak: true, notRate: true}, // pre-consuming quota failed: "クォータの事前消費に失敗しました。残りクォータ: …"
	{a: "할당량", b: "부족", gap: 9, class: Quota, weak: true, notRate: true},
	{a: "할당량", b: "소진", gap: 9, class: Quota, weak: true, notRate: true},
	{a: "pre-consume quota", class: Quota}, // new-api: "Failed to pre-consume quota, remaining: …, required: …"
	{a: "欠费", class: Quota},                // in arrears
	{a: "账户余额", class: Quota},              // account balance
	{a: "请充值", class: Quota},               // please recharge
	// An allowance (额度, 配额) insufficient or used up: one-api/new-api's
	// "用户额度不足, 剩余额度: ¥0.00" and "该令牌额度已用尽" (a 403), a
	// provider's "免费额度已用完".
	{a: "额度不足", class: Quota},
	{a: "配额不足", class: Quota},
	// Round 61 (hunt 61d), each copied from a relay's or a vendor's wire
	// text: the balance in Traditional characters (AIHubMix's zh-Hant
	// table, "使用者餘額不足,需要充值", a 403), credits or points
	// insufficient (iFlow's error table, "用户积分不足"), and new-api's
	// quota.insufficient in its French locale ("Quota insuffisant"). Not
	// its Russian twin, nor words with accented capitals: the matcher folds
	// ASCII case only, and the echo check likewise, so a phrase in a cased
	// script would be steered by a client's text a server re-cased.
	{a: "餘額不足", class: Quota},
	{a: "积分不足", class: Quota},
	{a: "積分不足", class: Quota},
	{a: "quota insuffisant", class: Quota},
	// A spend cap reached (claude-relay-service's 402s "已达到每日费用限制
	// ($60)", "已达到总费用限制 ($N)", "已达到 Claude 模型周费用限制 ($N)";
	// round 61, hunt 61e): the key's allowance spent.
	{a: "费用限制", class: Quota},
	{a: "额度已用尽", class: Quota},
	{a: "额度已用完", class: Quota},
	// A key's day, week or month limit (限额) used up: sub2api's "api key
	// 日限额已用完" (its 429, type rate_limit_exceeded) and TokenFlux's
	// "团队成员月限额已用完" (code TEAM_MEMBER_MONTHLY_LIMIT_EXCEEDED).
	{a: "限额已用完", class: Quota},
	{a: "限额已用尽", class: Quota},
	{a: "限額已用完", class: Quota},
	{a: "限額已用盡", class: Quota},
	// The same in Traditional characters (new-api's zh-TW locale:
	// "該令牌額度已用盡", "用戶額度不足").
	{a: "額度不足", class: Quota},
	{a: "額度已用盡", class: Quota},
	{a: "額度已用完", class: Quota},
	// A resource pack or the billing resources used up (Hunyuan:
	// "免费资源包余量已用尽", "计费资源已耗尽"); a bare 资源不足 (resources short)
	// is the provider's capacity.
	{a: "余量已用尽", class: Quota},
	{a: "资源包", b: "用尽", gap: 12, class: Quota},
	{a: "计费资源", b: "耗尽", gap: 6, class: Quota},
	// A service or a model not switched on for the account (Hunyuan:
	// "服务未开通", "请确认是否已在控制台开通服务"; Zhipu's 1311: "当前订阅套餐暂未开放
	// glm-4.6权限", the plan does not include it), after the money wording
	// ("请购买资源包或开通后付费" names a switch to paying).
	{a: "服务未开通", class: Forbidden},
	{a: "开通服务", class: Forbidden},
	{a: "暂未开放", b: "权限", gap: 30, class: Forbidden},
	// A product not bought (DashScope's CommodityNotPurchased: "Commodity
	// has not purchased yet.", as a 429), after the money wording.
	{a: "not purchased", class: Forbidden},
	// An account or login locked "as a security precaution", lifted only by
	// support verifying the owner (Kiro / CodeWhisperer's 403
	// AccessDeniedException: "Your User ID (…) temporarily is suspended.
	// We've locked your account as a security precaution. To restore
	// access, please contact our support team to verify your identity"):
	// the credential is shut out for every model. Money words ("insufficient
	// balance", "spending limit") in the same answer keep it quota: the rows
	// stand last, after every quota row (weak).
	{a: "locked your account as a security precaution", class: Auth},
	{a: "locked it as a security precaution", class: Auth},
	// The bare form of "account has been suspended": AIHubMix's 403
	// "Account suspended." (its error-code table; round 61, hunt 61a;
	// 用户已被封禁 in its Chinese column). Last, as the rows above: a
	// suspension for money ("Account suspended: spending limit reached")
	// stays quota.
	{a: "account suspended", class: Auth},
}
