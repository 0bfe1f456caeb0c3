package health

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/detour-llm/detour/internal/redistest"
)

func TestNewRedisClientForms(t *testing.T) {
	single, err := NewRedisClient(RedisConfig{URL: "rediss://u:p@redis.example:6380/2", Password: "from-env"})
	if err != nil {
		t.Fatal(err)
	}
	defer single.Close()
	o := single.(*redis.Client).Options()
	if o.Addr != "redis.example:6380" || o.DB != 2 || o.Username != "" || o.Password != "from-env" ||
		o.TLSConfig == nil || o.TLSConfig.ServerName != "redis.example" || o.MaxRetries != 0 || o.DialerRetries != 1 {
		t.Errorf("single server options: addr %q db %d user %q tls %v retries %d dials %d",
			o.Addr, o.DB, o.Username, o.TLSConfig != nil, o.MaxRetries, o.DialerRetries)
	}

	cl, err := NewRedisClient(RedisConfig{Cluster: []string{"redis://a:7000", "redis://b"}, Username: "detour", Password: "pw"})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	co := cl.(*redis.ClusterClient).Options()
	if strings.Join(co.Addrs, ",") != "a:7000,b:6379" || co.Username != "detour" || co.Password != "pw" || co.TLSConfig != nil {
		t.Errorf("cluster options: %v %q %v", co.Addrs, co.Username, co.TLSConfig != nil)
	}

	// A single seed is still a cluster.
	one, err := NewRedisClient(RedisConfig{Cluster: []string{"redis://a:7000"}})
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	if _, ok := one.(*redis.ClusterClient); !ok {
		t.Errorf("one cluster seed gave %T, want a cluster client", one)
	}

	fo, err := NewRedisClient(RedisConfig{SentinelMaster: "m", Sentinels: []string{"redis://s1:26379/1", "redis://s2:26379"}})
	if err != nil {
		t.Fatal(err)
	}
	defer fo.Close()
	if _, ok := fo.(*redis.Client); !ok {
		t.Errorf("sentinel gave %T, want a failover client", fo)
	}
}

func TestNewRedisClientErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  RedisConfig
		want string
	}{
		{RedisConfig{}, "exactly one"},
		{RedisConfig{URL: "redis://a", Cluster: []string{"redis://b"}}, "exactly one"},
		{RedisConfig{SentinelMaster: "m"}, "master name and at least one sentinel"},
		{RedisConfig{URL: "http://a:1"}, "redis:// or rediss://"},
		{RedisConfig{URL: "redis://:secret@a:1?dial_timeout=3"}, "query"},
		{RedisConfig{URL: "redis://a:99999"}, "bad port"},
		{RedisConfig{URL: "redis://a:1/x"}, "database number"},
		{RedisConfig{Cluster: []string{"redis://a:1", "rediss://b:1"}}, "same scheme"},
		{RedisConfig{Cluster: []string{"redis://a:1/3"}}, "only database 0"},
	} {
		_, err := NewRedisClient(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want it to mention %q", c.cfg, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("error repeats the password: %v", err)
		}
	}
}

// state.timeout bounds each read and write (a dial gets twice as long) and
// each store operation; unset, 500ms (and 1s to connect).
func TestRedisTimeouts(t *testing.T) {
	for _, c := range []struct {
		set, io, dial time.Duration
	}{{0, 500 * time.Millisecond, time.Second}, {3 * time.Second, 3 * time.Second, 6 * time.Second}} {
		single, err := NewRedisClient(RedisConfig{URL: "redis://a:1", Timeout: c.set})
		if err != nil {
			t.Fatal(err)
		}
		o := single.(*redis.Client).Options()
		single.Close()
		cl, err := NewRedisClient(RedisConfig{Cluster: []string{"redis://a:1"}, Timeout: c.set})
		if err != nil {
			t.Fatal(err)
		}
		co := cl.(*redis.ClusterClient).Options()
		cl.Close()
		if o.ReadTimeout != c.io || o.WriteTimeout != c.io || o.DialTimeout != c.dial ||
			co.ReadTimeout != c.io || co.WriteTimeout != c.io || co.DialTimeout != c.dial {
			t.Errorf("timeout %v: single read %v write %v dial %v, cluster read %v write %v dial %v; want %v and %v to dial",
				c.set, o.ReadTimeout, o.WriteTimeout, o.DialTimeout, co.ReadTimeout, co.WriteTimeout, co.DialTimeout, c.io, c.dial)
		}

		rc := redis.NewClient(&redis.Options{Addr: "a:1"})
		s := NewRedis(rc, "t:", nil)
		s.SetTimeout(c.set)
		before := time.Now()
		ctx, cancel := s.opCtx(context.Background())
		after := time.Now()
		dl, ok := ctx.Deadline()
		cancel()
		rc.Close()
		if !ok || dl.Before(before.Add(c.io)) || dl.After(after.Add(c.io)) {
			t.Errorf("timeout %v: a store operation ends at +%v, want +%v", c.set, dl.Sub(before), c.io)
		}
	}
}

// The store's bound is on the whole operation, not on each round trip: a
// transaction (WATCH, GET, MULTI/SET/EXEC) through a Redis that answers
// each command 200ms late outlasts a 300ms bound, though every single
// answer comes within the 500ms read timeout, and the store falls back to
// local state.
func TestStoreTimeoutBoundsTheWholeOperation(t *testing.T) {
	srv := redistest.Start(t)
	slow := redistest.StartProxy(t, srv.Addr())
	s := newStore(t, RedisConfig{URL: slow.URL()}, "slow:", time.Now, nil)
	s.Load(ctx, []string{"k"}) // connected, with testTimeout
	if !s.Shared() {
		t.Fatal("not shared before Redis is slow")
	}
	s.SetTimeout(300 * time.Millisecond)
	slow.Slow(200 * time.Millisecond)
	s.Update(ctx, "k", func(r *Record) { r.Failures++ }, nil)
	if s.Shared() {
		t.Fatal("a 300ms bound let a transaction of several 200ms round trips run to its end")
	}
}
