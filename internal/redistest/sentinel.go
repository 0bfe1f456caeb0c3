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
// after one second and promote the replica.
type Sentinel struct {
	t         testing.TB
	Primary   *Server // the primary at start
	Replica   *Server // its replica at start
	Sentinels []*Server
}

// StartSentinel starts the primary, the replica (waiting until it has
// synced) and three sentinels (waiting until each knows the replica and the
// two other sentinels, so a failover can be agreed at once).
func StartSentinel(t testing.TB) *Sentinel {
	t.Helper()
	// Full syncs start at once (the default waits 5s for more replicas).
	syncNow := []string{"--repl-diskless-sync-delay", "0"}
	st := &Sentinel{t: t, Primary: New(t), Replica: New(t)}
	st.Primary.extra = syncNow
	st.Primary.Start()
	st.Replica.extra = append(syncNow, "--replicaof", "127.0.0.1", strconv.Itoa(st.Primary.port))
	st.Replica.Start()
	waitFor(t, 20*time.Second, "the replica to sync with the primary", func() bool {
		return strings.Contains(info(st.Replica, "replication"), "master_link_status:up")
	})
	for range 3 {
		s := New(t)
		s.conf = filepath.Join(s.dir, "sentinel.conf")
		conf := fmt.Sprintf("sentinel monitor %[1]s 127.0.0.1 %[2]d 2\n"+
			"sentinel down-after-milliseconds %[1]s 1000\n"+
			"sentinel failover-timeout %[1]s 10000\n", MasterName, st.Primary.port)
		if err := os.WriteFile(s.conf, []byte(conf), 0o644); err != nil {
			t.Fatal(err)
		}
		s.extra = []string{"--sentinel"}
		s.Start()
		st.Sentinels = append(st.Sentinels, s)
	}
	waitFor(t, 30*time.Second, "every sentinel to know the replica and the other sentinels", func() bool {
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
// then loses nothing.
func (st *Sentinel) WaitReplicated() {
	st.t.Helper()
	rc := redis.NewClient(&redis.Options{Addr: st.Primary.Addr(), MaxRetries: -1})
	defer rc.Close()
	n, err := rc.Wait(context.Background(), 1, 5*time.Second).Result()
	if err != nil || n < 1 {
		st.t.Fatalf("redistest: the replica did not acknowledge the primary's writes: %d, %v", n, err)
	}
}

// Failover kills the primary (SIGKILL, as a crash) and waits until the
// replica is promoted.
func (st *Sentinel) Failover() {
	st.t.Helper()
	st.Primary.Kill()
	st.WaitPromoted()
}

// WaitPromoted waits until every sentinel names the replica as the primary
// and the replica accepts writes.
func (st *Sentinel) WaitPromoted() {
	st.t.Helper()
	want := st.Replica.Addr()
	waitFor(st.t, 30*time.Second, "the sentinels to promote the replica", func() bool {
		for _, s := range st.Sentinels {
			rc := redis.NewSentinelClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1})
			addr, err := rc.GetMasterAddrByName(context.Background(), MasterName).Result()
			rc.Close()
			if err != nil || len(addr) != 2 || addr[0]+":"+addr[1] != want {
				return false
			}
		}
		return strings.Contains(info(st.Replica, "replication"), "role:master")
	})
}

func info(s *Server, section string) string {
	rc := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1})
	defer rc.Close()
	v, _ := rc.Info(context.Background(), section).Result()
	return v
}
