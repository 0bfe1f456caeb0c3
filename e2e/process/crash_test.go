package process

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// The decision log survives kill -9 (docs/security.md, "Crashes").

// crashCfg is a target behind five providers that answer 400 in words no
// rule knows (unknown: the next endpoint at once, nothing cools) and a sixth
// that answers: every record holds six attempts. The long names make a
// record about 4 KiB, so the log's buffer fills many times a second under
// load, the moment a record could be torn across two writes.
func crashCfg(t *testing.T) string {
	bad := fake(t, upstreamtest.Step{Status: 400, Body: `{"error":{"message":"the frobnicator declined"}}`})
	good := fake(t, ok("m"))
	long := strings.Repeat("x", 150)
	var b strings.Builder
	b.WriteString("providers:\n")
	var names []string
	for i := range 6 {
		url := bad.URL
		if i == 5 {
			url = good.URL
		}
		n := "p" + strconv.Itoa(i) + "-" + long
		names = append(names, n)
		b.WriteString("  - {name: " + n + ", dialect: openai, base_url: \"" + url + "\", api_key: sk-test}\n")
	}
	b.WriteString("targets:\n  - {name: t, model: m-" + long + ", providers: [" + strings.Join(names, ", ") + "]}\n")
	return b.String()
}

// startOn runs `detour serve` with body on a fresh port, appending its
// decision records to decPath (kept across restarts); sync is the value of
// decisions.sync ("" leaves it out).
func startOn(t *testing.T, name, decPath, sync, body string) *gateway {
	t.Helper()
	dir := t.TempDir()
	g := &gateway{t: t, name: name, cfgPath: filepath.Join(dir, "detour.yaml"), decPath: decPath,
		stderr: &testutil.Buffer{}, exited: make(chan struct{})}
	g.addr = "127.0.0.1:" + strconv.Itoa(freePort(t))
	g.URL = "http://" + g.addr
	dec := "decisions: {path: " + decPath + "}\n"
	if sync != "" {
		dec = "decisions: {path: " + decPath + ", sync: " + sync + "}\n"
	}
	if err := os.WriteFile(g.cfgPath, []byte("listen: "+g.addr+"\n"+dec+body), 0o644); err != nil {
		t.Fatal(err)
	}
	g.cmd = exec.Command(detourBin, "serve", "-c", g.cfgPath)
	g.cmd.Stdout, g.cmd.Stderr = io.Discard, g.stderr
	if err := g.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = g.cmd.Wait(); close(g.exited) }()
	t.Cleanup(func() {
		if g.running() {
			_ = g.cmd.Process.Kill()
			<-g.exited
		}
	})
	g.awaitServing()
	return g
}

// load sends requests from workers until stop is closed. answered counts
// the requests whose whole response the client read; wait returns their
// decision ids once the workers are done.
func load(g *gateway, workers int, stop chan struct{}) (answered func() int, wait func() []string) {
	var mu sync.Mutex
	var ids []string
	var wg sync.WaitGroup
	c := &http.Client{Timeout: 10 * time.Second}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				resp, err := c.Post(g.URL+"/v1/chat/completions", "application/json",
					strings.NewReader(`{"model":"t","messages":[{"role":"user","content":"hi"}]}`))
				if err != nil {
					continue // the process was killed
				}
				_, err = io.ReadAll(resp.Body)
				resp.Body.Close()
				if err == nil && resp.StatusCode == 200 {
					mu.Lock()
					ids = append(ids, resp.Header.Get("X-Detour-Decision"))
					mu.Unlock()
				}
			}
		}()
	}
	answered = func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(ids)
	}
	return answered, func() []string { wg.Wait(); return ids }
}

// crashRounds starts the gateway on decPath, loads it and kills it with
// SIGKILL, rounds times; then starts it once more and stops it cleanly. It
// returns the ids of every request the client got a whole response to.
func crashRounds(t *testing.T, body, decPath, sync string, rounds int) []string {
	var all []string
	for r := range rounds {
		g := startOn(t, "round "+strconv.Itoa(r+1), decPath, sync, body)
		stop := make(chan struct{})
		answered, wait := load(g, 6, stop)
		// Under load (a few dozen answers), then at a different moment each round.
		poll(t, 30*time.Second, "answers from round "+strconv.Itoa(r+1), func() bool { return answered() >= 30 })
		time.Sleep(time.Duration(100+70*r) * time.Millisecond)
		if err := g.cmd.Process.Kill(); err != nil { // SIGKILL
			t.Fatal(err)
		}
		<-g.exited
		close(stop)
		all = append(all, wait()...)
	}
	g := startOn(t, "after the crashes", decPath, sync, body)
	if code := g.stop(); code != 0 {
		t.Fatalf("exit code %d:\n%s", code, g.stderr.String())
	}
	return all
}

// readLog checks the decision log after crashes: every line parses, but for
// torn lines (a record cut by the kill), each a prefix of one record ended
// by the next process with a newline — never two records run together. It
// returns the ids of the whole records and the number of torn lines.
func readLog(t *testing.T, path string) (ids map[string]bool, torn int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) == 0 || b[len(b)-1] != '\n' {
		t.Fatalf("the log does not end with a newline after a clean stop")
	}
	ids = map[string]bool{}
	for i, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var d struct {
			ID string `json:"id"`
		}
		if json.Unmarshal([]byte(line), &d) == nil && d.ID != "" {
			ids[d.ID] = true
			continue
		}
		torn++
		if !strings.HasPrefix(line, `{"id":"`) || strings.Contains(line[1:], `{"id":"`) {
			show := line
			if len(show) > 300 {
				show = show[:150] + " … " + show[len(show)-150:]
			}
			t.Errorf("line %d is neither a record nor one torn record: %s", i+1, show)
		}
	}
	return ids, torn
}

// Five kill -9 and restart rounds under load: the log is whole lines, but
// at most one torn line per kill, each ended before the next record.
func TestDecisionLogSurvivesKill9(t *testing.T) {
	t.Parallel()
	dec := filepath.Join(t.TempDir(), "decisions.jsonl")
	const rounds = 5
	answered := crashRounds(t, crashCfg(t), dec, "", rounds)
	ids, torn := readLog(t, dec)
	if torn > rounds {
		t.Errorf("%d torn lines after %d kills", torn, rounds)
	}
	// Buffered (the default): a crash may lose the last records, never more
	// than were written in the last flush interval; most must be there.
	found := 0
	for _, id := range answered {
		if ids[id] {
			found++
		}
	}
	if found == 0 {
		t.Errorf("none of the %d answered requests has a record", len(answered))
	}
	t.Logf("%d requests answered, %d of them recorded; %d records, %d torn lines", len(answered), found, len(ids), torn)
}

// With decisions.sync: always, every request whose whole response reached
// the client has its record in the log, whenever the process is killed.
func TestDecisionLogSyncAlwaysLosesNothing(t *testing.T) {
	t.Parallel()
	dec := filepath.Join(t.TempDir(), "decisions.jsonl")
	answered := crashRounds(t, crashCfg(t), dec, "always", 3)
	ids, _ := readLog(t, dec)
	var lost []string
	for _, id := range answered {
		if !ids[id] {
			lost = append(lost, id)
		}
	}
	if len(lost) > 0 {
		t.Errorf("%d of %d answered requests have no record, e.g. %s", len(lost), len(answered), lost[0])
	}
	if len(lost) == 0 {
		t.Logf("%d requests answered, all recorded", len(answered))
	}
}
