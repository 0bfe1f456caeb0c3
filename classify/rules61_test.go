package classify

import "testing"

// Round 61's rules, from hunts 61a (wordings the corpus had not met) and
// 61d (answers in other languages), each beside the near answers it must
// leave alone and an echo guard: the client's own words quoted back never
// steer the class. Helpers: rules56_test.go.

// (a) hunt 61a. AIHubMix's error-code table: "Account suspended." at a
// 403 read forbidden by the status; the corpus reads "account has been
// suspended" auth (the account is shut out for every model, and the
// operator must act). A suspension for money stays quota.
func TestRoundSixtyOneAccountSuspended(t *testing.T) {
	want56(t, "AIHubMix's 403", classify56(403, `{"error":{"message":"Account suspended.","type":"Aihubmix_api_error"}}`, "", false), Auth, "phrase:account suspended")
	want56(t, "at a 400", classify56(400, `{"error":{"message":"Account suspended. Contact support."}}`, "", false), Auth, "")
	want56(t, "a key suspended for its credit stays quota", classify56(403, `{"error":{"message":"API key suspended due to insufficient credit"}}`, "", false), Quota, "")
	echo56(t, 403, "account suspended", `{"error":{"message":"Request blocked: account suspended"}}`, Forbidden)
}

// (b) hunt 61a. AIHubMix's 503 "Rate limited by provider – contact support
// to request higher concurrency or try again later." read server_error by
// the status: the endpoint throttles, as a 429 says; the limiter failing
// stays the server's failure.
func TestRoundSixtyOneRateLimitedIn5xx(t *testing.T) {
	aihubmix := `{"error":{"message":"Rate limited by provider – contact support to request higher concurrency or try again later.","type":"Aihubmix_api_error"}}`
	want56(t, "AIHubMix's 503", classify56(503, aihubmix, "", false), RateLimited, "")
	want56(t, "at a 502", classify56(502, `{"error":{"message":"upstream rate limited, try again later"}}`, "", false), RateLimited, "")
	want56(t, "the limiter's own failure", classify56(500, `{"error":{"code":"","message":"rate_limit_check_failed (request id: 2026)","type":"new_api_error"}}`, "", false), ServerError, "")
	want56(t, "a plain 503", classify56(503, `{"error":{"message":"Service temporarily unavailable"}}`, "", false), ServerError, "")
	echo56(t, 503, "rate limited", `{"error":{"message":"Internal error while handling: rate limited"}}`, ServerError)
}

// (c) review 61c. OpenRouter's routing preferences are a member of the
// request ("provider": {"only": […], "zdr": true, "data_collection":
// "deny"}), which Detour passes on. A client whose preferences allow no
// provider got OpenRouter's 404 "No allowed providers are available" read
// unavailable (the endpoint cooled for a day, for everyone) or "No
// endpoints found matching your data policy" read forbidden: its own
// choice, which no other target honours (another would ignore the
// member and take a prompt the client asked to keep from training). Without
// the member the words are the account's settings and keep their class.
func TestRoundSixtyOneClientRoutingPreferences(t *testing.T) {
	none := `{"error":{"message":"No allowed providers are available for the selected model.","code":404,"metadata":{"available_providers":["openai","azure"],"requested_providers":["no-such-provider"]}}}`
	zdr := `{"error":{"message":"No endpoints found matching your data policy (Zero data retention). Configure: https://openrouter.ai/settings/privacy","code":404}}`
	guard := `{"error":{"message":"No endpoints available matching your guardrail restrictions and data policy. Configure: https://openrouter.ai/settings/privacy","code":404}}`
	only := `{"model":"openai/gpt-4o","messages":[{"role":"user","content":"hi"}],"provider":{"only":["no-such-provider"],"allow_fallbacks":false}}`
	private := `{"model":"openai/gpt-4o","messages":[{"role":"user","content":"hi"}],"provider":{"zdr":true}}`
	plain := `{"model":"openai/gpt-4o","messages":[{"role":"user","content":"hi"}]}`
	want56(t, "only: a provider that cannot serve", classify56(404, none, only, false), BadRequest, "phrase:no allowed providers are available+client-routing")
	want56(t, "zdr asked by the client", classify56(404, zdr, private, false), BadRequest, "")
	want56(t, "data_collection deny", classify56(404, guard, `{"model":"m","messages":[],"provider":{"data_collection":"deny"}}`, false), BadRequest, "")
	want56(t, "Vercel's providerOptions", classify56(404, none, `{"model":"m","messages":[],"providerOptions":{"gateway":{"only":["bedrock"]}}}`, false), BadRequest, "")
	want56(t, "no preferences: the account's", classify56(404, none, plain, false), Unavailable, "")
	want56(t, "no preferences: the account's privacy settings", classify56(404, zdr, plain, false), Forbidden, "")
	want56(t, "a provider member deeper is a tool's", classify56(404, zdr, `{"model":"m","messages":[],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"provider":{"type":"string"}}}}}]}`, false), Forbidden, "")
	want56(t, "a gone model beside preferences stays gone", classify56(404, `{"error":{"message":"No endpoints found for openai/gpt-3.5-turbo-0301.","code":404}}`, only, false), Unavailable, "")
}

// (d) hunt 61d. Wordings copied from relays' and vendors' wire text in
// Chinese (Simplified and Traditional), Japanese, Korean and French,
// which a 400 read unknown (the request stopped, nothing moved on) and a
// 403 or a 503 read by the status: each now its class at a 400, with the
// trap beside it that a single word would fall into, and an echo guard.
func TestRoundSixtyOneOtherLanguages(t *testing.T) {
	for _, c := range []struct {
		name, message string
		want          Class
	}{
		{"AIHubMix zh-Hant balance", "使用者餘額不足,需要充值", Quota},
		{"iFlow credits", "用户积分不足", Quota},
		{"new-api fr quota", "Quota insuffisant", Quota},
		{"new-api zh-TW banned", "使用者已被封禁", Auth},
		{"new-api ko banned", "사용자가 차단되었습니다.", Auth},
		{"new-api ja banned", "ユーザーはBANされています", Auth},
		{"iFlow key", "API Key 无效", Auth},
		{"one-api model right", "该令牌无权使用模型：m3e", Forbidden},
		{"new-api model right", "该令牌无权访问模型 gpt-4o", Forbidden},
		{"new-api group", "无权访问 vip 分组", Forbidden},
		{"zh-Hant model right", "該令牌無權存取模型 gpt-4o", Forbidden},
		{"AIHubMix operation", "无权进行此操作,权限不足", Forbidden},
		{"new-api IP list", "您的 IP 不在令牌允许访问的列表中", Forbidden},
		{"one-api subnet", "该令牌只能在指定网段使用：10.0.0.0/8，当前 ip：1.2.3.4", Forbidden},
		{"AIHubMix frequency", "请求频率超过限制", RateLimited},
		{"zh-Hant frequency", "請求頻率超過限制", RateLimited},
		{"Zhipu 1303 frequency", "您当前使用该 API 的频率过高，请降低频率，或联系客服增加限额", RateLimited},
		{"Zhipu 1302 concurrency", "您当前使用该 API 的并发数过高，请降低并发，或联系客服增加限额", RateLimited},
		{"AIHubMix official limit", "该模型遇到官方限速,联系客服增加并发或请稍后重试", RateLimited},
		{"new-api ja rate", "リクエスト制限に達しました：1分間で最大60リクエスト", RateLimited},
		{"new-api ko rate", "요청 수 제한에 도달했습니다: 1분 내에 최대 60회 요청 가능", RateLimited},
		{"new-api ja saturated", "現在のグループのアップストリーム負荷が飽和しています。後でもう一度お試しください", ServerError},
		{"new-api ko saturated", "현재 그룹의 업스트림 부하가 포화 상태입니다. 나중에 다시 시도해 주세요.", ServerError},
		{"new-api ko no channel", "그룹 default의 모델 gpt-4o에 사용 가능한 채널이 없습니다(distributor)", Unavailable},
		{"new-api ja no price", "モデルgpt-4oの倍率または価格が設定されていません。管理者に連絡するか、セルフモードを有効にしてください", Unavailable},
		{"Zhipu 1221 offline", "API glm-3 已下线", Unavailable},
		{"AIHubMix model name", "模型名字错误请求进入模型广场查看或当前分组下对于模型无使用权限", Unavailable},
		// Traps: a group named "不限速" (no speed limit) is no throttle;
		// Zhipu's daily cap stays quota beside its 限额.
		{"a group without a speed limit", "no available channel for model gpt3 in group 3.5-不限速", Unavailable},
		{"Zhipu 1304 daily cap", "该 API 已达今日调用次数限额，如有更多需求，请联系客服购买", Quota},
	} {
		body := `{"error":{"message":"` + c.message + `","type":"new_api_error"}}`
		want56(t, c.name, classify56(400, body, "", false), c.want, "")
	}
	want56(t, "AIHubMix's 503 official limit", classify56(503, `{"error":{"message":"该模型遇到官方限速,联系客服增加并发或请稍后重试","type":"Aihubmix_api_error"}}`, "", false), RateLimited, "")
	want56(t, "AIHubMix's 503 model name", classify56(503, `{"error":{"message":"模型名字错误请求进入模型广场查看或当前分组下对于模型无使用权限","type":"Aihubmix_api_error"}}`, "", false), Unavailable, "")
	want56(t, "new-api ko 503 no channel", classify56(503, `{"error":{"message":"그룹 default의 모델 x에 사용 가능한 채널이 없습니다(distributor)","type":"new_api_error"}}`, "", false), Unavailable, "")
	echo56(t, 400, "无权访问", `{"error":{"message":"参数错误: 无权访问"}}`, Unknown)
	echo56(t, 400, "请求频率超过限制", `{"error":{"message":"参数错误: 请求频率超过限制"}}`, Unknown)
	echo56(t, 400, "사용자가 차단되었습니다", `{"error":{"message":"invalid input: 사용자가 차단되었습니다"}}`, Unknown)
}

// (e) hunt 61e. Relays' own Chinese answers: sub2api's moderation block
// (a 403 read forbidden) and its moderation service down (a 503 that must
// stay the server's); its key's group deleted or disabled and TokenFlux's
// team states (403s read forbidden: the key is dead for every model);
// claude-relay-service's spend caps; one-hub's and MiniMax's rate words.
func TestRoundSixtyOneRelaysInChinese(t *testing.T) {
	want56(t, "sub2api's moderation block", classify56(403, `{"error":{"message":"内容审计命中风险规则，请调整输入后重试","type":"content_policy_violation"}}`, "", false), Refusal, "")
	want56(t, "the same at a 400", classify56(400, `{"error":{"message":"内容审计命中风险规则，请调整输入后重试"}}`, "", false), Refusal, "")
	want56(t, "moderation down stays the server's", classify56(503, `{"error":{"message":"内容安全审核暂不可用，请稍后重试"}}`, "", false), ServerError, "")
	want56(t, "moderation down at a 400", classify56(400, `{"error":{"message":"内容安全审核暂不可用，请稍后重试"}}`, "", false), ServerError, "")
	for _, m := range []string{"API Key 所属分组已删除", "API Key 所属分组已停用", "团队已暂停", "团队成员关系已失效", "团队密钥所属成员已停用", "团队付款所有者已停用"} {
		want56(t, m, classify56(403, `{"code":"X","message":"`+m+`"}`, "", false), Auth, "")
	}
	want56(t, "a public group disabled for this user stays forbidden", classify56(403, `{"code":"GROUP_DISABLED_FOR_USER","message":"API Key 所属公开分组已被禁用"}`, "", false), Forbidden, "")
	want56(t, "claude-relay-service's daily cap", classify56(400, `{"error":{"type":"insufficient_quota","message":"已达到每日费用限制 ($60)","code":"daily_cost_limit_exceeded"}}`, "", false), Quota, "")
	want56(t, "its total cap", classify56(400, `{"error":{"message":"已达到总费用限制 ($100)"}}`, "", false), Quota, "")
	want56(t, "one-hub's rate", classify56(400, `{"error":{"message":"您的速率达到上限，请稍后再试。 (request id: 2026)","type":"one_hub_error"}}`, "", false), RateLimited, "")
	want56(t, "MiniMax 2062", classify56(400, `{"base_resp":{"status_code":2062,"status_msg":"已达到 Token Plan 速率限制：请升级 Token Plan 套餐或切换为按量付费 API 使用。"}}`, "", false), RateLimited, "")
	want56(t, "MiniMax 2056 stays quota", classify56(429, `{"type":"error","error":{"type":"rate_limit_error","message":"已达到 Token Plan 用量上限：请升级 Token Plan 套餐或购买积分补充用量。 (2056)"}}`, "", false), Quota, "")
	echo56(t, 400, "命中风险规则", `{"error":{"message":"参数错误: 命中风险规则"}}`, Unknown)
	echo56(t, 403, "所属分组已删除", `{"error":{"message":"拒绝: 所属分组已删除"}}`, Forbidden)
}
