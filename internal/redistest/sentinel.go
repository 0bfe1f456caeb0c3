package redistest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// MasterName is the name the sentinels of StartSentinel monitor.
const MasterName = "detour"

// Sentinel is a primary, one replica and three sentinels on loopback, as an
// operator runs a Sentinel-managed Redis. Sentinels notice a dead primary
// after downAfter and promote the replica.
type Sentinel struct {
	Primary   *Server // the primary at start
	Replica   *Server // its replica at start
	Sentinels []*Server
}

// The sentinels' timings. downAfter (down-after-milliseconds) is how long
// the primary may not answer before a sentinel deems it down. It also
// decides whether the replica can be promoted at all: a sentinel passes
// over a replica whose link to the primary has been down longer than
// 10×downAfter plus the time since the sentinel deemed the primary down.
// With 1s, a sentinel in TILT mode (30s passive after its timer was held
// up, seen on a loaded machine) noticed the kill only after the replica's
// link had been down for over 10s, and then never found a replica good
// enough ("-failover-abort-no-good-slave"), round after round. 5s (50s)
// outlasts a TILT, and a live primary is not failed over mid-test.
// failoverTimeout (failover-timeout) bounds one failover attempt; a
// sentinel tries again after twice that, so an attempt lost to a split
// vote is retried within seconds rather than the default minutes.
const (
	downAfter       = "5000"
	failoverTimeout = "4000"
)

// StartSentinel starts the primary, the replica (waiting until it has
// synced) and three sentinels (waiting until each knows the replica and the
// two other sentinels, so a failover can be agreed at once).
func StartSentinel(t testing.TB) *Sentinel {
	t.Helper()
	// Full syncs start at once (the default waits 5s for more replicas).
	syncNow := []string{"--repl-diskless-sync-delay", "0"}
	st := &Sentinel{Primary: New(t), Replica: New(t)}
	st.Primary.extra = syncNow
	st.Primary.Start(t)
	st.Replica.extra = append(syncNow, "--replicaof", "127.0.0.1", strconv.Itoa(st.Primary.port))
	st.Replica.Start(t)
	waitFor(t, 60*time.Second, "the replica to sync with the primary", func() bool {
		return strings.Contains(info(st.Replica, "replication"), "master_link_status:up")
	})
	for range 3 {
		s := New(t)
		s.conf = filepath.Join(s.dir, "sentinel.conf")
		conf := fmt.Sprintf("sentinel monitor %[1]s 127.0.0.1 %[2]d 2\n"+
			"sentinel down-after-milliseconds %[1]s %[3]s\n"+
			"sentinel failover-timeout %[1]s %[4]s\n", MasterName, st.Primary.port, downAfter, failoverTimeout)
		if err := os.WriteFile(s.conf, []byte(conf), 0o644); err != nil {
			t.Fatal(err)
		}
		s.extra = []string{"--sentinel"}
		s.Start(t)
		st.Sentinels = append(st.Sentinels, s)
	}
	waitFor(t, 60*time.Second, "every sentinel to know the replica and the other sentinels", func() bool {
		for _, s := range st.Sentinels {
			rc := redis.NewSentinelClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1})
			reps, err1 := rc.Replicas(context.Background(), MasterName).Result()
			sens, err2 := rc.Sentinels(context.Background(), MasterName).Result()
			rc.Close()
			if err1 != nil || err2 != nil || len(reps) != 1 || len(sens) != 2 {
				return false
			}
		}
		return true
	})
	return st
}

// URLs are the redis:// URLs of the sentinels (what Detour is given).
func (st *Sentinel) URLs() []string {
	out := make([]string, len(st.Sentinels))
	for i, s := range st.Sentinels {
		out[i] = "redis://" + s.Addr()
	}
	return out
}

// Client returns a Sentinel-backed client of the current primary.
func (st *Sentinel) Client(t testing.TB) *redis.Client {
	var addrs []string
	for _, s := range st.Sentinels {
		addrs = append(addrs, s.Addr())
	}
	c := redis.NewFailoverClient(&redis.FailoverOptions{MasterName: MasterName, SentinelAddrs: addrs})
	t.Cleanup(func() { c.Close() })
	return c
}

// WaitReplicated waits until the replica has every write the primary
// acknowledged so far (replication is asynchronous), so killing the primary
// then loses nothing; t is the calling test.
func (st *Sentinel) WaitReplicated(t testing.TB) {
	t.Helper()
	rc := redis.NewClient(&redis.Options{Addr: st.Primary.Addr(), MaxRetries: -1, ReadTimeout: 35 * time.Second})
	defer rc.Close()
	n, err := rc.Wait(context.Background(), 1, 30*time.Second).Result()
	if err != nil || n < 1 {
		t.Fatalf("redistest: the replica did not acknowledge the primary's writes: %d, %v", n, err)
	}
}

// WaitPromoted waits until every sentinel names the replica as the primary
// and the replica accepts writes; t is the calling test.
//
// The sentinels fail over on their own. A sentinel that lost a vote waits
// 2×failoverTimeout before trying again, and one whose timer was held up
// for 2s (a loaded machine) stays passive for 30s (TILT mode); so, past
// nudgeAfter, one sentinel after the other is asked to fail over (SENTINEL
// FAILOVER, refused while one is in progress) until the replica is
// promoted. What the tests check is how Detour follows a promotion, not
// Sentinel's vote.
func (st *Sentinel) WaitPromoted(t testing.TB) {
	t.Helper()
	const nudgeAfter = 15 * time.Second // downAfter, and a failover that went well
	want := st.Replica.Addr()
	start, nudged, next := time.Now(), time.Time{}, 0
	promoted := func() bool {
		for _, s := range st.Sentinels {
			rc := redis.NewSentinelClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1})
			addr, err := rc.GetMasterAddrByName(context.Background(), MasterName).Result()
			rc.Close()
			if err != nil || len(addr) != 2 || addr[0]+":"+addr[1] != want {
				return false
			}
		}
		return strings.Contains(info(st.Replica, "replication"), "role:master")
	}
	for !promoted() {
		switch {
		case time.Since(start) > 90*time.Second: // a failure guard
			var logs strings.Builder
			for i, s := range st.Sentinels {
				fmt.Fprintf(&logs, "--- sentinel %d:\n%s", i, s.Log())
			}
			t.Fatalf("redistest: gave up after 90s waiting for the sentinels to promote the replica %s\nits replication info:\n%s%s",
				want, info(st.Replica, "replication"), logs.String())
		case time.Since(start) > nudgeAfter && time.Since(nudged) > 5*time.Second:
			nudged = time.Now()
			rc := redis.NewSentinelClient(&redis.Options{Addr: st.Sentinels[next].Addr(), MaxRetries: -1})
			_ = rc.Failover(context.Background(), MasterName).Err()
			rc.Close()
			next = (next + 1) % len(st.Sentinels)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func info(s *Server, section string) string {
	rc := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1})
	defer rc.Close()
	v, _ := rc.Info(context.Background(), section).Result()
	return v
}
