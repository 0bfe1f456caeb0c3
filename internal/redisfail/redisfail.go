package redisfail

import (
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
