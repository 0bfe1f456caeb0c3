package classify

import "testing"

// Round 64. LiteLLM's proxy refuses a request without a parameter its
// operator made required (enforced_params: "user", or
// "metadata.generation_name") in its key check, as a 401 typed auth_error
// ("Authentication Error, BadRequest please pass param=user in request
// body. This is a required param"; LiteLLM's docs, "Enforce Required
// Params"). The key is good: the request lacks what the gateway requires,
// so bad_request. Read as the 401 it is sent as, one client that left out
// `user` cooled the relay's account for every other client and paged the
// operator. The service-account variant comes as a 400 and was placed
// already.
func TestRoundSixtyFourEnforcedParamIsTheRequests(t *testing.T) {
	litellm := `{"error":{"message":"Authentication Error, BadRequest please pass param=user in request body. This is a required param","type":"auth_error","param":"None","code":401}}`
	want56(t, "401, no request", classify56(401, litellm, "", false), BadRequest, "")
	want56(t, "401, a request without user", classify56(401, litellm, `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, false), BadRequest, "")
	nested := `{"error":{"message":"Authentication Error, BadRequest please pass param=[metadata][generation_name] in request body. This is a required param","type":"auth_error","param":"None","code":401}}`
	want56(t, "401, a nested param", classify56(401, nested, "", false), BadRequest, "")
	service := `{"error":{"message":"BadRequest please pass param=user in request body. This is a required param for service account","type":"bad_request_error","param":"user","code":"400"}}`
	want56(t, "400, a service account", classify56(400, service, "", false), BadRequest, "")

	// A key refused stays auth, and the words quoted back from the
	// client's own text never make a rejected key the request's.
	bad := `{"error":{"message":"Authentication Error, Invalid proxy server token passed. Received API Key = sk-...abcd, Key Hash (Token) =... Unable to find token in cache or LiteLLM_VerificationTokenTable","type":"auth_error","param":"None","code":401}}`
	want56(t, "a refused key", classify56(401, bad, "", false), Auth, "")
	words := "please pass param=user in request body. This is a required param"
	echo56(t, 401, words, `{"error":{"message":"Authentication Error: invalid key for request '`+words+`'","type":"auth_error","param":"None","code":401}}`, Auth)
}

// The end user's budget is read by LiteLLM's own prefix ("ExceededBudget:
// End User=… over budget"): what follows "End User=" is the id the client
// chose, so a refused key's 401 that names a `user` of "x over budget"
// stays auth (review 64i; before, "End User=" alone and the client's
// words after it made the broken key the request's).
func TestRoundSixtyFourEndUserBudgetByItsPrefix(t *testing.T) {
	req := `{"model":"m","user":"x over budget","messages":[{"role":"user","content":"hi"}]}`
	refused := `{"error":{"message":"Authentication Error, Invalid key for End User=x over budget","type":"auth_error","param":"None","code":401}}`
	want56(t, "a refused key naming the client's user", classify56(401, refused, req, false), Auth, "")
	spent := `{"error":{"message":"ExceededBudget: End User=ishaan3 over budget. Spend=0.0008869999999999999, Budget=0.0001","type":"auth_error","param":"None","code":401}}`
	want56(t, "LiteLLM's own", classify56(401, spent, `{"model":"m","user":"ishaan3","messages":[]}`, false), BadRequest, "")
}
