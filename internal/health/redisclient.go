package health

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisConfig says how to reach Redis: exactly one of URL (one server),
// Cluster (seed nodes of a Redis Cluster) or SentinelMaster with Sentinels
// (a primary managed by Redis Sentinel).
//
// Every address is a URL, redis://[user:password@]host:port[/db], or
// rediss:// for TLS; a list uses one scheme. The user and password of a
// server or cluster URL authenticate to Redis; those of a sentinel URL to
// the sentinel. Username and Password, when set, authenticate to the data
// nodes (the server, every cluster node, the Sentinel-managed primary) and
// win over the URLs'. The db is that of URL, or of the first sentinel URL; a
// cluster has only db 0.
type RedisConfig struct {
	URL            string
	Cluster        []string
	SentinelMaster string
	Sentinels      []string
	Username       string
	Password       string
	// Timeout bounds each read and write; a dial gets twice as long. Zero
	// means DefaultTimeout. The store's own bound per operation is set
	// apart (RedisStore.SetTimeout).
	Timeout time.Duration
}

// DefaultTimeout bounds one Redis operation. Timeouts towards Redis are
// short: a slow or unreachable Redis must cost a request little, since the
// store falls back to local state (see doc.go).
const DefaultTimeout = 500 * time.Millisecond

// NewRedisClient builds a go-redis universal client for c: a plain client,
// a cluster client or a Sentinel-backed failover client. It makes no
// connection; errors name the problem, never a password.
func NewRedisClient(c RedisConfig) (redis.UniversalClient, error) {
	var o redis.UniversalOptions
	var list []string
	forms := 0
	if c.URL != "" {
		forms++
		list = []string{c.URL}
	}
	if len(c.Cluster) > 0 {
		forms++
		list = c.Cluster
		o.IsClusterMode = true
	}
	if c.SentinelMaster != "" || len(c.Sentinels) > 0 {
		forms++
		if c.SentinelMaster == "" || len(c.Sentinels) == 0 {
			return nil, errors.New("redis: sentinel needs a master name and at least one sentinel")
		}
		list = c.Sentinels
		o.MasterName = c.SentinelMaster
	}
	if forms != 1 {
		return nil, errors.New("redis: give exactly one of a url, cluster seeds, or a sentinel master with its sentinels")
	}
	var scheme string
	for i, raw := range list {
		a, err := ParseRedisAddr(raw)
		if err != nil {
			return nil, err
		}
		switch {
		case i == 0:
			scheme = a.Scheme
			o.DB = a.DB
			if o.MasterName != "" {
				o.SentinelUsername, o.SentinelPassword = a.Username, a.Password
			} else {
				o.Username, o.Password = a.Username, a.Password
			}
		case a.Scheme != scheme:
			return nil, errors.New("redis: every address of a list must use the same scheme (redis:// or rediss://)")
		}
		if o.IsClusterMode && a.DB != 0 {
			return nil, errors.New("redis: a cluster has only database 0")
		}
		o.Addrs = append(o.Addrs, a.Addr)
	}
	if scheme == "rediss" {
		host, _, _ := net.SplitHostPort(o.Addrs[0])
		o.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12}
		if !o.IsClusterMode && o.MasterName == "" {
			o.TLSConfig.ServerName = host
		}
	}
	if c.Username != "" || c.Password != "" {
		o.Username, o.Password = c.Username, c.Password
	}
	op := c.Timeout
	if op <= 0 {
		op = DefaultTimeout
	}
	o.DialTimeout, o.ReadTimeout, o.WriteTimeout = 2*op, op, op
	// No command retries and one dial per operation: the store retries a
	// down Redis once a second itself. go-redis's defaults (retries, 5 dials
	// 100ms apart) turn a refused connection into a stall ending in "context
	// deadline exceeded", hiding the cause. A cluster still follows MOVED
	// and ASK redirects (its default), so resharding works; a master that
	// failed over is found by the stores, which have the slot map read
	// again when an operation meets an outage (redisfail.Rediscover).
	o.MaxRetries = -1
	o.DialerRetries = 1
	// The store bounds each operation with its context's deadline
	// (RedisStore.SetTimeout); go-redis ignores it on the socket unless
	// told, and a transaction of several round trips would then run on.
	o.ContextTimeoutEnabled = true
	return redis.NewUniversalClient(&o), nil
}

// RedisAddr is one parsed address of a RedisConfig.
type RedisAddr struct {
	Scheme             string // "redis" or "rediss"
	Addr               string // host:port
	Username, Password string
	DB                 int
}

// ParseRedisAddr reads redis://[user:password@]host[:port][/db] (or
// rediss://). The port defaults to 6379; query parameters are refused (the
// timeouts are Detour's). Errors never repeat the URL, which may hold a
// password.
func ParseRedisAddr(raw string) (RedisAddr, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return RedisAddr{}, errors.New("redis: not a URL")
	}
	if u.Scheme != "redis" && u.Scheme != "rediss" {
		return RedisAddr{}, errors.New("redis: want a redis:// or rediss:// URL")
	}
	if u.Hostname() == "" {
		return RedisAddr{}, errors.New("redis: the URL has no host")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return RedisAddr{}, errors.New("redis: the URL must not have query parameters or a fragment")
	}
	port := u.Port()
	if port == "" {
		port = "6379"
	} else if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return RedisAddr{}, errors.New("redis: bad port in the URL")
	}
	a := RedisAddr{Scheme: u.Scheme, Addr: net.JoinHostPort(u.Hostname(), port)}
	if u.User != nil {
		a.Username = u.User.Username()
		a.Password, _ = u.User.Password()
	}
	if db := strings.Trim(u.Path, "/"); db != "" {
		n, err := strconv.Atoi(db)
		if err != nil || n < 0 || strings.Contains(db, "/") {
			return RedisAddr{}, fmt.Errorf("redis: the URL path must be a database number, not %q", db)
		}
		a.DB = n
	}
	return a, nil
}
