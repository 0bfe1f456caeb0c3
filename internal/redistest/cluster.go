package redistest

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Cluster is a Redis Cluster of masters, without replicas (StartCluster)
// or with one each (StartClusterWithReplicas), formed by `redis-cli
// --cluster create` on loopback ports chosen free at runtime. Every node
// keeps its nodes.conf and its append-only file in its own directory, so a
// killed master restarted (Kill, then Start) rejoins with its slots and its
// data.
type Cluster struct {
	Nodes []*Server
}

// nodeTimeout is cluster-node-timeout: how long before a silent node is
// suspected. Not shorter: on a loaded machine a node fsyncing every write
// (appendfsync always) can miss its peers' pings for a second or more, and
// a live master marked failing takes its slots down (CLUSTERDOWN) in the
// middle of a test. A master killed and restarted within it is never
// marked failing at all; one that was is let back in 2×nodeTimeout after.
const nodeTimeout = "5000"

// settle bounds the waits for the cluster to form, heal or notice a kill:
// a failure guard, generous for a loaded machine (a master marked failing
// rejoins only 2×nodeTimeout after it was).
const settle = 60 * time.Second

// StartCluster starts masters redis-server nodes in cluster mode, forms the
// cluster and waits until every node reports it healthy.
func StartCluster(t testing.TB, masters int) *Cluster {
	t.Helper()
	return startCluster(t, masters, 0)
}

// StartClusterWithReplicas is StartCluster with one replica for each
// master (`--cluster-replicas 1`), as a production cluster runs: a master
// killed is replaced by its replica, promoted by the cluster itself about
// nodeTimeout later (WaitPromoted), on another port. It waits until every
// replica has its master's data.
func StartClusterWithReplicas(t testing.TB, masters int) *Cluster {
	t.Helper()
	c := startCluster(t, masters, 1)
	waitFor(t, settle, "every replica to be in sync with its master", func() bool {
		replicas := 0
		for _, s := range c.Nodes {
			info, err := nodeInfo(s, "replication")
			if err != nil {
				return false
			}
			if strings.Contains(info, "role:slave") {
				if !strings.Contains(info, "master_link_status:up") {
					return false
				}
				replicas++
			}
		}
		return replicas == masters
	})
	return c
}

func startCluster(t testing.TB, masters, replicas int) *Cluster {
	t.Helper()
	cli := lookPath(t, "redis-cli", "redis-tools")
	c := &Cluster{}
	for range masters * (1 + replicas) {
		s := New(t)
		// Each write is on disk before it is acknowledged (AOF, fsync
		// always), so a master killed and restarted loses nothing.
		s.extra = []string{"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
			"--cluster-port", strconv.Itoa(FreePort(t)), "--cluster-node-timeout", nodeTimeout,
			"--appendonly", "yes", "--appendfsync", "always"}
		s.Start(t)
		c.Nodes = append(c.Nodes, s)
	}
	args := []string{"--cluster", "create"}
	for _, s := range c.Nodes {
		args = append(args, s.Addr())
	}
	if replicas > 0 {
		args = append(args, "--cluster-replicas", strconv.Itoa(replicas))
	}
	args = append(args, "--cluster-yes")
	out, err := exec.Command(cli, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	c.WaitHealthy(t)
	return c
}

// URLs are the redis:// URLs of every node (the seeds Detour is given).
func (c *Cluster) URLs() []string {
	out := make([]string, len(c.Nodes))
	for i, s := range c.Nodes {
		out[i] = "redis://" + s.Addr()
	}
	return out
}

// Client returns a cluster client over every node, closed at the test's end.
func (c *Cluster) Client(t testing.TB) *redis.ClusterClient {
	var addrs []string
	for _, s := range c.Nodes {
		addrs = append(addrs, s.Addr())
	}
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
	t.Cleanup(func() { cc.Close() })
	return cc
}

// WaitHealthy waits until every running node says cluster_state:ok and all
// 16384 slots are served, as seen from each of them; t is the calling test.
func (c *Cluster) WaitHealthy(t testing.TB) {
	t.Helper()
	waitFor(t, settle, "the cluster to be healthy on every node", func() bool {
		for _, s := range c.Nodes {
			if !s.Running() || !nodeOK(s) {
				return false
			}
		}
		return true
	})
}

func nodeOK(s *Server) bool {
	rc := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1})
	defer rc.Close()
	info, err := rc.ClusterInfo(context.Background()).Result()
	return err == nil && strings.Contains(info, "cluster_state:ok") &&
		strings.Contains(info, "cluster_slots_ok:16384")
}

// nodeInfo is a section of INFO from one node.
func nodeInfo(s *Server, section string) (string, error) {
	rc := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1})
	defer rc.Close()
	return rc.Info(context.Background(), section).Result()
}

// WaitPromoted waits until a node other than dead serves key's slot as a
// master and every running node says the cluster is whole again (after a
// test killed dead, the master of that slot), and returns that node and
// when it was first seen so, polling every 50ms; t is the calling test.
func (c *Cluster) WaitPromoted(t testing.TB, key string, dead *Server) (*Server, time.Time) {
	t.Helper()
	var m *Server
	waitFor(t, settle, "a replica to be promoted in place of the killed master", func() bool {
		for _, s := range c.Nodes {
			if s.Running() && !nodeOK(s) {
				return false
			}
		}
		var ok bool
		m, ok = c.masterOf(key)
		if !ok || m == dead {
			return false
		}
		info, err := nodeInfo(m, "replication")
		return err == nil && strings.Contains(info, "role:master")
	})
	return m, time.Now()
}

// MasterOf returns the node serving key's slot; t is the calling test.
func (c *Cluster) MasterOf(t testing.TB, key string) *Server {
	t.Helper()
	if m, ok := c.masterOf(key); ok {
		return m
	}
	t.Fatalf("redistest: no node serves the slot of %q", key)
	return nil
}

// masterOf is the node serving key's slot as the first running node that
// answers sees it.
func (c *Cluster) masterOf(key string) (*Server, bool) {
	ctx := context.Background()
	for _, s := range c.Nodes {
		if !s.Running() {
			continue
		}
		rc := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1})
		slot, err := rc.ClusterKeySlot(ctx, key).Result()
		var slots []redis.ClusterSlot
		if err == nil {
			slots, err = rc.ClusterSlots(ctx).Result()
		}
		rc.Close()
		if err != nil {
			continue
		}
		for _, sl := range slots {
			if int64(sl.Start) <= slot && slot <= int64(sl.End) && len(sl.Nodes) > 0 {
				for _, n := range c.Nodes {
					if n.Addr() == sl.Nodes[0].Addr {
						return n, true
					}
				}
			}
		}
	}
	return nil, false
}
