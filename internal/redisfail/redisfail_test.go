package redisfail

import (
	"context"
	"errors"
	"net"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/detour-llm/detour/internal/redistest"
)

// Errors from a real Redis: a reply about the key or the command is no
// outage; a closed port, a closed client and a deadline are.
func TestOutage(t *testing.T) {
	rs := redistest.Start(t)
	c := rs.Client(t)
	ctx := context.Background()
	c.LPush(ctx, "l", "x")
	for name, err := range map[string]error{
		"wrongtype":    c.Get(ctx, "l").Err(),
		"script error": c.Eval(ctx, "return redis.call('INCR', KEYS[1])", []string{"l"}).Err(),
		"nil":          c.Get(ctx, "absent").Err(),
	} {
		if err == nil || Outage(err) {
			t.Errorf("%s: %v is an outage, want not", name, err)
		}
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	closed := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer closed.Close()
	dead, cancel := context.WithCancel(ctx)
	cancel()
	for name, err := range map[string]error{
		"refused":  closed.Get(ctx, "k").Err(),
		"canceled": c.Get(dead, "k").Err(),
		"loading":  redis.Error(loading("LOADING Redis is loading the dataset in memory")),
	} {
		if !Outage(err) {
			t.Errorf("%s: %v is not an outage, want one", name, err)
		}
	}
	if Outage(nil) || !Outage(errors.New("i/o timeout")) {
		t.Error("nil is an outage, or a plain error is not")
	}
}

// loading is an error reply as go-redis returns them.
type loading string

func (e loading) Error() string { return string(e) }
func (loading) RedisError()     {}
