package classify

import "testing"

// Review 62k: the new reads (details.error_code, OpenRouter's error_type
// and availability.code, Envoy's exception type, the end-user budget
// phrase with its echo check, the monthly phrase) allocate nothing.
func TestReview62kNewReadsAllocate0(t *testing.T) {
	req := []byte(`{"model":"m","user":"monthly","messages":[{"role":"user","content":"End User=me over budget"}]}`)
	for _, c := range []struct {
		st   int
		body string
	}{
		{404, `{"type":"error","error":{"type":"not_found_error","message":"rejected","details":{"error_code":"thread_not_found"}}}`},
		{400, `{"error":{"code":400,"message":"too long","metadata":{"error_type":"context_length_exceeded"}}}`},
		{404, `{"error":{"code":404,"message":"gone","availability":{"code":"model_deprecated"}}}`},
		{429, `{"type":"error","error":{"type":"ModelNotReadyException:http://internal.amazon.com/coral/com.amazon.bedrock/","code":"429","message":"error"}}`},
		{429, `{"error":{"message":"ExceededBudget: End User=ishaan3 over budget. Spend=0.00088, Budget=0.0001","type":"budget_exceeded","param":"None","code":"429"}}`},
		{401, `{"error":{"message":"ExceededBudget: End User=me over budget. Spend=1, Budget=0","type":"auth_error","code":401}}`},
		{429, `{"error":{"message":"Rate limit exceeded for end_user: monthly. Limit type: requests.","type":"None","code":"429"}}`},
		{200, `{"type":"response.failed","response":{"error_type":"server","error":{"code":"server_error","message":"Invalid credentials"}}}`},
	} {
		r := Response{Status: c.st, Body: []byte(c.body), Request: req, Model: "m"}
		Classify(r)
		if n := testing.AllocsPerRun(50, func() { Classify(r) }); n != 0 {
			t.Errorf("%d %s: %v allocs", c.st, c.body, n)
		}
	}
}
