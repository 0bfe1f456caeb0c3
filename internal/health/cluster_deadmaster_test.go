package health

import (
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
)

// Review 30g (reloads and shared state).
//
// A View on a Redis Cluster is pipelined GETs, one per record; go-redis
// returns the first command's error in order, and a record that does not
// exist (an account that never cooled, the usual case) is redis.Nil. When
// a master is down (before the cluster marks it failed, or for good with
// cluster-require-full-coverage no, docs/scale.md), the GETs of its
// records fail, but when a missing record comes earlier in the pipeline
// the store takes redis.Nil for the pipeline's error: it reads the records
// on the dead master as empty — healthy — overwrites its local mirror with
// them and counts Redis as answering. docs/scale.md: "Every Redis
// operation that fails ... falls back to a local copy of the state"; here
// a model known gone for an hour reads healthy and is called again.
func TestClusterViewWithADeadMasterKeepsWhatTheMirrorKnows(t *testing.T) {
	cl := redistest.StartCluster(t, 3)
	rc := RedisConfig{Cluster: cl.URLs()}
	const prefix = "rv30g:"
	// Two providers whose records live on different masters.
	var live, dead string
	var deadMaster *redistest.Server
	for _, p := range []string{"openai", "anthropic", "gemini", "mistral", "groq", "together", "deepseek", "xai", "cohere"} {
		m := cl.MasterOf(t, prefix+tagOf(p)+"acct")
		switch {
		case live == "":
			live, deadMaster = p, m
		case m != deadMaster:
			dead, deadMaster = p, m
		}
		if dead != "" {
			break
		}
	}
	if dead == "" {
		t.Fatal("no two providers on different masters")
	}
	kLive, kDead := Key{"t1", live}, Key{"t2", dead}
	keys := []Key{kLive, kDead}

	c := newClock()
	s := newStore(t, rc, prefix, c.Now, nil)
	tr := New(s, Settings{}, keys, c.Now)
	tr.Report(ctx, kLive, Report{OK: true, Latency: 100 * time.Millisecond}) // the live endpoint's record exists; its account's does not
	tr.Report(ctx, kDead, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: time.Hour})
	if st := tr.View(ctx, keys); st[1].Phase != Cooling {
		t.Fatalf("before the kill: %s/%s reads %+v, want cooling", kDead.Target, kDead.Provider, st[1])
	}

	deadMaster.Kill()
	st := tr.View(ctx, keys)
	t.Logf("with the master of {%s} down: %s reads %s (class %q), store shared=%v", dead, kDead, st[1].Phase, st[1].LastClass, s.Shared())
	if st[1].Phase != Cooling {
		t.Errorf("with the master of {%s} down, %s reads %s; want cooling (the local mirror knows it is gone for an hour)", dead, kDead, st[1].Phase)
	}
	if st := tr.View(ctx, []Key{kDead}); st[0].Phase != Cooling {
		t.Errorf("and the local mirror lost it: %s alone then reads %s", kDead, st[0].Phase)
	}
}
