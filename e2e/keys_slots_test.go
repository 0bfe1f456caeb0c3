package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// The Keys page's "N in progress" for a key with max_concurrent counts
// what the limit counts: a request holds one of the key's slots from
// before its body is read (docs/config.md, max_concurrent), so an upload
// still on its way is in progress too. Before, the page counted only the
// requests "In progress" lists, which start once the body is read: a team
// refused with client_concurrency_limit_exceeded while its two slots were
// held by slow uploads read "0 in progress" (operator review 60, left).
func TestKeysPageCountsRequestsStillSendingTheirBody(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"openai": script(ok("gpt-4o", "y"))})
	g := start(t, `
client_keys:
  - {name: team-c, key: key-team-c-0123456789, max_concurrent: 2}
providers:
  - {name: p, dialect: openai, base_url: "{openai}", api_key: `+secret+`}
targets:
  - {name: gpt, model: gpt-4o, providers: [p]}
routes:
  - {name: deep, targets: [gpt]}
`, fs)
	inProgress := func() int {
		resp, err := http.Get(g.URL + "/ui/api/keys")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var page struct {
			Keys []struct {
				Name       string `json:"name"`
				InProgress int    `json:"in_progress"`
			} `json:"keys"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&page); err != nil || len(page.Keys) != 1 {
			t.Fatalf("keys: %v %+v", err, page)
		}
		return page.Keys[0].InProgress
	}
	// One upload that sends half its body and waits.
	pr, pw := io.Pipe()
	req, _ := http.NewRequest(http.MethodPost, g.URL+"/v1/chat/completions", pr)
	req.Header.Set("Authorization", "Bearer key-team-c-0123456789")
	req.Header.Set("Content-Type", "application/json")
	body := `{"model":"deep","messages":[{"role":"user","content":"hi"}]}`
	req.ContentLength = int64(len(body))
	done := make(chan int, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- 0
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	if _, err := pw.Write([]byte(body[:20])); err != nil {
		t.Fatal(err)
	}
	got := 0
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if got = inProgress(); got == 1 {
			break
		}
	}
	if got != 1 {
		t.Errorf("a request still sending its body holds one of team-c's slots, but the Keys page says %d in progress", got)
	}
	if _, err := pw.Write([]byte(body[20:])); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	if st := <-done; st != http.StatusOK {
		t.Fatalf("the upload, once sent: %d", st)
	}
	g.recs.wait(t, 1)
	for deadline := time.Now().Add(10 * time.Second); inProgress() != 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the request ended, but the Keys page still says %d in progress", inProgress())
		}
	}
}
