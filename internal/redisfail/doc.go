// Package redisfail tells an unreachable Redis from one that answered with
// an error: the shared-state stores (internal/health, internal/limit) fall
// back to local state only for the first, so a key holding something
// Detour did not write never turns into an outage for every client
// (docs/scale.md, "Redis"); and, on an outage, has a Redis Cluster client
// look for the masters again (Rediscover: docs/scale.md, "A cluster master
// or the Sentinel primary dies").
package redisfail
