package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// profiler fetches profiles from a detour built with `-tags pprof` and
// started with DETOUR_PPROF=addr (cmd/detour/pprof.go) into dir. The zero
// value (no -pprof) fetches nothing.
type profiler struct {
	dir       string
	addr      string
	plainAddr string // the plain proxy's pprof listener (latency mode)
}

func (p *profiler) on() bool { return p != nil && p.dir != "" }

// fetch saves detour's /debug/pprof/<what> as dir/<name>.
func (p *profiler) fetch(what, name string) error {
	if !p.on() {
		return nil
	}
	return p.fetchFrom(p.addr, what, name)
}

// fetchFrom saves addr's /debug/pprof/<what> as dir/<name>.
func (p *profiler) fetchFrom(addr, what, name string) error {
	c := &http.Client{Timeout: 10 * time.Minute}
	resp, err := c.Get("http://" + addr + "/debug/pprof/" + what)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	f, err := os.Create(filepath.Join(p.dir, name))
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(f, resp.Body)
	fmt.Printf("  profile: %s\n", f.Name())
	return err
}

// traces saves one second of each proxy's runtime trace from the middle of
// the first paced phase (dur long), as detour.trace and plain.trace: where
// a paced request's time goes between its arrival and its answer, read by
// bench/tracecrit (docs/benchmarks.md, round 8). The profiles' wait group
// wg waits for them too.
func (r *runner) traces(wg *sync.WaitGroup, dur time.Duration) {
	if !r.prof.on() {
		return
	}
	for _, x := range []struct{ addr, name string }{{r.prof.addr, "detour.trace"}, {r.prof.plainAddr, "plain.trace"}} {
		wg.Go(func() {
			time.Sleep(dur/2 - 500*time.Millisecond)
			if err := r.prof.fetchFrom(x.addr, "trace?seconds=1", x.name); err != nil {
				fmt.Println("  trace:", err)
			}
		})
	}
}

// goroutines returns the total of detour's goroutine profile, -1 when
// unknown.
func (p *profiler) goroutines() int {
	if !p.on() {
		return -1
	}
	resp, err := http.Get("http://" + p.addr + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	line, _ := bufio.NewReader(resp.Body).ReadString('\n')
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "goroutine profile: total")))
	if err != nil {
		return -1
	}
	return n
}

// fdSpare is what detour holds besides its streams' connections (its
// listeners, the decision log, the runtime's own descriptors, and the few
// HTTP/2 upstream connections every stream shares).
const fdSpare = 256

// fdsPerStream is what one stream holds in detour: the client's connection,
// and over HTTP/1.1 its own upstream connection too (over HTTP/2 streams
// share a few, counted in fdSpare).
func fdsPerStream(kind string) uint64 {
	if kind == upH1 {
		return 2
	}
	return 1
}

// fdRoom returns how many concurrent streams detour can hold under the
// process's open-file limit (inherited from this program), and that limit.
func fdRoom(kind string) (streams int, limit uint64) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return -1, 0
	}
	if l.Cur <= fdSpare {
		return 0, l.Cur
	}
	return int((l.Cur - fdSpare) / fdsPerStream(kind)), l.Cur
}
