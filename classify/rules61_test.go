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
