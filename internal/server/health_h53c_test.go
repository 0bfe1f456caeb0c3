package server_test

import (
	"net/http"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Hostile 53c: the credential-free /v1/health (liveOrAdmin) answers a GET
// only. liveOrAdmin's own comment names "HAProxy's httpchk" among the
// probes it is for, but HAProxy's `option httpchk /v1/health` (and bare
// `option httpchk`) sends OPTIONS: haproxy/haproxy doc/configuration.txt,
// "option httpchk": "<method> is the optional HTTP method used with the
// requests. When not set, the "OPTIONS" method is used", and "responses 2xx
// and 3xx are considered valid, while all other ones indicate a server
// failure". `option httpchk HEAD /v1/health` is the other common form (a
// smaller answer). Both are refused 401 with admin_keys set, so such a
// balancer still takes every replica out: the operator review 53 outage
// remains for HAProxy unless the operator spells GET.
func TestH53cHealthProbeMethodsOtherThanGET(t *testing.T) {
	up := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("m", "hello")}
	})
	t.Cleanup(up.Close)
	url, _, _ := r37aGateway(t, "admin_keys: [adm-h53c-abcdefgh]\n"+teamAConfig("openai"), up, nil)
	for _, method := range []string{http.MethodOptions, http.MethodHead} {
		st, b := r48bDo(t, url, method, "/v1/health", "")
		if st < 200 || st > 399 {
			t.Errorf("%s /v1/health without credentials (HAProxy's option httpchk health check) got %d %s: the balancer marks the replica down", method, st, b)
		}
	}
}
