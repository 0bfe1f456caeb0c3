package app_test

import (
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/redistest"
	"github.com/detour-llm/detour/internal/testutil"
)

// Hostile 55b. docs/scale.md ("Redis restarted empty") says state.lost_at
// tells when a replica found that Redis lost the state the replicas share,
// the signing key among it. A running replica whose key Redis held finds,
// after Redis restarted empty, a different key there when another replica
// (one started meanwhile: a deploy, an autoscaler, a crash-looping pod)
// wrote its own first. The running replica moves to it (adopted) and says
// nothing; the newcomer found nothing to write back and says nothing. No
// replica's /v1/health says Redis lost its state, though the key the fleet
// shared changed under it: a key in Redis other than the one this replica
// took from Redis can only be there because Redis lost that one (or
// someone replaced it). lost_at stayed null on both replicas; the running
// replica now says so when the key it took from Redis changed there.
func TestHostile55bLostAtHiddenWhenANewReplicaWritesTheKeyFirst(t *testing.T) {
	srv := redistest.Start(t)
	yaml := `state: {store: redis, url: "` + srv.URL() + `", timeout: 200ms}
providers:
  - {name: p, dialect: openai, base_url: "http://127.0.0.1:9/v1", api_key: sk-test}
targets:
  - {name: t, model: m, providers: [p]}
`
	var logA testutil.Buffer
	urlA, _ := gatewaytest.Start(t, gatewaytest.Config(t, yaml), app.Options{Logger: slog.New(slog.NewTextHandler(&logA, nil))})
	// Wait for A's first tick (its SET NX: go-redis sends SET … NX), so that the restart and B's
	// start fall well inside the next 5 s: B writes the key first.
	setnx := func() int {
		s, err := srv.Client(t).Info(t.Context(), "commandstats").Result()
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`cmdstat_set:calls=(\d+)`).FindStringSubmatch(s)
		if m == nil {
			return 0
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	start := setnx()
	deadline := time.Now().Add(8 * time.Second)
	for setnx() == start {
		if time.Now().After(deadline) {
			t.Fatal("replica A never ticked")
		}
		time.Sleep(20 * time.Millisecond)
	}
	srv.Kill()
	srv.Start(t) // empty: nothing saved
	urlB, _ := gatewaytest.Start(t, gatewaytest.Config(t, yaml), app.Options{})
	time.Sleep(6 * time.Second) // A's next tick: it finds B's key and moves to it

	if !strings.Contains(logA.String(), "the signing key in Redis changed") {
		t.Fatalf("replica A did not move to replica B's key; the test proves nothing. A's log:\n%s", logA.String())
	}
	a, b := lostAt(t, urlA), lostAt(t, urlB)
	if a == nil && b == nil {
		t.Error("Redis restarted empty and the fleet's signing key changed (replica A moved to the key replica B wrote), yet neither replica's /v1/health state.lost_at says Redis lost its state")
	}
}
