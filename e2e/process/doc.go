// Package process tests Detour as operators run it: the real binary, built
// once by TestMain, serving configuration files as subprocesses on loopback
// ports, against scripted fake providers and a real redis-server started by
// the tests. It covers what only whole processes can show: state shared by
// two replicas through Redis (a gone model, one alert for a capped account,
// the single probe, a Redis outage and its recovery), SIGTERM draining,
// SIGHUP reloading, and the gateway's own log.
//
// redis-server must be on PATH; without it the Redis tests skip, except
// under CI=true, where they fail.
package process
