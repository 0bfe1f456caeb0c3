package server_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// The reset's "shared" (0d521a6: "every replica sharing the state reads
// the reset") and /v1/health's state.shared name one thing, and
// docs/behaviour.md says the latter is "false with memory": a replica on
// the memory store keeps its state to itself, so a reset on one of two
// such replicas is read by it alone. The reset answers "shared": true on
// the memory store (healthreset.go: sh.Shared || sh.Store != "redis"),
// while /v1/health on the same replica says false.
func TestHealthResetSharedAgreesWithHealth_r48c(t *testing.T) {
	up := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("m", "hello")}
	})
	t.Cleanup(up.Close)
	url, _, _ := r37aGateway(t, "admin_keys: [adm-r48c-abcdefgh]\n"+teamAConfig("openai"), up, nil)
	admin := []string{"Authorization", "Bearer adm-r48c-abcdefgh"}
	st, b := r48bDo(t, url, http.MethodPost, "/v1/health/reset", `{"provider":"p"}`, append(admin, "Content-Type", "application/json")...)
	if st != http.StatusOK {
		t.Fatalf("reset: %d %s", st, b)
	}
	var reset struct {
		Shared bool `json:"shared"`
	}
	if err := json.Unmarshal([]byte(b), &reset); err != nil {
		t.Fatal(err)
	}
	st, hb := r48bDo(t, url, http.MethodGet, "/v1/health", "", admin...)
	var h struct {
		State struct {
			Store  string `json:"store"`
			Shared bool   `json:"shared"`
		} `json:"state"`
	}
	if err := json.Unmarshal([]byte(hb), &h); err != nil || st != http.StatusOK {
		t.Fatalf("health: %d %s", st, hb)
	}
	if reset.Shared != h.State.Shared {
		t.Errorf("store %s: the reset says shared %v (%s), /v1/health says shared %v", h.State.Store, reset.Shared, b, h.State.Shared)
	}
}
