package config

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// State is where shared state lives. With StoreRedis exactly one of URL,
// Cluster or Sentinel is set.
type State struct {
	Store Store
	// URL is one Redis server: redis://[user:password@]host[:port][/db], or
	// rediss:// for TLS.
	URL string
	// Cluster lists seed nodes of a Redis Cluster, as URLs of one scheme and
	// without a database (a cluster has only db 0); the rest are discovered.
	Cluster []string
	// Sentinel names a primary managed by Redis Sentinel.
	Sentinel Sentinel
	// Username and Password authenticate to the data nodes (the server,
	// every cluster node, the Sentinel-managed primary); when set they win
	// over a user and password written in the URLs. Usually ${VAR}s.
	Username, Password string
	// Timeout bounds one Redis operation (a connection attempt gets twice
	// as long); past it the replica serves from local state. Zero means
	// DefaultStateTimeout.
	Timeout time.Duration
}

// DefaultStateTimeout is state.timeout when not written.
const DefaultStateTimeout = 500 * time.Millisecond

// Sentinel is a Sentinel-managed primary: its master name and the sentinels
// to ask for it (URLs of one scheme; a user and password in them
// authenticate to the sentinels, a /db selects the primary's database).
type Sentinel struct {
	Master string
	Addrs  []string
}

// Equal reports whether s and o describe the same state store.
func (s State) Equal(o State) bool {
	return s.Store == o.Store && s.URL == o.URL && slices.Equal(s.Cluster, o.Cluster) &&
		s.Sentinel.Master == o.Sentinel.Master && slices.Equal(s.Sentinel.Addrs, o.Sentinel.Addrs) &&
		s.Username == o.Username && s.Password == o.Password && s.Timeout == o.Timeout
}

// Form names the kind of store: "memory", "redis", "redis cluster" or
// "redis sentinel".
func (s State) Form() string {
	switch {
	case s.Store != StoreRedis:
		return string(s.Store)
	case len(s.Cluster) > 0:
		return "redis cluster"
	case s.Sentinel.Master != "":
		return "redis sentinel"
	}
	return "redis"
}

const stateForms = "a url (redis://host:port/db or rediss://…), cluster seeds (cluster: [redis://host:port, …]) or a sentinel ({master: name, addrs: [redis://host:port, …]})"

func (d *decoder) decodeState(n *yaml.Node, s *State) {
	g, ok := d.mapping(n, "state", "store", "url", "cluster", "sentinel", "username", "password", "timeout")
	if !ok {
		return
	}
	if v, ok := g.str("store", false); ok {
		if !d.oneOf(v, "state store", "memory", "redis") {
			return
		}
		s.Store = Store(v.s)
	}
	if s.Store != StoreRedis {
		for _, k := range []string{"url", "cluster", "sentinel", "username", "password", "timeout"} {
			if _, written := g.vals[k]; written {
				d.errorf(g.keys[k], "state %s is only for store: redis", k)
			}
		}
		return
	}
	var forms []string
	for _, k := range []string{"url", "cluster", "sentinel"} {
		if _, written := g.vals[k]; written {
			forms = append(forms, k)
		}
	}
	switch len(forms) {
	case 0:
		d.errorf(g.node, "state store redis needs %s", stateForms)
	case 1:
	default:
		d.errorf(g.keys[forms[1]], "state: give one of url, cluster and sentinel, not %s", strings.Join(forms, " and "))
		return
	}
	if u, ok := g.str("url", true); ok && d.redisURL(u, "state url", true) {
		s.URL = u.s
	}
	if items, node, ok := g.seq("cluster"); ok {
		s.Cluster = d.redisURLs(items, node, "state cluster", false)
	} else if node != nil && isNull(node) {
		d.errorf(node, "state cluster has no value: list the seed nodes")
	}
	if g.has("sentinel") {
		d.decodeSentinel(g.vals["sentinel"], &s.Sentinel)
	} else if _, written := g.vals["sentinel"]; written {
		d.errorf(g.keys["sentinel"], "state sentinel has no value: write {master: name, addrs: [redis://host:port, …]}")
	}
	for _, k := range []struct {
		key string
		dst *string
	}{{"username", &s.Username}, {"password", &s.Password}} {
		if v, ok := g.str(k.key, true); ok {
			*k.dst = v.s
		}
	}
	g.setDuration("timeout", &s.Timeout, false)
}

func (d *decoder) decodeSentinel(n *yaml.Node, s *Sentinel) {
	g, ok := d.mapping(n, "state sentinel", "master", "addrs")
	if !ok {
		return
	}
	g.require("master", "addrs")
	if v, ok := g.name("master"); ok {
		s.Master = v.name
	}
	if items, node, ok := g.seq("addrs"); ok {
		s.Addrs = d.redisURLs(items, node, "state sentinel addrs", true)
	}
}

// redisURLs decodes a non-empty list of Redis URLs of one scheme.
func (d *decoder) redisURLs(items []*yaml.Node, node *yaml.Node, what string, dbOK bool) []string {
	if len(items) == 0 {
		d.errorf(node, "%s must list at least one redis:// or rediss:// URL", what)
		return nil
	}
	var out []string
	scheme := ""
	for _, it := range items {
		v, ok := d.scalar(it, what+" entry", true)
		if !ok || !d.redisURL(v, what+" entry", dbOK) {
			continue
		}
		sc, _, _ := strings.Cut(v.s, ":")
		if scheme == "" {
			scheme = sc
		} else if sc != scheme {
			d.errorf(v.node, "%s: every URL must use the same scheme (all redis:// or all rediss://)", what)
			continue
		}
		out = append(out, v.s)
	}
	return out
}

// redisURL checks redis://[user:password@]host[:port][/db] (or rediss://):
// what Detour's Redis client accepts. A URL may hold a password: it is never
// echoed.
func (d *decoder) redisURL(v value, what string, dbOK bool) bool {
	pu, err := url.Parse(v.s)
	if err != nil || (pu.Scheme != "redis" && pu.Scheme != "rediss") || pu.Hostname() == "" {
		d.errorf(v.node, "%s must be a redis:// or rediss:// URL with a host", what)
		return false
	}
	if pu.RawQuery != "" || pu.Fragment != "" {
		d.errorf(v.node, "%s must not have query parameters or a fragment (Detour sets the timeouts)", what)
		return false
	}
	if p := pu.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			d.errorf(v.node, "%s has a bad port", what)
			return false
		}
	}
	if db := strings.Trim(pu.Path, "/"); db != "" {
		n, err := strconv.Atoi(db)
		switch {
		case err != nil || n < 0:
			d.errorf(v.node, "%s: the path must be a database number, e.g. /0", what)
			return false
		case !dbOK && n != 0:
			d.errorf(v.node, "%s: a cluster has only database 0", what)
			return false
		}
	}
	return true
}
