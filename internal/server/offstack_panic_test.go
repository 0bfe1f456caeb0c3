package server

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/offstack"
	"github.com/detour-llm/detour/internal/testutil"
)

//go:noinline
func translationBug(body []byte) int {
	var blocks []int
	return blocks[len(body)] // a door's decode that indexes past what it read
}

// A door's translation runs on a goroutine of its own (reserveFor ->
// offstack.Run), which hands a panic to the handler's goroutine: the
// client gets what net/http's recovery gives (the connection closed), the
// process lives on, and net/http's "http: panic serving" log, all an
// operator gets of a translation's bug, names the function that panicked
// (review 59: it showed only the handler's stack, where the panic went on).
func TestTranslationPanicLogNamesItsSite(t *testing.T) {
	var logs testutil.Buffer
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path == "/ok" {
			w.Write([]byte("alive"))
			return
		}
		_ = offstack.Run(func() int { return translationBug(body) })
		w.Write([]byte("unreachable"))
	}))
	srv.Config.ErrorLog = log.New(&logs, "", 0)
	srv.Start()
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/v1/messages", "application/json", strings.NewReader(`{"model":"m"}`))
	if err == nil {
		resp.Body.Close()
		t.Errorf("the client got %s, want the connection closed (net/http's recovery)", resp.Status)
	}
	resp, err = http.Get(srv.URL + "/ok")
	if err != nil {
		t.Fatalf("the server did not survive the panic: %v", err)
	}
	resp.Body.Close()
	got := logs.String()
	if !strings.Contains(got, "http: panic serving") || !strings.Contains(got, "index out of range") {
		t.Fatalf("no panic logged:\n%s", got)
	}
	if !strings.Contains(got, "translationBug") {
		t.Errorf("the panic's log does not name the function that panicked (translationBug); it shows:\n%s", got)
	}
}
