// Package redistest runs real Redis deployments on loopback ports chosen
// free at runtime, for tests of shared state: a single redis-server
// (started, killed as a crash would, restarted on the same port), a Redis
// Cluster of masters formed by `redis-cli --cluster create` (a master
// killed and restarted), a Sentinel-managed primary with a replica and three
// sentinels (the primary killed, the replica promoted), and a TCP proxy that
// cuts one client off or slows its answers. Every process and directory
// belongs to one test and goes with it (t.Cleanup); a process also dies
// with the test binary. Data directories are in memory (/dev/shm) where the
// machine has it, so Redis's fsyncs cannot stall a node on a loaded disk.
//
// The timings (cluster-node-timeout, the sentinels' down-after and
// failover timeouts) and every wait are chosen for a loaded 2-core machine:
// no live node is taken for dead mid-test, and a wait is a failure guard
// that ends as soon as its condition holds.
//
// Without redis-server (or redis-cli, for a cluster) a test skips, except
// under CI=true, where it fails: CI must install the Debian packages
// redis-server and redis-tools.
//
// It imports nothing of ours.
package redistest
