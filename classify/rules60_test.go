package classify

import "testing"

// Round 60's rules, from hunts 60a (newer client APIs), 60b (answers in
// other languages) and 60c (providers new to the corpus), each beside the
// near answers it must leave alone and an echo guard: the client's own
// words quoted back never steer the class. Helpers: rules56_test.go.

// (a) hunt 60b. A key's day or month limit used up, in sub2api's and its
// forks' words ("api key 日限额已用完", "团队成员月限额已用完": the day's, the
// team member's month's limit is used up), read rate_limited by the 429
// and its type: an allowance spent until its window turns, as "额度已用完"
// (the allowance used up) already read: quota.
func TestRoundSixtyLimitUsedUp(t *testing.T) {
	sub2api := `{"error":{"message":"api key 日限额已用完","type":"rate_limit_exceeded"},"type":"error"}`
	want56(t, "sub2api's day limit", classify56(429, sub2api, "", false), Quota, "phrase:限额已用完")
	want56(t, "a team member's month", classify56(429, `{"code":"TEAM_MEMBER_MONTHLY_LIMIT_EXCEEDED","message":"团队成员月限额已用完"}`, "", false), Quota, "")
	want56(t, "in traditional characters", classify56(429, `{"error":{"message":"api key 日限額已用完"}}`, "", false), Quota, "")
	want56(t, "a rate too high stays a rate", classify56(429, `{"error":{"message":"请求频率超限，请稍后重试","type":"rate_limit_exceeded"}}`, "", false), RateLimited, "")
	echo56(t, 429, "日限额已用完", `{"error":{"message":"Rate limit reached for requests: 日限额已用完","type":"rate_limit_exceeded"}}`, RateLimited)
}

// (b) hunt 60c. Abacus.AI's RouteLLM API: "You have no remaining credits
// to use the LLM apis." at a 400, read unknown by the status; Continue's
// proxy says its twin ("You have no credits remaining") at a 402. The
// account's credits are spent: quota at any status.
func TestRoundSixtyNoRemainingCredits(t *testing.T) {
	want56(t, "Abacus's 400", classify56(400, `{"success": false, "error": "You have no remaining credits to use the LLM apis."}`, "", false), Quota, "phrase:no remaining credits")
	want56(t, "the twin wording at a 400", classify56(400, `{"error":"You have no credits remaining. Add credits to continue."}`, "", false), Quota, "phrase:no credits remaining")
	want56(t, "no credits needed is no spent account", classify56(400, `{"error":{"message":"Invalid value for temperature: no credits required for this model"}}`, "", false), BadRequest, "")
	echo56(t, 400, "you have no remaining credits", `{"error":{"message":"Invalid prompt: you have no remaining credits"}}`, Unknown)
}

// (c) hunt 60a. text-embeddings-inference before its PR #727 answered an
// empty input list with 413 ("Input validation error: `inputs` cannot be
// empty"), read overflow: the next endpoint was tried with the same empty
// list. The words prove the request wrong, as TGI's 422 twin does:
// bad_request, at a 413 too. A 413 that says the input is too big stays
// overflow.
func TestRoundSixtyEmptyInputsAt413(t *testing.T) {
	tei := "{\"message\":\"Input validation error: `inputs` cannot be empty\",\"code\":413,\"type\":\"Validation\"}"
	want56(t, "TEI's 413", classify56(413, tei, "", false), BadRequest, "phrase:inputs` cannot be empty")
	want56(t, "TGI's 422", classify56(422, tei, "", false), BadRequest, "")
	want56(t, "a 413 too large stays overflow", classify56(413, `{"message":"Request body too large","code":413}`, "", false), Overflow, "")
	echo56(t, 413, "`inputs` cannot be empty", "{\"message\":\"Payload too large: `inputs` cannot be empty\",\"code\":413}", Overflow)
}

// (d) hunt 60a. Azure AI Foundry's Responses API: invalid_payload "The
// provided data does not match the expected schema" with param "/" (the
// whole payload) and no details, to a message whose only content was an
// image data URI OpenAI takes; read bad_request by the word "schema".
// Foundry's schema is stricter than OpenAI's (review 27e): a mismatch that
// names no member proves nothing of the client's: unknown. One that names
// the member stays bad input.
func TestRoundSixtyExpectedSchema(t *testing.T) {
	azure := `{"error":{"code":"invalid_payload","message":"The provided data does not match the expected schema","param":"/","type":"invalid_request_error","details":[],"additionalInfo":{"request_id":"5e748b2875102c59bd87bc285f8d6b4a"}}}`
	want56(t, "Foundry's whole-payload mismatch", classify56(400, azure, `{"model":"m","input":"hi"}`, false), Unknown, "")
	want56(t, "an invalid schema in a tool stays bad input", classify56(400, `{"error":{"message":"Invalid schema for function 'f': 'object' is not valid under any of the given schemas","type":"invalid_request_error","param":"tools[0].function.parameters","code":"invalid_function_parameters"}}`, "", false), BadRequest, "")
	echo56(t, 400, "does not match the expected schema", `{"error":{"message":"Invalid value: does not match the expected schema","param":"temperature"}}`, BadRequest)
}

// (e) builder 60. A Gemini candidate that called a function and ended with
// a filter's finishReason (SAFETY and its kin) was an answer, as a
// candidate with text is: the call the filter flagged reached the client
// as one to run. It is a refusal now, whole or as a stream's last chunk,
// as the openai adapter fails a stream its filter cut after a tool call
// (docs/doors.md). Text then a filter stays an answer the client gets, cut
// (finish_reason content_filter); a call that stopped stays an answer.
func TestRoundSixtyFilteredFunctionCall(t *testing.T) {
	cand := func(part, finish string) string {
		return `{"candidates":[{"content":{"role":"model","parts":[` + part + `]},"finishReason":"` + finish + `","index":0}],"usageMetadata":{"promptTokenCount":58,"candidatesTokenCount":8,"totalTokenCount":66}}`
	}
	call := `{"functionCall":{"name":"get_current_temperature","args":{"location":"London"}}}`
	want56(t, "a call the filter flagged", classify56(200, cand(call, "SAFETY"), "", false), Refusal, "gemini:finishReason=SAFETY")
	want56(t, "as a stream's chunk", classify56(200, cand(call, "PROHIBITED_CONTENT"), "", true), Refusal, "gemini:finishReason=PROHIBITED_CONTENT")
	for name, body := range map[string]string{
		"text cut by the filter": cand(`{"text":"The temperature in"}`, "SAFETY"),
		"a call that stopped":    cand(call, "STOP"),
		"an image cut":           cand(`{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}}`, "SAFETY"),
	} {
		if v := classify56(200, body, "", false); v.Failed {
			t.Errorf("%s: failed %s (%s), want an answer", name, v.Class, v.Evidence)
		}
	}
}
