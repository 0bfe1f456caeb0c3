package bench

import (
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// BenchmarkStreams1000Process is BenchmarkStreams1000 with the gateway in a
// process of its own: it builds cmd/detour, runs `detour serve` (decisions
// to /dev/null, log level warn) in front of the in-process fake, holds 1,000
// slow streams through it and reports that process's own VmRSS, with no
// baseline to subtract. Run it once:
//
//	go test ./bench -run XXX -bench Streams1000Process -benchtime 1x
func BenchmarkStreams1000Process(b *testing.B) {
	dir := b.TempDir()
	bin := filepath.Join(dir, "detour")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/detour-llm/detour/cmd/detour").CombinedOutput(); err != nil {
		b.Skipf("cannot build cmd/detour: %v\n%s", err, out)
	}
	f := fake(b, slowStream)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cfg := filepath.Join(dir, "detour.yaml")
	yaml := "listen: " + addr + "\ndecisions: {path: /dev/null}\nlog: {level: warn}\n" + gatewayYAML(f.URL)
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "serve", "-c", cfg, "-grace", "1s")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cancel(); _ = cmd.Wait() })
	pid := strconv.Itoa(cmd.Process.Pid)
	url := "http://" + addr + "/v1/chat/completions"
	c := client(1)
	for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
		resp, err := c.Get("http://" + addr + "/v1/models")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Since(start) > 30*time.Second { // a failure guard
			b.Fatalf("detour serve did not come up on %s: %v", addr, err)
		}
	}
	c.CloseIdleConnections()
	for b.Loop() {
		idle := rssOf(pid)
		via := hold(b, url, holdStreams, pid)
		time.Sleep(500 * time.Millisecond)
		after := rssOf(pid)
		b.ReportMetric(0, "ns/op")
		b.ReportMetric(mb(idle), "MiB-rss-idle")
		b.ReportMetric(mb(via.rss), "MiB-rss-1000")
		b.ReportMetric(mb(after), "MiB-rss-after")
		b.ReportMetric(mb(procStatus(pid, "VmHWM:")), "MiB-rss-peak")
		b.ReportMetric(diff(via.rss, idle)*1024/holdStreams, "KiB/stream")
	}
}
