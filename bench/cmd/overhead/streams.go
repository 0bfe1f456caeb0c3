package main

import (
	"bufio"
	"fmt"
	"github.com/detour-llm/detour/bench/internal/procfs"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const targetRSS = 60 << 20 // peak RSS of detour with 1,000 open streams (issue 9)

// streams holds n slow streams open at once through the plain proxy (with
// floor) and then through detour, reports each process's memory
// (holdStreams) and judges detour's against the targets. Streams
// start at ramp per second: a burst of 10,000 connects at once overflows the
// kernel's listen backlog (net.core.somaxconn), which measures SYN retries,
// not the gateway.
func (r *runner) streams(bin string, n int, every time.Duration, ramp int, floor bool) error {
	_, plain, detour, det, err := r.paths(bin, every)
	if err != nil {
		return err
	}
	// Each stream holds a descriptor or two in detour (fdsPerStream): above
	// what the open-file limit allows, failures measure the machine, not the
	// gateway.
	room, limit := fdRoom(r.kind)
	possible := room < 0 || n <= room
	if !possible {
		fmt.Printf("streams: IMPOSSIBLE HERE: %d streams need more than %d open files in detour (%d per stream + ~%d); "+
			"this machine's open-file limit is %d, enough for %d streams. Raise the hard limit (ulimit -Hn, "+
			"as root or in the container's settings) or run -streams %d.\n",
			n, uint64(n)*fdsPerStream(r.kind), fdsPerStream(r.kind), fdSpare, limit, room, room/100*100)
	}
	fmt.Printf("streams: %d at a time, started at %d/s, upstream event every %s (%d events, ~%s each)\n",
		n, ramp, every, streamParts+4, time.Duration(streamParts+4)*every)
	// The plain reverse proxy first, as the floor net/http sets for any
	// gateway on it; then detour.
	if floor {
		fmt.Println("through the plain reverse proxy (the floor):")
		r.holdStreams(plain, strconv.Itoa(r.plain.Process.Pid), n, ramp, false)
	}
	fmt.Println("through detour:")
	hwm, failed := r.holdStreams(detour, strconv.Itoa(det.Process.Pid), n, ramp, true)
	if n == 1000 {
		verdict("peak RSS with 1,000 streams", fmt.Sprintf("%.1f MiB", mb(hwm)), "< 60 MiB", hwm < targetRSS)
	}
	if possible {
		verdict(fmt.Sprintf("%d streams without error", n), fmt.Sprintf("%d failed", failed), "0", failed == 0)
	} else {
		fmt.Printf("  %-38s %9s  (target 0)  NOT JUDGEABLE: the open-file limit (%d) allows %d streams\n",
			fmt.Sprintf("%d streams without error", n), fmt.Sprintf("%d failed", failed), limit, room)
	}
	return nil
}

// holdStreams holds n slow streams open through url at once and reports
// the RSS of the process pid (VmRSS sampled every 100ms, and the kernel's
// VmHWM peak), how many were open together at most, and every failure; it
// returns the peak and the failures. profile fetches detour's profiles with
// every stream open (-pprof).
func (r *runner) holdStreams(url, pid string, n, ramp int, profile bool) (hwm uint64, failures int64) {
	idle := procfs.Status(pid, "VmRSS:")
	idleAnon := procfs.Status(pid, "RssAnon:")
	idleG := 0
	if profile {
		idleG = r.prof.goroutines()
	}
	served := r.fakeServed()
	c := client(n, clientTLS(r.cert))
	defer c.CloseIdleConnections()
	var open, peakOpen, ok, failed atomic.Int64
	errs := map[string]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	wg.Go(func() { // the starter, so that sampling runs while streams start
		for i := range n {
			if ramp > 0 {
				if w := time.Until(start.Add(time.Duration(i) * time.Second / time.Duration(ramp))); w > 0 {
					time.Sleep(w)
				}
			}
			wg.Go(func() {
				err := stream(c, url, &open, &peakOpen)
				if err == nil {
					ok.Add(1)
					return
				}
				failed.Add(1)
				mu.Lock()
				errs[firstLine(err.Error())]++
				mu.Unlock()
			})
		}
	})
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	var peakRSS, peakAnon uint64
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	profiled := !profile || !r.prof.on()
loop:
	for {
		select {
		case <-done:
			break loop
		case <-tick.C:
			peakRSS = max(peakRSS, procfs.Status(pid, "VmRSS:"))
			peakAnon = max(peakAnon, procfs.Status(pid, "RssAnon:"))
			if !profiled && peakOpen.Load() == int64(n) {
				profiled = true
				g := r.prof.goroutines()
				fmt.Printf("  with all %d streams open: detour runs %d goroutines (%d idle): %.2f per stream\n",
					n, g, idleG, float64(g-idleG)/float64(n))
				for _, p := range [][2]string{{"goroutine", "goroutine.pprof"}, {"heap?gc=1", "heap.pprof"}, {"heap?debug=1", "heap.txt"}} {
					if err := r.prof.fetch(p[0], p[1]); err != nil {
						fmt.Println("  profile:", err)
					}
				}
			}
		}
	}
	hwm = procfs.Status(pid, "VmHWM:")
	fmt.Printf("  took %s; at most %d open together; %d ended with [DONE], %d failed\n",
		time.Since(start).Round(time.Millisecond), peakOpen.Load(), ok.Load(), failed.Load())
	for e, k := range errs {
		fmt.Printf("    %d× %s\n", k, e)
	}
	fmt.Printf("  the fake upstream served %s\n", served.since(r.fakeServed()))
	fmt.Printf("  RSS: idle %.1f MiB, sampled peak %.1f MiB, VmHWM %.1f MiB (%.1f KiB per stream over idle)\n",
		mb(idle), mb(peakRSS), mb(hwm), (float64(hwm)-float64(idle))/1024/float64(n))
	// RSS counts the pages of the binary that were read (file-backed, shared,
	// reclaimable), about 15 MiB whatever the load; RssAnon is the memory
	// the process allocated.
	fmt.Printf("  RssAnon: idle %.1f MiB, sampled peak %.1f MiB\n", mb(idleAnon), mb(peakAnon))
	return hwm, failed.Load()
}

// stream reads one streamed answer to its end; open counts the streams that
// have seen their first event and not yet ended.
func stream(c *http.Client, url string, open, peak *atomic.Int64) error {
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(streamBody))
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	sc := bufio.NewScanner(resp.Body)
	first, last := true, ""
	for sc.Scan() {
		if line := sc.Text(); line != "" {
			last = line
			if first {
				first = false
				v := open.Add(1)
				for p := peak.Load(); v > p && !peak.CompareAndSwap(p, v); p = peak.Load() {
				}
				defer open.Add(-1)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if last != "data: [DONE]" {
		return fmt.Errorf("stream ended with %q", last)
	}
	return nil
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

func mb(v uint64) float64 { return float64(v) / (1 << 20) }
