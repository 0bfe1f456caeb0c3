package health

import (
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
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
