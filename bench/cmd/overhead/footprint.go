package main

import (
	"bufio"
	"cmp"
	"debug/elf"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// -mode footprint: the code each proxy runs for one request, counted by
// valgrind's callgrind rather than timed (docs/benchmarks.md, "Round 10").
// On a machine where the load generator and the upstream run between two
// requests, a proxy's code is cold when a request arrives, and what the
// request costs follows how much code and how many pages it touches; a
// count of them does not drift with the machine's other load, as latency
// does, so a change of a few KiB shows in one run.

// callgrindArgs run a proxy under callgrind with instrumentation off until
// `callgrind_control -i on`, keeping per-instruction counts. The Go
// runtime's preemption signals trip callgrind, hence asyncpreemptoff.
func callgrindArgs(out string) []string {
	return []string{"env", "GODEBUG=asyncpreemptoff=1", "valgrind", "-q", "--tool=callgrind", "--instr-atstart=no",
		"--dump-instr=yes", "--compress-pos=no", "--compress-strings=no", "--callgrind-out-file=" + out}
}

// footprint starts the fake, then the plain proxy and detour under
// callgrind, warms both, counts n paced requests through each and prints
// what one request touched. With keep set, callgrind's dumps are copied
// there as plain.cg and detour.cg (callgrind_annotate reads them; the
// binaries' functions are named, so `callgrind_annotate detour.cg` lists
// them by instructions, to divide by n).
func (r *runner) footprint(bin string, n int, keep string) error {
	if _, err := exec.LookPath("valgrind"); err != nil {
		return fmt.Errorf("-mode footprint needs valgrind (apt-get install valgrind): %v", err)
	}
	if !hasSymbols(bin) {
		return fmt.Errorf("%s has no symbol table: build it without -ldflags=-s (-mode footprint names functions)", bin)
	}
	// The plain proxy is this program, which `go run` builds without a
	// symbol table: build it again with one.
	r.plainExe = filepath.Join(r.dir, "plain-proxy")
	build := exec.Command("go", "build", "-trimpath", "-o", r.plainExe, "github.com/detour-llm/detour/bench/cmd/overhead")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./bench/cmd/overhead: %v\n%s", err, out)
	}
	r.callgrind = true
	_, plain, detour, det, err := r.paths(bin, 0)
	if err != nil {
		return err
	}
	c := client(1, clientTLS(r.cert))
	procs := []struct {
		name, url string
		pid       int
	}{{"plain", plain, r.plain.Process.Pid}, {"detour", detour, det.Process.Pid}}
	for _, p := range procs {
		for range 200 { // the connections open, every lazy init done
			if err := post(c, p.url, chatBody); err != nil {
				return err
			}
		}
		if out, err := exec.Command("callgrind_control", "-i", "on", strconv.Itoa(p.pid)).CombinedOutput(); err != nil {
			return fmt.Errorf("callgrind_control -i on: %v: %s", err, out)
		}
	}
	fmt.Printf("footprint: %d requests through each proxy, one every 2 ms, counted by callgrind\n", n)
	for range n {
		for _, p := range procs {
			if err := post(c, p.url, chatBody); err != nil {
				return err
			}
			time.Sleep(time.Millisecond)
		}
	}
	var feet []*foot
	for _, p := range procs {
		if out, err := exec.Command("callgrind_control", "-d", strconv.Itoa(p.pid)).CombinedOutput(); err != nil {
			return fmt.Errorf("callgrind_control -d: %v: %s", err, out)
		}
		dumps, _ := filepath.Glob(filepath.Join(r.dir, p.name+".cg.*"))
		if len(dumps) == 0 {
			return fmt.Errorf("callgrind wrote no dump for %s", p.name)
		}
		if keep != "" {
			if err := copyFile(dumps[0], filepath.Join(keep, p.name+".cg")); err != nil {
				return err
			}
		}
		f, err := os.Open(dumps[0])
		if err != nil {
			return err
		}
		ft, err := readCallgrind(f, n)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %v", dumps[0], err)
		}
		feet = append(feet, ft)
	}
	printFootprint(feet[0], feet[1])
	return nil
}

// copyFile copies the file at from to to, creating to's directory.
func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

// hasSymbols reports whether the ELF file at path has a symbol table.
func hasSymbols(path string) bool {
	f, err := elf.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return f.Section(".symtab") != nil
}

// foot is what one request ran: the 64-byte lines of code one of whose
// instructions ran for at least half the requests counted, in all and
// outside the Go runtime
// (whose scheduler and collector work varies with timing), the 4 KiB pages
// those lines lie on, and the instructions a request outside the runtime.
type foot struct {
	lines, ownLines int
	pages, ownPages int
	ownInstr        float64
	byPackage       map[string]int // lines outside the runtime, by package
}

// readCallgrind reads a callgrind dump written with --dump-instr=yes
// --compress-pos=no --compress-strings=no (each cost line "0xADDR LINE
// [COST]"; the line after "calls=" is a call's inclusive cost, skipped) for
// n requests. A line of code counts when one of its instructions ran at
// least n/2 times.
func readCallgrind(rd io.Reader, n int) (*foot, error) {
	ran := map[uint64]int64{} // executions by instruction address
	owner := map[uint64]string{}
	fn := ""
	skip := false
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case skip:
			skip = false
		case strings.HasPrefix(l, "fn="):
			fn = l[3:]
		case strings.HasPrefix(l, "calls="):
			skip = true
		case strings.HasPrefix(l, "0x"):
			f := strings.Fields(l)
			a, err := strconv.ParseUint(f[0][2:], 16, 64)
			if err != nil {
				return nil, fmt.Errorf("cost line %q", l)
			}
			var c int64
			if len(f) > 2 {
				if c, err = strconv.ParseInt(f[2], 10, 64); err != nil {
					return nil, fmt.Errorf("cost line %q", l)
				}
			}
			ran[a] += c
			if _, ok := owner[a>>6]; !ok {
				owner[a>>6] = fn
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	hot := map[uint64]bool{}
	var instr int64
	for a, c := range ran {
		if !runtimeCode(owner[a>>6]) {
			instr += c
		}
		if c >= int64(n/2) {
			hot[a>>6] = true
		}
	}
	ft := &foot{byPackage: map[string]int{}}
	pages, own := map[uint64]bool{}, map[uint64]bool{}
	for line := range hot {
		ft.lines++
		pages[line>>6] = true
		if fn := owner[line]; !runtimeCode(fn) {
			ft.ownLines++
			own[line>>6] = true
			ft.byPackage[pkgOf(fn)]++
		}
	}
	ft.pages, ft.ownPages = len(pages), len(own)
	ft.ownInstr = float64(instr) / float64(n)
	return ft, nil
}

// runtimeCode reports whether fn is the Go runtime's (or its assembly
// helpers'): scheduling, collection, allocation and memory moves.
func runtimeCode(fn string) bool {
	for _, p := range []string{"runtime.", "internal/runtime/", "gogo", "aeshash", "mem", "indexbyte", "cmpbody", "gcWriteBarrier", "callRet"} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

// pkgOf is the package of a function name as callgrind prints it
// ("net/http.(*conn).serve'2" → "net/http").
func pkgOf(fn string) string {
	fn, _, _ = strings.Cut(fn, "'")
	i := strings.LastIndexByte(fn, '/') + 1
	if j := strings.IndexByte(fn[i:], '.'); j >= 0 {
		return fn[:i+j]
	}
	return fn
}

func printFootprint(plain, det *foot) {
	kib := func(lines int) string { return fmt.Sprintf("%.0f KiB", float64(lines)*64/1024) }
	fmt.Printf("\ncode a request runs (lines run by ≥ half the requests)        plain     detour\n")
	fmt.Printf("  all of it                                                %8s  %8s\n", kib(plain.lines), kib(det.lines))
	fmt.Printf("  on 4 KiB pages                                           %8d  %8d\n", plain.pages, det.pages)
	fmt.Printf("  outside the Go runtime                                   %8s  %8s\n", kib(plain.ownLines), kib(det.ownLines))
	fmt.Printf("  outside the runtime, on 4 KiB pages                      %8d  %8d\n", plain.ownPages, det.ownPages)
	fmt.Printf("  instructions a request outside the runtime               %8.0f  %8.0f\n", plain.ownInstr, det.ownInstr)
	fmt.Printf("\noutside the runtime, by package (KiB)\n")
	pkgs := map[string]bool{}
	for p := range plain.byPackage {
		pkgs[p] = true
	}
	for p := range det.byPackage {
		pkgs[p] = true
	}
	order := slices.Collect(maps.Keys(pkgs))
	slices.SortFunc(order, func(a, b string) int {
		return cmp.Or(cmp.Compare(max(det.byPackage[b], plain.byPackage[b]), max(det.byPackage[a], plain.byPackage[a])), strings.Compare(a, b))
	})
	for _, p := range order[:min(len(order), 20)] {
		fmt.Printf("  %-56s %7.1f  %7.1f\n", p, float64(plain.byPackage[p])*64/1024, float64(det.byPackage[p])*64/1024)
	}
}
