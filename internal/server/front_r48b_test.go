package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 48b: detour_front_refusals_total counts "every request the
// gateway answers itself before routing" (bda43da; internal/server/front.go
// refuse), bad JSON included. A Chat Completions body without "messages"
// (or with one that is not an array) is refused by the chat door itself
// (server.go chat, checkMessages) with writeError, and never counted: a
// client failing every request so shows nothing on the dashboards.
func TestChatWithoutMessagesIsAFrontRefusal_r48b(t *testing.T) {
	up := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("m", "hello")}
	})
	t.Cleanup(up.Close)
	url, _, _ := r37aGateway(t, teamAConfig("openai"), up, nil)
	for _, body := range []string{`{"model":"m"}`, `{"model":"m","messages":{}}`} {
		if st, b := r48bDo(t, url, http.MethodPost, "/v1/chat/completions", body,
			"Authorization", "Bearer key-team-a", "Content-Type", "application/json"); st != http.StatusBadRequest {
			t.Fatalf("%s: %d %s", body, st, b)
		}
	}
	// A control: a refusal the front does count.
	if st, b := r48bDo(t, url, http.MethodPost, "/v1/chat/completions", `{"model":"m","messages":[]}`,
		"Authorization", "Bearer key-retired", "Content-Type", "application/json"); st != http.StatusUnauthorized {
		t.Fatalf("retired key: %d %s", st, b)
	}
	_, m := r48bDo(t, url, http.MethodGet, "/metrics", "")
	if !strings.Contains(m, `detour_front_refusals_total{code="invalid_api_key",door="chat"} 1`) {
		t.Fatalf("the control refusal is not counted: is /metrics served?\n%.300s", m)
	}
	if want := `detour_front_refusals_total{code="invalid_request",door="chat"} 2`; !strings.Contains(m, want) {
		var got []string
		for _, l := range strings.Split(m, "\n") {
			if strings.HasPrefix(l, "detour_front_refusals_total") {
				got = append(got, l)
			}
		}
		t.Errorf("metrics lack %s; have %q", want, got)
	}
	if up.Calls() != 0 {
		t.Errorf("the upstream was called %d times", up.Calls())
	}
}
