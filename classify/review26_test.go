package classify

import "testing"

// TestReview26RelayedPaymentInstrumentIsQuota: the new 5xx phrase "model
// access is denied" (phrases5xx.go, forbidden) reads the whole of Bedrock's
// AccessDeniedException family in a relay's 5xx as forbidden, but one
// member of that family is the account that cannot pay: "Model access is
// denied due to INVALID_PAYMENT_INSTRUMENT:A valid payment instrument must
// be provided." Sent directly (403) it is quota (phrasesaccount.go, "payment
// instrument", vocab26_test.go); relayed in a 5xx it becomes forbidden,
// because "payment instrument" is not a 5xx phrase and "model access is
// denied" is. The harm: forbidden stops the walk (no next endpoint, no next
// target) where quota moves on to the other providers, cools the account and
// pages the operator; here nobody is paged for an account that cannot pay,
// and every request through the relay stops at it (cooling only after
// failure_threshold, then the endpoint goes last but stays) instead of
// failing over.
//
// Sources: Bedrock's message, Tracer-Cloud/opensre #1812 (AccessDeniedException
// with INVALID_PAYMENT_INSTRUMENT; the same body vocab26_test.go pins at
// 403); LiteLLM's wrapping of a Bedrock AccessDenied in its 500,
// `litellm.APIConnectionError: BedrockException - {"message":"Model access is
// denied due to …"}` (ministryofjustice/modernisation-platform-environments
// #18323, the body vocab26_test.go's "model access denied in a relay's 500"
// case shortens); a 502 "Bedrock streaming failed: Model access is denied due
// to …" (aws-samples/sample-host-openclaw-on-amazon-bedrock-agentcore #41).
//
// Suggested fix: in a 5xx, read the cause an access denial names before the
// denial itself: add the cannot-pay wording ("payment instrument") to
// fiveXXPhrases ahead of "model access is denied" (generally, a "denied due
// to X" is X's class where X is taught).
func TestReview26RelayedPaymentInstrumentIsQuota(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		{name: "litellm 500 around bedrock's payment instrument", status: 500,
			body: `{"error":{"message":"litellm.APIConnectionError: BedrockException - {\"message\":\"Model access is denied due to INVALID_PAYMENT_INSTRUMENT:A valid payment instrument must be provided.\"}","type":null,"param":null,"code":"500"}}`,
			req:  chat, model: "m", want: Quota},
		{name: "a gateway's 502 around bedrock's payment instrument", status: 502,
			body: `{"error":{"message":"Bedrock streaming failed: Model access is denied due to INVALID_PAYMENT_INSTRUMENT:A valid payment instrument must be provided."}}`,
			req:  chat, model: "m", want: Quota},
	})
}
