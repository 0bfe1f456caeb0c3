package bench

import (
	"os"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// TestFakeProvider is not a test: it serves the benchmarks' fixed
// chat.completion from a loopback fake, for load tools outside Go (wrk),
// when DETOUR_BENCH_FAKE names a file to write the fake's base URL to. It
// serves for DETOUR_BENCH_FAKE_FOR (default 60s). Otherwise it is skipped.
//
//	DETOUR_BENCH_FAKE=/tmp/fake.url go test ./bench -run TestFakeProvider -count 1 -v &
func TestFakeProvider(t *testing.T) {
	path := os.Getenv("DETOUR_BENCH_FAKE")
	if path == "" {
		t.Skip("set DETOUR_BENCH_FAKE to serve a fake provider for wrk")
	}
	d, err := time.ParseDuration(os.Getenv("DETOUR_BENCH_FAKE_FOR"))
	if err != nil {
		d = time.Minute
	}
	f := fake(t, upstreamtest.Step{Body: answer})
	if err := os.WriteFile(path, []byte(f.URL), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("serving on %s for %s", f.URL, d)
	time.Sleep(d)
}
