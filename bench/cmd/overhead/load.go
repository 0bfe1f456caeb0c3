package main

import (
	"crypto/tls"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Targets (issue 9, docs/benchmarks.md#overhead-beside-a-plain-reverse-proxy-benchcmdoverhead).
const (
	targetP50Gap = 50 * time.Microsecond  // Detour's added p50 − the plain proxy's
	targetP99Gap = 300 * time.Microsecond // Detour's added p99 − the plain proxy's
	targetRatio  = 1.0                    // Detour's throughput / the plain proxy's at -conns
)

var names = []string{"direct", "plain", "detour"}

// client is a keep-alive client able to hold conns connections per host,
// trusting tc's roots (nil: the system's) and speaking HTTP/2 where TLS
// offers it (the direct path to an h2tls fake).
func client(conns int, tc *tls.Config) *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy: nil, MaxIdleConns: 2 * conns, MaxIdleConnsPerHost: 2 * conns, IdleConnTimeout: time.Minute,
		TLSClientConfig: tc, ForceAttemptHTTP2: true,
	}}
}

// post sends body to url and reads the whole answer; anything but a 200 is
// an error.
func post(c *http.Client, url, body string) error {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: status %d: %.200s", url, resp.StatusCode, b)
	}
	return nil
}

// paced sends requests to url at rate per second for d, open loop (a
// request's start does not wait for earlier ones), and returns each one's
// latency, sorted.
func paced(c *http.Client, url string, rate int, d time.Duration) ([]time.Duration, error) {
	n := int(d.Seconds() * float64(rate))
	gap := time.Second / time.Duration(rate)
	lat := make([]time.Duration, n)
	var failed atomic.Value
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		if w := time.Until(start.Add(time.Duration(i) * gap)); w > 0 {
			time.Sleep(w)
		}
		wg.Go(func() {
			t := time.Now()
			if err := post(c, url, chatBody); err != nil {
				failed.CompareAndSwap(nil, err)
			}
			lat[i] = time.Since(t)
		})
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		return nil, err
	}
	slices.Sort(lat)
	return lat, nil
}

// pacedTogether sends requests to every url at rate per second each for d,
// open loop, with the schedules interleaved: url k's i-th request starts at
// i/rate + k/(rate·len(urls)), so the paths take turns request by request
// and every one meets the same moments of the machine. It returns each
// url's latencies, sorted.
func pacedTogether(c *http.Client, urls []string, rate int, d time.Duration) ([][]time.Duration, error) {
	n := int(d.Seconds() * float64(rate))
	step := time.Second / time.Duration(rate*len(urls))
	lat := make([][]time.Duration, len(urls))
	for k := range lat {
		lat[k] = make([]time.Duration, n)
	}
	var failed atomic.Value
	var wg sync.WaitGroup
	start := time.Now()
	for j := range n * len(urls) {
		if w := time.Until(start.Add(time.Duration(j) * step)); w > 0 {
			time.Sleep(w)
		}
		k, i := j%len(urls), j/len(urls)
		wg.Go(func() {
			t := time.Now()
			if err := post(c, urls[k], chatBody); err != nil {
				failed.CompareAndSwap(nil, err)
			}
			lat[k][i] = time.Since(t)
		})
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		return nil, err
	}
	for _, l := range lat {
		slices.Sort(l)
	}
	return lat, nil
}

// orders are the six orders of the three paths.
var orders = [][]int{{0, 1, 2}, {2, 1, 0}, {1, 2, 0}, {0, 2, 1}, {2, 0, 1}, {1, 0, 2}}

// closed runs conns clients back to back against url for d and returns
// requests per second.
func closed(c *http.Client, url string, conns int, d time.Duration) (float64, error) {
	var n atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	start := time.Now()
	stop := start.Add(d)
	for range conns {
		wg.Go(func() {
			for time.Now().Before(stop) {
				if err := post(c, url, chatBody); err != nil {
					failed.CompareAndSwap(nil, err)
					return
				}
				n.Add(1)
			}
		})
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		return 0, err
	}
	return float64(n.Load()) / time.Since(start).Seconds(), nil
}

// pct returns the p-th percentile (nearest rank) of sorted d.
func pct(d []time.Duration, p float64) time.Duration {
	i := int(p/100*float64(len(d))+0.999999) - 1
	return d[max(0, min(i, len(d)-1))]
}

func median[T int64 | float64 | time.Duration](v []T) T {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// medianInterval is a 90% bootstrap interval for the median of v: the 5th
// and 95th percentiles of the medians of 2,000 resamples of v (with a fixed
// seed, so a run's figures print the same every time they are computed).
// With few values it is wide: it says how far a run's median can be trusted.
func medianInterval[T int64 | float64 | time.Duration](v []T) (lo, hi T) {
	rng := rand.New(rand.NewPCG(1, 2))
	meds := make([]T, 2000)
	s := make([]T, len(v))
	for i := range meds {
		for j := range s {
			s[j] = v[rng.IntN(len(v))]
		}
		meds[i] = median(s)
	}
	slices.Sort(meds)
	return meds[len(meds)*5/100], meds[len(meds)*95/100]
}

// trust prints, under a verdict, the interval its median lies in (f
// formats a bound) and what the interval says of the target (trustSays).
func trust(lo, hi, limit float64, upTo bool, f func(float64) string) {
	fmt.Printf("  %-38s %s…%s: %s\n", "  the median's 90% interval", f(lo), f(hi), trustSays(lo, hi, limit, upTo))
}

// trustSays tells whether an interval [lo, hi] meets a target (limit, met
// at or below it when upTo, at or above it otherwise) in all of it, in none
// of it, or neither: then the run cannot tell met from not met.
func trustSays(lo, hi, limit float64, upTo bool) string {
	met, missed := hi <= limit, lo > limit
	if !upTo {
		met, missed = lo >= limit, hi < limit
	}
	switch {
	case met:
		return "all of it meets the target"
	case missed:
		return "none of it meets the target"
	}
	return "the target lies inside it: this run cannot tell, more rounds (-rounds 24) would"
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }

func (r *runner) latency(bin string, rate, conns, rounds int, dur time.Duration, together bool) error {
	direct, plain, detour, det, err := r.paths(bin, 0)
	if err != nil {
		return err
	}
	urls := []string{direct, plain, detour}
	// The CPU the proxy process of each path spent on the paced requests
	// (none for direct): a figure the machine's other load hardly moves.
	pids := []int{0, r.plain.Process.Pid, det.Process.Pid}
	cpu := make([][]time.Duration, 3)
	c := client(conns, clientTLS(r.cert))
	for _, u := range urls { // warm: open connections on every hop
		if _, err := closed(c, u, conns, 300*time.Millisecond); err != nil {
			return err
		}
	}
	sched := "one path after the other"
	if together {
		sched = "the three paths together, taking turns request by request"
	}
	fmt.Printf("latency: %d rps open loop per path for %s a round, %s; throughput: %d connections for %s; %d rounds, order rotating\n",
		rate, dur, sched, conns, dur, rounds)
	p50 := make([][]time.Duration, 3)
	p99 := make([][]time.Duration, 3)
	rps := make([][]float64, 3)
	var prof sync.WaitGroup
	if r.prof.on() { // detour's CPU over the whole run: its own share only
		phases := 6 // three paced, three closed-loop
		if together {
			phases = 4
		}
		secs := int((time.Duration(rounds*phases) * dur).Seconds()) + 1
		prof.Go(func() {
			if err := r.prof.fetch(fmt.Sprintf("profile?seconds=%d", secs), "cpu.pprof"); err != nil {
				fmt.Println("  cpu profile:", err)
			}
		})
		prof.Go(func() {
			if err := r.prof.fetchFrom(r.prof.plainAddr, fmt.Sprintf("profile?seconds=%d", secs), "plain-cpu.pprof"); err != nil {
				fmt.Println("  plain proxy's cpu profile:", err)
			}
		})
	}
	for round := range rounds {
		if together {
			// One paced phase for the three paths, their requests taking
			// turns; the order runs through all six permutations, so each
			// path follows each other one as often (a request's latency
			// carries some of the one sent just before it).
			order := orders[round%len(orders)]
			before := []time.Duration{cpuTime(pids[0]), cpuTime(pids[1]), cpuTime(pids[2])}
			ordered := make([]string, 3)
			for k, i := range order {
				ordered[k] = urls[i]
			}
			if round == 0 {
				r.traces(&prof, dur)
			}
			lats, err := pacedTogether(c, ordered, rate, dur)
			if err != nil {
				return err
			}
			for k, i := range order {
				cpu[i] = append(cpu[i], (cpuTime(pids[i])-before[i])/time.Duration(len(lats[k])))
				p50[i] = append(p50[i], pct(lats[k], 50))
				p99[i] = append(p99[i], pct(lats[k], 99))
			}
		}
		for k := range 3 {
			if together {
				break
			}
			i := (round + k) % 3
			before := cpuTime(pids[i])
			lat, err := paced(c, urls[i], rate, dur)
			if err != nil {
				return err
			}
			cpu[i] = append(cpu[i], (cpuTime(pids[i])-before)/time.Duration(len(lat)))
			p50[i] = append(p50[i], pct(lat, 50))
			p99[i] = append(p99[i], pct(lat, 99))
		}
		for k := range 3 {
			i := (round + k) % 3
			v, err := closed(c, urls[i], conns, dur)
			if err != nil {
				return err
			}
			rps[i] = append(rps[i], v)
		}
		fmt.Printf("round %d:", round+1)
		for i, n := range names {
			fmt.Printf("  %s p50 %.0fµs p99 %.0fµs %.0f rps;", n, us(p50[i][round]), us(p99[i][round]), rps[i][round])
		}
		fmt.Println()
	}
	if r.prof.on() {
		prof.Wait()
		if err := r.prof.fetch("allocs", "allocs.pprof"); err != nil {
			fmt.Println("  allocs profile:", err)
		}
		if err := r.prof.fetchFrom(r.prof.plainAddr, "allocs", "plain-allocs.pprof"); err != nil {
			fmt.Println("  plain proxy's allocs profile:", err)
		}
	}
	fmt.Printf("the fake upstream served %s (direct, plain and detour together)\n", protoCounts(c, r.fake))
	m50 := []time.Duration{median(p50[0]), median(p50[1]), median(p50[2])}
	m99 := []time.Duration{median(p99[0]), median(p99[1]), median(p99[2])}
	mr := []float64{median(rps[0]), median(rps[1]), median(rps[2])}
	fmt.Printf("\nmedians of %d rounds       p50        p99   throughput\n", rounds)
	for i, n := range names {
		fmt.Printf("  %-8s           %7.0fµs  %7.0fµs  %7.0f rps\n", n, us(m50[i]), us(m99[i]), mr[i])
	}
	addP := func(i int) (time.Duration, time.Duration) { return m50[i] - m50[0], m99[i] - m99[0] }
	p50p, p99p := addP(1)
	p50d, p99d := addP(2)
	fmt.Printf("\nadded over direct     p50        p99\n")
	fmt.Printf("  plain proxy       %+7.0fµs  %+7.0fµs\n", us(p50p), us(p99p))
	fmt.Printf("  detour            %+7.0fµs  %+7.0fµs\n", us(p50d), us(p99d))
	// The targets compare detour with the plain proxy round by round: the
	// two ran seconds apart, so load from elsewhere on the machine hits both
	// alike, and the median of the rounds' gaps discards a round that one
	// burst of outside load spoiled.
	gap50, gap99 := make([]time.Duration, rounds), make([]time.Duration, rounds)
	ratios := make([]float64, rounds)
	for k := range rounds {
		gap50[k], gap99[k] = p50[2][k]-p50[1][k], p99[2][k]-p99[1][k]
		ratios[k] = rps[2][k] / rps[1][k]
	}
	fmt.Printf("\nCPU of the proxy process per paced request (all its threads): plain %.0fµs, detour %.0fµs (medians)\n",
		us(median(cpu[1])), us(median(cpu[2])))
	fmt.Printf("\ndetour − plain, round by round\n")
	fmt.Printf("  p50 gap     %s\n", list(gap50, func(d time.Duration) string { return fmt.Sprintf("%+.0fµs", us(d)) }))
	fmt.Printf("  p99 gap     %s\n", list(gap99, func(d time.Duration) string { return fmt.Sprintf("%+.0fµs", us(d)) }))
	fmt.Printf("  throughput  %s\n", list(ratios, func(v float64) string { return fmt.Sprintf("%.2f×", v) }))
	g50, g99, ratio := median(gap50), median(gap99), median(ratios)
	fmt.Printf("\ntargets (medians of the rounds' gaps)\n")
	micros := func(v float64) string { return fmt.Sprintf("%+.0fµs", v) }
	verdict("detour − plain, added p50", micros(us(g50)), fmt.Sprintf("≤ %.0fµs", us(targetP50Gap)), g50 <= targetP50Gap)
	lo, hi := medianInterval(gap50)
	trust(us(lo), us(hi), us(targetP50Gap), true, micros)
	verdict("detour − plain, added p99", micros(us(g99)), fmt.Sprintf("≤ %.0fµs", us(targetP99Gap)), g99 <= targetP99Gap)
	lo, hi = medianInterval(gap99)
	trust(us(lo), us(hi), us(targetP99Gap), true, micros)
	verdict(fmt.Sprintf("throughput detour/plain at %d conns", conns), fmt.Sprintf("%.2f×", ratio), fmt.Sprintf("≥ %.1f×", targetRatio), ratio >= targetRatio)
	rlo, rhi := medianInterval(ratios)
	trust(rlo, rhi, targetRatio, false, func(v float64) string { return fmt.Sprintf("%.2f×", v) })
	return nil
}

// cpuTime is the CPU time process pid has spent, all its threads together
// (the kernel's schedstat, in nanoseconds); 0 for pid 0.
func cpuTime(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	dirs, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	var sum time.Duration
	for _, d := range dirs {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, d.Name()))
		if err != nil {
			continue
		}
		f := strings.Fields(string(b))
		if len(f) > 0 {
			ns, _ := strconv.ParseInt(f[0], 10, 64)
			sum += time.Duration(ns)
		}
	}
	return sum
}

// list formats every round's value.
func list[T any](v []T, f func(T) string) string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = f(x)
	}
	return strings.Join(out, "  ")
}

func verdict(what, got, want string, ok bool) {
	v := "MET"
	if !ok {
		v = "NOT MET"
	}
	fmt.Printf("  %-38s %9s  (target %s)  %s\n", what, got, want, v)
}
