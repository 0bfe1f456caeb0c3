package process

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 38c: reloads while real traffic flows, through the real binary.

// review38cTagged answers every request with its own provider key and
// model in each part of its text ("sk-…|model;"), so a client can tell
// which configuration each byte of its answer came from.
func review38cTagged(_ int, r upstreamtest.Request) upstreamtest.Step {
	var body struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	_ = json.Unmarshal(r.Body, &body)
	tag := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") + "|" + body.Model + ";"
	if !body.Stream {
		return upstreamtest.Step{Body: upstreamtest.ChatJSON(body.Model, tag)}
	}
	parts := make([]string, 12)
	for i := range parts {
		parts[i] = tag
	}
	return upstreamtest.Step{Events: upstreamtest.ChatStream(body.Model, parts...), EventDelay: 150 * time.Millisecond}
}

// An operator relies on SIGHUP being safe under load: with 100 streams
// open, a storm of 50 reloads in about a second — each rotating the
// provider key, the model and the client key — neither cuts a stream nor
// mixes two configurations within one (every byte of a stream comes from
// the key and model it started with), the process stays up, and once the
// storm is over new requests use the newest key and model only, while the
// rotated-out client key is refused.
func TestReloadStormUnder100StreamsKeepsEachStreamOnItsConfiguration_review38c(t *testing.T) {
	up := upstreamtest.New(review38cTagged)
	t.Cleanup(up.Close)
	cfg := func(provKey, model, clientKey string) string {
		return render(`
client_keys:
  - {name: team, key: {ck}}
admin_keys: [admin-key-review38c]
providers:
  - {name: p, dialect: openai, base_url: "{up}", api_key: {pk}}
targets:
  - {name: t, model: {model}, providers: [p]}
routes:
  - {name: r, targets: [t]}
`, map[string]string{"up": up.URL, "pk": provKey, "model": model, "ck": clientKey})
	}
	a := cfg("sk-review38c-old-0001", "model-old", "ck-review38c-old-0001")
	b := cfg("sk-review38c-new-0002", "model-new", "ck-review38c-new-0002")
	g := startGateway(t, "G", a)

	const streams = 100
	type result struct {
		status int
		tags   map[string]bool
		done   bool
		errEv  bool
		err    error
	}
	results := make([]result, streams)
	began := make(chan struct{}, streams)
	var wg sync.WaitGroup
	sc := &http.Client{Timeout: 60 * time.Second}
	for i := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := &results[i]
			res.tags = map[string]bool{}
			signalled := false
			defer func() {
				if !signalled {
					began <- struct{}{}
				}
			}()
			req, _ := http.NewRequest(http.MethodPost, g.URL+"/v1/chat/completions",
				strings.NewReader(`{"model":"r","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer ck-review38c-old-0001")
			resp, err := sc.Do(req)
			if err != nil {
				res.err = err
				return
			}
			defer resp.Body.Close()
			res.status = resp.StatusCode
			rd := bufio.NewReader(resp.Body)
			for {
				line, err := rd.ReadString('\n')
				if strings.HasPrefix(line, "event: error") || strings.Contains(line, `"error"`) {
					res.errEv = true
				}
				if strings.Contains(line, "[DONE]") {
					res.done = true
				}
				for _, part := range strings.Split(line, `"content":"`)[1:] {
					if tag, _, ok := strings.Cut(part, ";"); ok {
						res.tags[tag] = true
						if !signalled {
							signalled = true
							began <- struct{}{}
						}
					}
				}
				if err != nil {
					return
				}
			}
		}()
	}
	for range streams {
		<-began
	}

	// The storm: 50 reloads, 20ms apart, alternating the two files.
	for i := range 50 {
		if i%2 == 0 {
			g.writeConfig(b)
		} else {
			g.writeConfig(a)
		}
		g.signal(syscall.SIGHUP)
		time.Sleep(20 * time.Millisecond)
	}
	// Settle on b: a SIGHUP sent while a reload runs may be merged with it.
	g.writeConfig(b)
	g.signal(syscall.SIGHUP)

	wg.Wait()
	for i, res := range results {
		if res.err != nil || res.status != 200 || !res.done || res.errEv || len(res.tags) != 1 ||
			!res.tags["sk-review38c-old-0001|model-old"] {
			t.Errorf("stream %d: err %v, status %d, [DONE] %v, error event %v, configurations seen %v; want one whole stream on the old key and model",
				i, res.err, res.status, res.done, res.errEv, res.tags)
		}
	}
	if !g.running() {
		t.Fatalf("the process exited during the reload storm:\n%s", g.stderr.String())
	}

	// Afterwards only the newest configuration serves new requests.
	post := func(key string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, g.URL+"/v1/chat/completions",
			strings.NewReader(`{"model":"r","messages":[{"role":"user","content":"hi"}]}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out strings.Builder
		_, _ = bufio.NewReader(resp.Body).WriteTo(&out)
		return resp.StatusCode, out.String()
	}
	poll(t, 30*time.Second, "the new client key to be accepted after the storm", func() bool {
		st, _ := post("ck-review38c-new-0002")
		return st == 200
	})
	for range 5 {
		if st, body := post("ck-review38c-new-0002"); st != 200 || !strings.Contains(body, "sk-review38c-new-0002|model-new;") {
			t.Fatalf("a new request after the storm: %d %s; want the new key and model", st, body)
		}
		if st, _ := post("ck-review38c-old-0001"); st != 401 {
			t.Fatalf("the rotated-out client key: status %d, want 401", st)
		}
	}
	if out := g.stderr.String(); strings.Contains(out, "panic") || strings.Contains(out, "config reload failed") {
		t.Fatalf("the storm logged a panic or a failed reload:\n%s", out)
	}
	for _, secret := range []string{"sk-review38c-old-0001", "sk-review38c-new-0002", "ck-review38c-old-0001", "ck-review38c-new-0002", "admin-key-review38c"} {
		if strings.Contains(g.stderr.String(), secret) {
			t.Errorf("the log holds the secret %q", secret)
		}
	}
	if n := strings.Count(g.stderr.String(), "config reloaded"); n < 2 {
		t.Errorf("%d reloads logged, want the storm's", n)
	}
	t.Logf("reloads logged: %d", strings.Count(g.stderr.String(), "config reloaded"))
}

// An operator whose reload fails relies on the log line saying why, at
// file:line, without the secret it is about, and on the running
// configuration serving on — here a file whose only mistake is on the
// new key's own line: a key pasted between "${" and "}" in place of a
// variable's name, and an unquoted password that begins with '*'.
func TestReloadRefusedOnTheKeyLineNeverLogsTheKey_review38c(t *testing.T) {
	up := upstreamtest.New(review38cTagged)
	t.Cleanup(up.Close)
	good := render(`
providers:
  - {name: p, dialect: openai, base_url: "{up}", api_key: sk-review38c-running-0001}
targets:
  - {name: t, model: m, providers: [p]}
`, map[string]string{"up": up.URL})
	g := startGateway(t, "G", good)
	g.postOK("t")

	const pasted = "Xk9fQ2LmZp7RtY4wVb8NcJ3hGd6sKa1E"
	const starred = "Zq8vLm2Rt5Xw9Kp3Hd7N"
	for i, bad := range []string{
		strings.Replace(good, "api_key: sk-review38c-running-0001", `api_key: "${`+pasted+`}"`, 1),
		"client_keys: [*" + starred + "]\n" + good,
	} {
		g.writeConfig(bad)
		g.signal(syscall.SIGHUP)
		want := i + 1
		poll(t, 30*time.Second, "the failed reload to be logged", func() bool {
			return strings.Count(g.stderr.String(), "config reload failed") >= want
		})
		g.postOK("t")
		// The console says why, as the log does, and no more (operator review 68e).
		resp, err := client.Get(g.URL + "/ui/api/meta")
		if err != nil {
			t.Fatal(err)
		}
		meta, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(meta), `"reload_refused":{"at":`) || !strings.Contains(string(meta), "detour.yaml:") {
			t.Errorf("reload %d: /ui/api/meta says nothing of the refusal: %s", want, meta)
		}
		for _, s := range []string{pasted[:8], starred[:8]} {
			if strings.Contains(string(meta), s) {
				t.Errorf("the console's refusal holds the secret %q: %s", s, meta)
			}
		}
	}
	out := g.stderr.String()
	for _, s := range []string{pasted[:8], starred[:8]} {
		if strings.Contains(out, s) {
			t.Errorf("the reload's log line holds the secret %q:\n%s", s, out)
		}
	}
	if !strings.Contains(out, "detour.yaml:") {
		t.Errorf("the failed reloads are not reported at file:line:\n%s", out)
	}
}
