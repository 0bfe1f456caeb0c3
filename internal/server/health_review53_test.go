package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 53: with admin_keys, a credential-free GET of /v1/health is now
// answered {"status":"serving"} (44500b5). A browser that navigates there
// sends no Authorization until it is challenged (401 + WWW-Authenticate:
// Basic, which adminOnly writes so that "a browser prompts"), and a
// Basic login at /ui does not cover /v1/health (RFC 7617 §2.2: the
// protection space a client may reuse credentials for preemptively is the
// URIs at or below the authenticated one's path). The console's own
// <noscript> fallback (internal/console/ui/page.html) sends the operator
// to <a href="/v1/health">: before 44500b5 that prompted and showed
// endpoints and accounts; now the operator's browser is never asked for
// the key and shows only {"status":"serving"}.
func TestReview53BrowserNavigationToHealthIsStillChallenged(t *testing.T) {
	up := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("m", "hello")}
	})
	t.Cleanup(up.Close)
	url, _, _ := r37aGateway(t, "admin_keys: [adm-r53-abcdefgh]\n"+teamAConfig("openai"), up, nil)
	// What Chromium sends when the operator clicks the link (no credentials
	// yet for this path).
	st, b := r48bDo(t, url, http.MethodGet, "/v1/health", "",
		"Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
		"Sec-Fetch-Mode", "navigate", "Sec-Fetch-Dest", "document", "Upgrade-Insecure-Requests", "1")
	if st != http.StatusUnauthorized || strings.Contains(b, `"status":"serving"`) && !strings.Contains(b, "endpoints") {
		t.Fatalf("an operator's browser opening /v1/health (the console's noscript link) got %d %s: never challenged for the admin key, it can no longer show the health it links to", st, b)
	}
}

// A balancer's check by HEAD (HAProxy's `http-check send meth HEAD`) is
// answered 200 without credentials too, and with the admin key; a wrong
// key is still refused (operator review 53b: HEAD was a 401, and a 405
// with the key).
func TestHealthHeadIsABalancersCheck(t *testing.T) {
	up := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("m", "hello")}
	})
	t.Cleanup(up.Close)
	url, _, _ := r37aGateway(t, "admin_keys: [adm-r53-abcdefgh]\n"+teamAConfig("openai"), up, nil)
	for _, c := range []struct {
		auth []string
		want int
	}{{nil, 200}, {[]string{"Authorization", "Bearer adm-r53-abcdefgh"}, 200}, {[]string{"Authorization", "Bearer wrong-key-0123"}, 401}} {
		if st, _ := r48bDo(t, url, http.MethodHead, "/v1/health", "", c.auth...); st != c.want {
			t.Errorf("HEAD /v1/health with %v: %d, want %d", c.auth, st, c.want)
		}
	}
}
