package classify

import (
	"fmt"
	"testing"
)

// Hunt 63d. A gateway that knows no provider of the model Detour sent
// says so in a 5xx as in a 4xx (CLIProxyAPI's 502 "unknown provider for
// model X", no account loaded for it): nothing is served there, so the
// endpoint cools as for a gone model. Only of the endpoint's own model: a
// name the endpoint was not sent is the relay's own trouble.
func TestHunt63dUnknownProviderIn5xx(t *testing.T) {
	const body = `{"error":{"message":"unknown provider for model %s","type":"server_error","code":"internal_server_error"}}`
	at := func(st int, named string) Verdict {
		return Classify(Response{Status: st, Body: []byte(fmt.Sprintf(body, named)), Model: "gemini-claude-sonnet-4-5"})
	}
	for _, st := range []int{500, 502, 503} {
		want56(t, "ours", at(st, "gemini-claude-sonnet-4-5"), Unavailable, "")
		if v := at(st, "other-model"); v.Class == Unavailable {
			t.Errorf("%d: another model's name read %s (%s)", st, v.Class, v.Evidence)
		}
	}
	want56(t, "modelscope", classify56(502, `{"errors":{"message":"Model id : m , has no provider supported"}}`, "", false), Unavailable, "")
}

// Hunt 63d. No plan at all where every model of the provider needs one
// (Zed's 403 "You must subscribe to a plan in order to use models provided
// by Zed"): the account serves nothing until it pays, as a lapsed
// subscription (quota). A plan one model needs stays a tier gate
// (forbidden), and the client's own words prove nothing.
func TestHunt63dNoPlanIsQuota(t *testing.T) {
	const zed = "You must subscribe to a plan in order to use models provided by Zed. Please visit https://zed.dev/account to start your trial, or select another model provider."
	for _, st := range []int{401, 402, 403} {
		want56(t, "zed", classify56(st, zed, "", false), Quota, "")
	}
	want56(t, "one model's tier", classify56(403, `{"error":{"message":"This model requires a Pro subscription"}}`, "", false), Forbidden, "")
	echo56(t, 403, "you must subscribe to a plan", `{"error":{"message":"Access denied: you must subscribe to a plan"}}`, Forbidden)
}

// Hunt 63k. A concurrency limit reached is a rate, whatever type the
// answer gives it (Kimi Code's 403 permission_error "You've reached your
// concurrent request limit. Please wait for your ongoing requests to
// finish and try again."): the requests in flight end and it clears. The
// client's own words prove nothing.
func TestHunt63kConcurrencyLimitIsARate(t *testing.T) {
	const kimi = `{"error":{"message":"You've reached your concurrent request limit. Please wait for your ongoing requests to finish and try again.","type":"permission_error"},"type":"error"}`
	for _, st := range []int{400, 403, 429} {
		want56(t, "kimi", classify56(st, kimi, "", false), RateLimited, "")
	}
	echo56(t, 403, "concurrent request limit", `{"error":{"message":"Access denied: concurrent request limit","type":"permission_error"}}`, Forbidden)
}
