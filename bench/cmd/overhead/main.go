// Command overhead measures, in one run, what Detour adds to a request next
// to a plain httputil.ReverseProxy in front of the same loopback upstream
// (docs/benchmarks.md, section "Overhead"). It starts three processes of its
// own: a fake OpenAI-shaped upstream, a plain reverse proxy and a built
// `detour serve`, all on 127.0.0.1, and drives them from this process.
//
//	go run ./bench/cmd/overhead                 # latency at a fixed rate + throughput
//	go run ./bench/cmd/overhead -mode streams   # peak RSS with 1,000 open streams (plain proxy, then detour)
//	go run ./bench/cmd/overhead -mode streams -streams 10000 -every 1s -floor=false
//	go run ./bench/cmd/overhead -mode streams -upstream h1   # plain HTTP/1.1 upstream
//	go run ./bench/cmd/overhead -mode footprint  # the code one request runs, counted by callgrind
//
// The fake upstream serves TLS with HTTP/2 by default (-upstream h2tls), as
// the hosted providers do, with a self-signed certificate made at start that
// the plain proxy and detour trust through SSL_CERT_FILE.
//
// In a round's latency phase the three paths (direct, plain, detour) are
// paced together, their requests taking turns, so whatever else the machine
// does at that moment hits all three alike (-together=false runs them one
// after the other, as before); throughput runs each path alone, in a
// rotating order. Each figure is the median over rounds.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

func main() {
	role := flag.String("role", "", "internal: run as the fake upstream (fake) or the plain proxy (plain)")
	to := flag.String("to", "", "internal: the plain proxy's upstream base URL")
	delay := flag.Duration("event-delay", 0, "internal: the fake's gap before each stream event")
	cert := flag.String("cert", "", "internal: the fake's TLS certificate (PEM; with -key)")
	key := flag.String("key", "", "internal: the fake's TLS key (PEM)")
	kind := flag.String("upstream", upH2TLS, "the fake upstream: h2tls (TLS with HTTP/2, as the hosted providers are reached) or h1 (plain HTTP/1.1, as a self-hosted server on http)")
	mode := flag.String("mode", "latency", "latency (p50/p99 at -rate, throughput at -conns), streams (RSS with -streams open) or footprint (the code one request runs in each proxy, counted by valgrind's callgrind)")
	requests := flag.Int("requests", 300, "footprint: requests counted through each proxy")
	keep := flag.String("keep", "", "footprint: copy callgrind's dumps (plain.cg, detour.cg) into this directory, for callgrind_annotate")
	bin := flag.String("detour", "", "a built detour binary (default: ./cmd/detour built as the Dockerfile builds it, into a temporary directory)")
	rate := flag.Int("rate", 500, "latency: requests per second, open loop")
	dur := flag.Duration("dur", 2*time.Second, "length of one path's share of a round")
	rounds := flag.Int("rounds", 6, "rounds; each runs every path once, in a rotating order (6: the paced turns run through every order of the three paths)")
	conns := flag.Int("conns", 50, "throughput: closed-loop connections")
	streams := flag.Int("streams", 1000, "streams: how many streams are held open at once")
	every := flag.Duration("every", 200*time.Millisecond, "streams: the upstream's gap before each event")
	floor := flag.Bool("floor", true, "streams: hold the same streams through the plain reverse proxy first, as the floor")
	ramp := flag.Int("ramp", 2000, "streams: how many streams are started per second (0: all at once)")
	pprofAddr := flag.String("pprof-addr", "", "internal: the plain proxy serves net/http/pprof on this loopback address")
	together := flag.Bool("together", true, "latency: pace the three paths at once, their requests taking turns (false: each path alone for -dur, one after the other)")
	aa := flag.Bool("aa", false, "A/A check of the benchmark itself: a second plain proxy (a copy of its own) takes detour's place, so every gap reported should be noise around 0")
	pprofDir := flag.String("pprof", "", "build detour with -tags pprof and save its profiles into this directory (streams: goroutine and heap with every stream open; latency: CPU and allocs over detour's share)")
	flag.Parse()

	switch *role {
	case "fake":
		serveFake(*delay, *cert, *key)
		return
	case "plain":
		servePlain(*to, *pprofAddr)
		return
	}
	raiseNoFile()
	r := &runner{dir: must(os.MkdirTemp("", "detour-overhead-")), kind: *kind, aa: *aa}
	defer r.stop()
	switch *kind {
	case upH1:
	case upH2TLS:
		c, k, err := selfSigned(r.dir)
		if err != nil {
			r.fatalf("certificate: %v", err)
		}
		r.cert, r.key = c, k
	default:
		r.fatalf("unknown -upstream %q (h2tls or h1)", *kind)
	}
	fmt.Printf("upstream: %s\n", *kind)
	if *aa {
		fmt.Println("A/A: the lines and verdicts below that say detour are a second plain proxy")
	}
	if *pprofDir != "" {
		if *bin != "" {
			r.fatalf("-pprof builds detour itself (with -tags pprof): drop -detour")
		}
		if err := os.MkdirAll(*pprofDir, 0o755); err != nil {
			r.fatalf("%v", err)
		}
		r.prof = &profiler{dir: *pprofDir, addr: freeAddr()}
	}
	if *aa && (*pprofDir != "" || *bin != "") {
		r.fatalf("-aa runs no detour: drop -pprof and -detour")
	}
	if *bin == "" && !*aa {
		// Built as the Dockerfile builds the release binary: static, no
		// symbol table (docs/deploy.md).
		*bin = filepath.Join(r.dir, "detour")
		args := []string{"build", "-trimpath", "-ldflags=-s -w", "-o", *bin}
		if *mode == "footprint" { // the same code, with the symbol table that names it
			args = []string{"build", "-trimpath", "-o", *bin}
		}
		if r.prof.on() {
			args = append(args, "-tags", "pprof")
		}
		build := exec.Command("go", append(args, "github.com/detour-llm/detour/cmd/detour")...)
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := build.CombinedOutput()
		if err != nil {
			r.fatalf("go build ./cmd/detour: %v\n%s", err, out)
		}
	}
	var err error
	switch *mode {
	case "latency":
		err = r.latency(*bin, *rate, *conns, *rounds, *dur, *together)
	case "streams":
		err = r.streams(*bin, *streams, *every, *ramp, *floor)
	case "footprint":
		err = r.footprint(*bin, *requests, *keep)
	default:
		err = fmt.Errorf("unknown -mode %q", *mode)
	}
	if err != nil {
		r.fatalf("%v", err)
	}
}

// raiseNoFile lifts this process's open-file limit (and so its children's):
// 10,000 streams hold 10,000 sockets in the client, the fake and twice that
// in the gateway. As root the hard limit is raised too.
func raiseNoFile() {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return
	}
	want := uint64(1 << 16)
	if l.Max < want {
		h := syscall.Rlimit{Cur: want, Max: want}
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &h) == nil {
			l = h
		}
	}
	l.Cur = l.Max
	_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
	_ = syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l)
	fmt.Printf("open-file limit: %d (soft) / %d (hard)\n", l.Cur, l.Max)
}

// runner owns the child processes and the temporary directory.
type runner struct {
	dir   string
	procs []*exec.Cmd
	prof  *profiler // nil: no -pprof
	// cert and key are the fake's self-signed certificate and key; ""
	// for -upstream h1 (plain http).
	cert, key string
	kind      string    // the fake's -upstream kind
	plain     *exec.Cmd // the plain reverse proxy, once started
	aa        bool      // -aa: a second plain proxy stands in detour's place
	// callgrind: the proxies run under valgrind's callgrind, each writing
	// its counts to NAME.cg in dir (-mode footprint).
	callgrind bool
	// plainExe, when set, is the plain proxy's program (-mode footprint
	// builds one with its symbol table); otherwise a copy of this one.
	plainExe string
	fake     string // the fake's base URL, once started
}

// childEnv is the environment of the plain proxy and detour: trust the
// fake's certificate (crypto/x509 reads SSL_CERT_FILE on Linux).
func (r *runner) childEnv(extra ...string) []string {
	env := os.Environ()
	if r.cert != "" {
		env = append(env, "SSL_CERT_FILE="+r.cert)
	}
	return append(env, extra...)
}

func (r *runner) stop() {
	for _, p := range r.procs {
		_ = p.Process.Signal(syscall.SIGTERM)
	}
	for _, p := range r.procs {
		_ = p.Wait()
	}
	r.procs = nil
	os.RemoveAll(r.dir)
}

func (r *runner) fatalf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "overhead: "+format+"\n", a...)
	r.stop()
	os.Exit(1)
}

// child starts a process that prints its listen address as its first line
// of output and returns that address.
func (r *runner) child(name string, args ...string) (string, *exec.Cmd, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = r.childEnv()
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	r.procs = append(r.procs, cmd)
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		return "", nil, fmt.Errorf("%s printed no address: %v", name, err)
	}
	go io.Copy(io.Discard, out)
	return strings.TrimSpace(line), cmd, nil
}

// paths starts the fake, the plain proxy and detour and returns the chat
// completions URL of each, and detour's process.
func (r *runner) paths(bin string, delay time.Duration) (direct, plain, detour string, det *exec.Cmd, err error) {
	self, err := os.Executable()
	if err != nil {
		return
	}
	fargs := []string{"-role", "fake", "-event-delay", delay.String()}
	scheme := "http://"
	if r.cert != "" {
		fargs = append(fargs, "-cert", r.cert, "-key", r.key)
		scheme = "https://"
	}
	fake, _, err := r.child(self, fargs...)
	if err != nil {
		return
	}
	r.fake = scheme + fake
	pargs := []string{"-role", "plain", "-to", r.fake}
	if r.prof.on() {
		r.prof.plainAddr = freeAddr()
		pargs = append(pargs, "-pprof-addr", r.prof.plainAddr)
	}
	plainExe := r.plainExe
	if plainExe == "" {
		if plainExe, err = r.ownCopy(self, "plain-proxy"); err != nil {
			return
		}
	}
	pn, pa := r.wrapped("plain", plainExe, pargs...)
	p, pc, err := r.child(pn, pa...)
	if err != nil {
		return
	}
	r.plain = pc
	if r.aa {
		return r.secondPlain(self, p)
	}
	cfg := filepath.Join(r.dir, "detour.yaml")
	listen := freeAddr()
	yaml := "listen: " + listen + "\ndecisions: {path: /dev/null}\nlog: {level: warn}\n" +
		"providers:\n  - {name: fake, dialect: openai, base_url: \"" + r.fake + "\", api_key: sk-bench}\n" +
		"targets:\n  - {name: gpt, model: " + model + ", providers: [fake]}\n"
	if err = os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		return
	}
	dn, da := r.wrapped("detour", bin, "serve", "-c", cfg, "-grace", "1s")
	det = exec.Command(dn, da...)
	det.Stderr = os.Stderr
	det.Env = r.childEnv()
	if r.prof.on() {
		det.Env = r.childEnv("DETOUR_PPROF=" + r.prof.addr)
	}
	if err = det.Start(); err != nil {
		return
	}
	r.procs = append(r.procs, det)
	detour = "http://" + listen + "/v1/chat/completions"
	if err = waitUp("http://" + listen + "/v1/models"); err != nil {
		return
	}
	return r.fake + "/v1/chat/completions", "http://" + p + "/v1/chat/completions", detour, det, nil
}

// wrapped is the command line that runs the proxy name (the program at
// exe with args), under callgrind when r.callgrind.
func (r *runner) wrapped(name, exe string, args ...string) (string, []string) {
	if !r.callgrind {
		return exe, args
	}
	w := callgrindArgs(filepath.Join(r.dir, name+".cg"))
	return w[0], append(append(w[1:], exe), args...)
}

// ownCopy copies the program at self to a file of its own in the run's
// directory and returns its path. A proxy must not run from the file the
// load generator and the fake run from: processes of one file share its
// code pages, so the client's and the fake's net/http work between two
// requests would keep the proxy's code warm in the CPU caches, an advantage
// detour, a file of its own, does not get (measured with -aa:
// docs/benchmarks.md, "Round 9").
func (r *runner) ownCopy(self, name string) (string, error) {
	src, err := os.Open(self)
	if err != nil {
		return "", err
	}
	defer src.Close()
	path := filepath.Join(r.dir, name)
	dst, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		return "", err
	}
	if _, err = io.Copy(dst, src); err != nil {
		dst.Close()
		return "", err
	}
	return path, dst.Close()
}

// secondPlain starts, for -aa, a second plain proxy from a copy of its own
// in detour's place, and returns the paths as paths does: the same program
// on both sides, so any gap the run reports is the benchmark's own.
func (r *runner) secondPlain(self, plainAddr string) (direct, plain, detour string, det *exec.Cmd, err error) {
	exe, err := r.ownCopy(self, "plain-proxy-2")
	if err != nil {
		return
	}
	a, cmd, err := r.child(exe, "-role", "plain", "-to", r.fake)
	if err != nil {
		return
	}
	return r.fake + "/v1/chat/completions", "http://" + plainAddr + "/v1/chat/completions", "http://" + a + "/v1/chat/completions", cmd, nil
}

func waitUp(url string) error {
	for start := time.Now(); time.Since(start) < 30*time.Second; time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return fmt.Errorf("%s did not answer within 30s", url)
}

func must[T any](v T, err error) T {
	if err != nil {
		fmt.Fprintln(os.Stderr, "overhead:", err)
		os.Exit(1)
	}
	return v
}
