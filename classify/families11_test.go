package classify

import "testing"

// TestRoundTwentyTwoRules: the rules of corpus round 22 (classify/testdata/
// corpus/README.md, "Twenty-second round"), each positive case failing
// before its rule, with the near-misses each must not catch.
func TestRoundTwentyTwoRules(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		// A pydantic location that is the whole body: the request did not
		// parse as an object.
		{name: "loc is the body", status: 400,
			body: `{"error":{"object":"error","type":"invalid_request_error","message":"[{'type': 'model_attributes_type', 'loc': ('body',), 'msg': 'Input should be a valid dictionary or object to extract fields from', 'input': b'{}'}]"},"raw_output":null}`,
			req:  chat, model: "m", want: BadRequest},
		{name: "loc is the body, double quotes", status: 400,
			body: `{"error":{"message":"[{\"type\": \"model_attributes_type\", \"loc\": (\"body\",), \"msg\": \"Input should be a valid dictionary\"}]"}}`,
			req:  chat, model: "m", want: BadRequest},
		{name: "a traceback naming a body in a 5xx", status: 500,
			body: `{"error":{"message":"TypeError: read() of ('body',) failed"}}`,
			req:  chat, model: "m", want: ServerError},
		{name: "a tuple of another name", status: 400,
			body: `{"error":{"message":"[{'loc': ('query',), 'msg': 'Input should be a valid dictionary'}]"}}`,
			req:  chat, model: "m", want: Unknown},

		// A quota code that says the allowance is reached or exhausted.
		{name: "token quota reached", status: 403,
			body: `{"errors":[{"code":"token_quota_reached","message":"Request of 1 token(s) from quota was rejected","more_info":"https://cloud.ibm.com/apidocs/watsonx-ai#text-chat"}],"trace":"t","status_code":403}`,
			req:  chat, model: "m", want: Quota},
		{name: "quota exhausted code at a 429", status: 429,
			body: `{"error":{"code":"monthly_quota_exhausted","message":"Request rejected"}}`,
			req:  chat, model: "m", want: Quota},
		{name: "per-minute wording outranks the code", status: 429,
			body: `{"error":{"code":"request_quota_exhausted","message":"Requests per minute limit exceeded - too many requests sent."}}`,
			req:  chat, model: "m", want: RateLimited},
		{name: "a listed code in errors[]", status: 400,
			body: `{"errors":[{"code":"insufficient_quota","message":"Request rejected"}]}`,
			req:  chat, model: "m", want: Quota},
		{name: "a numeric code in errors[] is no code", status: 400,
			body: `{"success":false,"errors":[{"code":7003,"message":"Could not route"}]}`,
			req:  chat, model: "m", notAny: []Class{Quota, Auth}},
		{name: "quota reached only in the message", status: 403,
			body: `{"error":{"code":"forbidden","message":"token_quota_reached is a code this API documents"}}`,
			req:  chat, model: "m", want: Forbidden},
		{name: "a quota that is not reached", status: 403,
			body: `{"errors":[{"code":"quota_reached_warning_disabled","message":"Request rejected"}]}`,
			req:  chat, model: "m", want: Forbidden},
	})
}
