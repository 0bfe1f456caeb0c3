package health

import (
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/detour-llm/detour/internal/redistest"
)

// Replicas over a Redis Cluster read one clock: every measurement, by every
// replica with the same prefix, asks the same master for TIME (the master
// of the prefix's clock key). A keyless TIME went to a random node, so two
// replicas, or one replica's successive measurements, read masters whose
// clocks may differ (docs/scale.md, "One clock").
func TestClusterClockIsReadFromOneMaster(t *testing.T) {
	cl := redistest.StartCluster(t, 3)
	prefix := uniquePrefix("clock-cluster")
	a := newStore(t, RedisConfig{Cluster: cl.URLs()}, prefix, time.Now, nil)
	b := newStore(t, RedisConfig{Cluster: cl.URLs()}, prefix, time.Now, nil)
	for range 12 {
		for _, s := range []*RedisStore{a, b} {
			if err := s.SyncClock(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	calls := regexp.MustCompile(`cmdstat_time:calls=(\d+)`)
	want := cl.MasterOf(t, prefix+clockKey)
	for _, n := range cl.Nodes {
		rc := redis.NewClient(&redis.Options{Addr: n.Addr()})
		info, err := rc.Info(ctx, "commandstats").Result()
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		if m := calls.FindStringSubmatch(info); m != nil {
			got, _ = strconv.Atoi(m[1])
		}
		switch {
		case n == want && got < 24:
			t.Errorf("the clock key's master %s answered %d TIMEs, want all 24", n.Addr(), got)
		case n != want && got > 0:
			t.Errorf("master %s answered %d TIMEs; the clock is read from %s alone", n.Addr(), got, want.Addr())
		}
	}
}
