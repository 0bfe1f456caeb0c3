package bench

import (
	"bytes"
	"net/http"
	"runtime/metrics"
	"syscall"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// run sends body to url once per iteration, one request at a time, over one
// keep-alive connection. Allocations and CPU time ("cpu-µs/op", user+system
// from getrusage) are the whole process's: client, fake and (via the
// gateway) Detour; the gateway's own share is the difference from Direct.
// So are the goroutines started per request ("goroutines/op").
func run(b *testing.B, c *http.Client, url, body string, check func([]byte) bool) {
	b.ReportAllocs()
	if _, err := post(c, url, body); err != nil { // warm the connection
		b.Fatal(err)
	}
	cpu0, g0 := cpuTime(), goroutinesCreated()
	n := 0
	for b.Loop() {
		got, err := post(c, url, body)
		if err != nil {
			b.Fatal(err)
		}
		if !check(got) {
			b.Fatalf("unexpected answer: %.300s", got)
		}
		n++
	}
	b.ReportMetric(us(cpuTime()-cpu0)/float64(n), "cpu-µs/op")
	b.ReportMetric(float64(goroutinesCreated()-g0)/float64(n), "goroutines/op")
}

// goroutinesCreated counts the goroutines this process has started so far:
// each costs a scheduling round trip on the request's path.
func goroutinesCreated() uint64 {
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// cpuTime is the user+system CPU time this process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func plainOK(b []byte) bool  { return bytes.Contains(b, []byte(`"chat.completion"`)) }
func streamOK(b []byte) bool { return bytes.HasSuffix(b, done) }

// BenchmarkDirect: the fake's fixed chat.completion, called directly.
func BenchmarkDirect(b *testing.B) {
	e := setup(b, upstreamtest.Step{Body: answer})
	run(b, client(1), e.direct, chatBody, plainOK)
}

// BenchmarkGateway: the same answer through Detour.
func BenchmarkGateway(b *testing.B) {
	e := setup(b, upstreamtest.Step{Body: answer})
	run(b, client(1), e.gateway, chatBody, plainOK)
}

// BenchmarkGatewayServe: the same answer through Detour configured as
// bench/cmd/overhead runs `detour serve`: decision records encoded and
// written to /dev/null, not discarded.
func BenchmarkGatewayServe(b *testing.B) {
	f := fake(b, upstreamtest.Step{Body: answer})
	yaml := "decisions: {path: /dev/null}\nlog: {level: warn}\n" + gatewayYAML(f.URL)
	url, _ := gatewaytest.Start(b, gatewaytest.Config(b, yaml), app.Options{})
	run(b, client(1), url+"/v1/chat/completions", chatBody, plainOK)
}

// BenchmarkPlain: the same answer through a plain httputil.ReverseProxy
// (the floor for any gateway on net/http: a second loopback hop and
// nothing else), started in this process like the gateway.
func BenchmarkPlain(b *testing.B) {
	e := setup(b, upstreamtest.Step{Body: answer})
	run(b, client(1), e.plain, chatBody, plainOK)
}

// BenchmarkDirectStream: a 20-chunk stream (24 events with the role, finish,
// usage and [DONE] events), called directly.
func BenchmarkDirectStream(b *testing.B) {
	e := setup(b, upstreamtest.Step{Events: upstreamtest.ChatStream(model, parts(20)...)})
	run(b, client(1), e.direct, streamBody, streamOK)
}

// BenchmarkGatewayStream: the same stream through Detour.
func BenchmarkGatewayStream(b *testing.B) {
	e := setup(b, upstreamtest.Step{Events: upstreamtest.ChatStream(model, parts(20)...)})
	run(b, client(1), e.gateway, streamBody, streamOK)
}
