// Package process tests Detour as operators run it: the real binary, built
// once by TestMain, serving configuration files as subprocesses on loopback
// ports, against scripted fake providers and real Redis started by the
// tests. It covers what only whole processes can show: state shared by two
// replicas through Redis (a gone model, one alert for a capped account, the
// single probe) on a single redis-server, a three-master Redis Cluster and
// a Sentinel-managed primary, with a master or primary killed mid-test; a
// Redis outage and its recovery; a partitioned replica's findings written
// back when it reaches Redis again; SIGTERM draining, SIGHUP reloading, and
// the gateway's own log.
//
// redis-server and redis-cli must be on PATH; without them the Redis tests
// skip, except under CI=true, where they fail.
package process
