package app_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/redistest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// stormChat is an OpenAI answer of 1,000 input and 1,000 output tokens.
const stormChat = `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1000,"completion_tokens":1000,"total_tokens":2000}}`

// stormKey is one key's shape in one configuration of the storm.
type stormKey struct {
	present, renamed, secretB, day, month bool
	amount                                int
}

func stormStreamEvents() []string {
	chunk := func(s string) string {
		return `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"` + s + `"},"finish_reason":null}]}`
	}
	evs := []string{chunk("a"), chunk("b"), chunk("c"), chunk("d"), chunk("e")}
	evs = append(evs, `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
		`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":1000,"completion_tokens":1000,"total_tokens":2000}}`, "[DONE]")
	return evs
}

// TestReloadStormCountsEveryRequestOnce (review 60a): random reloads that add, remove and give back day
// and month windows, remove keys, rename them, change their secrets and
// their budgets' amounts, while plain requests, whole streams and streams
// the client leaves early (spend from an estimate) run. At the end every
// name ever used gets both budgets; its day and month must hold what the
// decision log says it spent (before the start and since), once.
func TestReloadStormCountsEveryRequestOnce(t *testing.T) {
	for _, state := range []string{"memory", "redis"} {
		for _, syncMode := range []string{"never", "always"} {
			t.Run(state+"/"+syncMode, func(t *testing.T) { stormStorm(t, state, syncMode, stormReloads()) })
		}
	}
}

func stormStorm(t *testing.T, state, syncMode string, reloads int) {
	up := upstreamtest.New(func(n int, r upstreamtest.Request) upstreamtest.Step {
		if r.Streamed() {
			return upstreamtest.Step{Events: stormStreamEvents(), EventDelay: 2 * time.Millisecond}
		}
		return upstreamtest.Step{Delay: 2 * time.Millisecond, Body: stormChat}
	})
	t.Cleanup(up.Close)
	const nkeys = 6
	name := func(i int, renamed bool) string {
		if renamed {
			return fmt.Sprintf("k%d-r", i)
		}
		return fmt.Sprintf("k%d", i)
	}
	secret := func(i int, b bool) string {
		if b {
			return fmt.Sprintf("key-k%d-BBBBBBBB", i)
		}
		return fmt.Sprintf("key-k%d-AAAAAAAA", i)
	}
	log := filepath.Join(t.TempDir(), "decisions.jsonl")
	before := time.Now().UTC().Add(-time.Minute).Format(time.RFC3339Nano)
	var earlier strings.Builder
	for i := range nkeys {
		fmt.Fprintf(&earlier, `{"id":"x","time":%q,"client":%q,"attempts":[{"billable":true,"cost_usd":0.35}]}`+"\n", before, name(i, false))
		fmt.Fprintf(&earlier, `{"id":"y","time":%q,"client":%q,"attempts":[{"billable":true,"cost_usd":0.2}]}`+"\n", before, name(i, true))
	}
	if err := os.WriteFile(log, []byte(earlier.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	head := `decisions: {path: "` + log + `", sync: ` + syncMode + `}` + "\n"
	if state == "redis" {
		head += `state: {store: redis, url: "` + redistest.Start(t).URL() + `"}` + "\n"
	}
	yaml := func(ks []stormKey, final bool) string {
		var b strings.Builder
		b.WriteString(head + "client_keys:\n")
		for i, k := range ks {
			if final {
				fmt.Fprintf(&b, "  - {name: %s, key: %s, budget: {usd_per_day: 5000, usd_per_month: 9000}}\n", name(i, false), secret(i, false))
				fmt.Fprintf(&b, "  - {name: %s, key: %s, budget: {usd_per_day: 5000, usd_per_month: 9000}}\n", name(i, true), fmt.Sprintf("key-k%d-final-RR", i))
				continue
			}
			if !k.present {
				continue
			}
			var bud []string
			if k.day {
				bud = append(bud, fmt.Sprintf("usd_per_day: %d", k.amount))
			}
			if k.month {
				bud = append(bud, fmt.Sprintf("usd_per_month: %d", 2*k.amount))
			}
			bs := ""
			if len(bud) > 0 {
				bs = ", budget: {" + strings.Join(bud, ", ") + "}"
			}
			fmt.Fprintf(&b, "  - {name: %s, key: %s%s}\n", name(i, k.renamed), secret(i, k.secretB), bs)
		}
		b.WriteString(pricedTarget(up.URL))
		return b.String()
	}
	ks := make([]stormKey, nkeys)
	var cur [nkeys]atomic.Value
	for i := range ks {
		ks[i] = stormKey{present: true, amount: 1000}
		cur[i].Store(secret(i, false))
	}
	url, a := gatewaytest.Start(t, gatewaytest.Config(t, yaml(ks, false)), app.Options{})

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var sent atomic.Int64
	for i := range nkeys {
		for mode := range 3 { // 0 plain, 1 stream, 2 stream left early
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					s := cur[i].Load().(string)
					if s == "" {
						time.Sleep(time.Millisecond)
						continue
					}
					body := `{"model":"t","messages":[{"role":"user","content":"hello there"}]}`
					if mode > 0 {
						body = `{"model":"t","stream":true,"messages":[{"role":"user","content":"hello there"}]}`
					}
					req, _ := http.NewRequest(http.MethodPost, url+"/v1/chat/completions", strings.NewReader(body))
					req.Header.Set("Authorization", "Bearer "+s)
					req.Header.Set("Content-Type", "application/json")
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						continue
					}
					if mode == 2 {
						buf := make([]byte, 64)
						resp.Body.Read(buf)
					} else {
						io.Copy(io.Discard, resp.Body)
					}
					resp.Body.Close()
					sent.Add(1)
				}
			}()
		}
	}
	rng := rand.New(rand.NewPCG(uint64(len(state)), uint64(len(syncMode))))
	for range reloads {
		for range 1 + rng.IntN(3) {
			i := rng.IntN(nkeys)
			k := &ks[i]
			switch rng.IntN(7) {
			case 0:
				k.present = !k.present
			case 1:
				k.renamed = !k.renamed
			case 2:
				k.secretB = !k.secretB
			case 3, 4:
				k.day = !k.day
			case 5:
				k.month = !k.month
			case 6:
				k.amount = 1000 + 1000*rng.IntN(2)
			}
		}
		if err := a.Reload(gatewaytest.Config(t, yaml(ks, false))); err != nil {
			t.Fatal(err)
		}
		for i, k := range ks {
			if k.present {
				cur[i].Store(secret(i, k.secretB))
			} else {
				cur[i].Store("")
			}
		}
		time.Sleep(time.Duration(2+rng.IntN(8)) * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	time.Sleep(200 * time.Millisecond) // the last requests' spends and records
	if err := a.Reload(gatewaytest.Config(t, yaml(ks, true))); err != nil {
		t.Fatal(err)
	}
	// The last requests' records and spends land on their own time (a
	// stream's record once its client has gone): on a busy machine a
	// fixed wait read the log before them. Counters and log must agree;
	// wait up to 15 s for them to, and report the last difference.
	var diffs []string
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		stormEstimates = 0
		logged := stormLogged(t, log)
		diffs = diffs[:0]
		for i := range nkeys {
			for _, r := range []bool{false, true} {
				n := name(i, r)
				day, month := limitUsed(t, url, n, "usd_per_day"), limitUsed(t, url, n, "usd_per_month")
				want := logged[n]
				for w, got := range []float64{day, month} {
					if d := got - want[w]; d > 5e-6 || d < -5e-6 {
						diffs = append(diffs, fmt.Sprintf("%s window %d: counter $%.6f, the log says $%.6f (%+.2f plain requests' worth)", n, w, got, want[w], d/0.0125))
					}
				}
			}
		}
		if len(diffs) == 0 || time.Now().After(deadline) {
			t.Logf("%d requests, %d attempts spent from an estimate, %d names in the log", sent.Load(), stormEstimates, len(logged))
			break
		}
	}
	for _, d := range diffs {
		t.Error(d)
	}
}

// stormLogged sums each client's BudgetUSD over the log's records of
// today ([0]) and this month ([1]).
var stormEstimates int

func stormLogged(t *testing.T, path string) map[string][2]float64 {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	now := time.Now().UTC()
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	out := map[string][2]float64{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var d decision.Decision
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil || d.Client == "" {
			continue
		}
		usd := 0.0
		for i := range d.Attempts {
			usd += d.Attempts[i].BudgetUSD()
			if d.Attempts[i].Estimate != nil {
				stormEstimates++
			}
		}
		s := out[d.Client]
		s[1] += usd
		if !d.Time.Before(day) {
			s[0] += usd
		}
		out[d.Client] = s
	}
	return out
}

func stormReloads() int {
	if v := os.Getenv("DETOUR_STORM_RELOADS"); v != "" {
		var n int
		fmt.Sscan(v, &n)
		return n
	}
	return 60
}
