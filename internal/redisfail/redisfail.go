package redisfail

import (
	"context"
	"errors"
	"strings"

	"github.com/redis/go-redis/v9"
)

// unreachable are the error replies of a Redis that cannot serve now: a
// server loading its data, a cluster without quorum or mid-failover, a
// replica asked to write, a connection not authenticated or not allowed, a
// server busy in a script or out of memory.
var unreachable = []string{"LOADING", "CLUSTERDOWN", "TRYAGAIN", "MASTERDOWN", "READONLY", "NOAUTH", "NOPERM", "BUSY", "OOM"}

// Outage reports whether err, from a go-redis command, means Redis is not
// reachable or cannot serve: any failure that is not an error reply
// (a network error, a timeout, a closed client), or one of the replies
// above. Any other reply (WRONGTYPE, a script's error, "redis: nil") is
// about the command or its key, and Redis itself answers. nil is none.
func Outage(err error) bool {
	if err == nil {
		return false
	}
	var reply redis.Error
	if !errors.As(err, &reply) {
		return true
	}
	msg := reply.Error()
	for _, p := range unreachable {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// Rediscover asks c, when it is a Redis Cluster client, to read the
// cluster's slot map again (in the background; concurrent asks are
// coalesced into one read, at most one every 200ms). A store calls it on
// every operation that met an outage: go-redis reads the map again only
// after a MOVED, ASK or READONLY reply, or every 60s, and a connection
// refused by a dead master is none of those, so after the cluster promoted
// that master's replica the client kept sending its slots to the dead
// address for up to a minute, and every replica served from local state
// all that time (operator review 63e). A store retries a down Redis once a
// second, so the map it retries with is at most a second old. Other
// clients (one server, Sentinel) find the primary on each new connection.
func Rediscover(c redis.UniversalClient) {
	if cc, ok := c.(*redis.ClusterClient); ok {
		cc.ReloadState(context.Background())
	}
}
