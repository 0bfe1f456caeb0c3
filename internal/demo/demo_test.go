package demo

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/gatewaytest"
)

// TestTour runs every request the demo tells a newcomer to try and checks
// that each shows the behaviour the tour promises.
func TestTour(t *testing.T) {
	d := Start(io.Discard)
	t.Cleanup(d.Close) // after the gateway stops, as Start registered its cleanup later
	// The gateway's own address is not known until it listens; the
	// configuration's listen line only has to parse.
	cfg, err := config.Parse("demo.yaml", []byte(d.Config("127.0.0.1:0")), nil)
	if err != nil {
		t.Fatalf("the demo's configuration does not parse: %v", err)
	}
	recs := gatewaytest.NewRecords()
	base, _ := gatewaytest.Start(t, cfg, app.Options{Decisions: recs})
	requests := 0

	post := func(model string) (int, http.Header) {
		resp, err := http.Post(base+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"`+model+`","messages":[{"role":"user","content":"hi"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		requests++
		return resp.StatusCode, resp.Header
	}
	cases := []struct {
		model    string
		status   int
		provider string
		classes  []string // classes of the attempts, "" for a success
	}{
		{"chat", 200, "backup-openai", []string{"quota", ""}},
		{"chat", 200, "backup-openai", []string{""}}, // the capped account is cooling: straight to the backup
		{"safe", 400, "azure-filtered", []string{"refusal"}},
		{"strict", 504, "slow", []string{"timeout"}},
	}
	for _, tc := range cases {
		status, h := post(tc.model)
		rec := recs.Wait(t, requests)
		var got []string
		for _, at := range rec.Attempts {
			got = append(got, at.Class)
		}
		if status != tc.status || h.Get("X-Detour-Provider") != tc.provider || strings.Join(got, ",") != strings.Join(tc.classes, ",") {
			t.Errorf("%s: status %d via %s, attempts %q; want %d via %s, %q", tc.model, status,
				h.Get("X-Detour-Provider"), got, tc.status, tc.provider, tc.classes)
		}
	}
	// The free pool: whichever member goes first, the retired model never
	// answers and, once it has answered 404, it is cooling for 24h.
	for i := 0; i < 4; i++ {
		if status, h := post("free"); status != 200 || h.Get("X-Detour-Provider") != "groq-free" {
			t.Fatalf("free: status %d via %s", status, h.Get("X-Detour-Provider"))
		}
	}
	if !strings.Contains(Tour(base), base+"/v1/chat/completions") {
		t.Errorf("the tour does not print requests to try")
	}
}

// Every request the tour prints works as printed against the gateway's
// strict front: the headers it shows (Content-Type: application/json) and
// nothing more, the body as written. Each reaches a route (a decision
// record), none is refused by the front.
func TestTourCommandsAsPrinted(t *testing.T) {
	d := Start(io.Discard)
	t.Cleanup(d.Close)
	cfg, err := config.Parse("demo.yaml", []byte(d.Config("127.0.0.1:0")), nil)
	if err != nil {
		t.Fatal(err)
	}
	base, _ := gatewaytest.Start(t, cfg, app.Options{Decisions: gatewaytest.NewRecords()})
	cmds := regexp.MustCompile(`curl -s (\S+) ((?:-H '[^']*' )*)\\\n\s+-d '([^']*)'`).FindAllStringSubmatch(Tour(base), -1)
	if len(cmds) < 6 {
		t.Fatalf("found %d chat requests in the tour, want 6:\n%s", len(cmds), Tour(base))
	}
	for _, c := range cmds {
		req, err := http.NewRequest(http.MethodPost, c[1], strings.NewReader(c[3]))
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range regexp.MustCompile(`-H '([^:]+): ([^']*)'`).FindAllStringSubmatch(c[2], -1) {
			req.Header.Set(h[1], h[2])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.Header.Get("X-Detour-Decision") == "" {
			t.Errorf("%s with %q: refused before routing: %d %s", c[3], c[2], resp.StatusCode, body)
		}
	}
}
