package dispatch_test

import (
	"context"
	"testing"

	"github.com/detour-llm/detour/internal/dispatch"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A 2xx that carried a failure is billable when its upstream counted
// tokens, however large the counts it reports: a prompt and a completion
// whose sum wraps an int still counted, so the next vendor is not called
// past max_billable_attempts: 1 (the request would pay twice).
func TestCountedFailureWithHugeCountsIsBillable(t *testing.T) {
	const failed = `{"id":"c","object":"chat.completion","created":1,"model":"ma",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"MALFORMED_FUNCTION_CALL"}],` +
		`"usage":{"prompt_tokens":9223372036854775807,"completion_tokens":1,"total_tokens":419}}`
	ua, ub := upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Body: failed})),
		upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Body: upstreamtest.ChatJSON("mb", "b")}))
	t.Cleanup(ua.Close)
	t.Cleanup(ub.Close)
	d := abDispatcher(t, `providers:
  - {name: pa, dialect: openai, base_url: "`+ua.URL+`/v1", api_key: sk-test}
  - {name: pb, dialect: openai, base_url: "`+ub.URL+`/v1", api_key: sk-test}
targets:
  - {name: a, model: ma, providers: [pa]}
  - {name: b, model: mb, providers: [pb]}
routes:
  - {name: r, targets: [a, b], max_billable_attempts: 1}
`)
	res := d.Do(context.Background(), &dispatch.Call{Model: "r", ID: "id",
		Body: []byte(`{"model":"r","messages":[{"role":"user","content":"hi"}]}`)})
	a := res.Decision.Attempts
	if len(a) != 1 || !a[0].Billable {
		t.Errorf("attempts %+v, want one, billable (its upstream counted tokens)", a)
	}
	if n := ub.Calls(); n != 0 {
		t.Errorf("the next vendor was called %d times past the billable cap", n)
	}
}
