package process

// Review 56: admin_listen kept through the drain (cmd/detour/serve.go, commit 2fff99d).
// docs/scale.md ("Health check", "SIGTERM: draining") tells operators that after SIGTERM the
// health check fails with connection refused so the balancer takes the replica out. With
// admin_listen set, /v1/health is served only there (docs/deploy.md) — and that listener now
// keeps answering 200 {"status":"serving"} for the whole drain while the API listener already
// refuses connections: a balancer health-checking /v1/health keeps sending new clients to a
// port that refuses them, for up to --grace. It answers 503 {"status":"draining"} now.

import (
	"bufio"
	"io"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

func TestReview56DrainingReplicaHealthCheckOnAdminListenSaysDraining(t *testing.T) {
	f := newOp56Fleet(t)
	parts := strings.Split(strings.Repeat("word ", 30), " ")
	slow := fake(t, upstreamtest.Step{Events: upstreamtest.ChatStream("gpt-4o", parts...), EventDelay: 100 * time.Millisecond})
	body := strings.Replace(f.yaml("sk-ant-new-0000000000000002", true, "", ""), f.gpt.URL, slow.URL, 1)
	adminA := "127.0.0.1:" + strconv.Itoa(freePort(t))
	a := startGateway(t, "A", "admin_listen: "+adminA+"\n"+body, "--grace", "20s")
	resp, err := client.Post(a.URL+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"gpt","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	rd := bufio.NewReader(resp.Body)
	if _, err := rd.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	a.signal(syscall.SIGTERM)
	poll(t, 5*time.Second, "the drain to begin", func() bool { return strings.Contains(a.stderr.String(), "shutting down") })
	// The API listener refuses new connections (as documented) ...
	_, apiErr := client.Get(a.URL + "/v1/models")
	// ... while a balancer's check (an unauthenticated GET, docs/scale.md "Health check")
	// on the admin listener, where /v1/health is served, still passes.
	var st int
	var got string
	r, err := client.Get("http://" + adminA + "/v1/health")
	if err == nil {
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		st, got = r.StatusCode, string(b)
	}
	_, _ = io.ReadAll(rd)
	a.wait()
	if apiErr == nil {
		t.Logf("note: the API listener still accepted a connection during the drain")
	}
	if err != nil || st != http.StatusServiceUnavailable || !strings.Contains(got, `"draining"`) {
		t.Errorf("during the drain (API listener: %v), the health check on admin_listen answered %d %s (%v): want 503 draining, so a balancer takes the replica out", apiErr, st, strings.TrimSpace(got), err)
	}
}
