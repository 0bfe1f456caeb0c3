package config

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestStateForms(t *testing.T) {
	env := map[string]string{"RUSER": "detour", "RPASS": "p@ss:w/rd"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	for _, c := range []struct {
		name, yaml string
		want       State
		form       string
	}{
		{"one server over TLS", `state: {store: redis, url: "rediss://redis.internal:6380/2"}`,
			State{Store: StoreRedis, URL: "rediss://redis.internal:6380/2"}, "redis"},
		{"cluster seeds, credentials from the environment", `state:
  store: redis
  cluster: ["redis://10.0.0.1:7000", "redis://10.0.0.2:7000"]
  username: ${RUSER}
  password: ${RPASS}`,
			State{Store: StoreRedis, Cluster: []string{"redis://10.0.0.1:7000", "redis://10.0.0.2:7000"},
				Username: "detour", Password: "p@ss:w/rd"}, "redis cluster"},
		{"sentinel", `state: {store: redis, sentinel: {master: mymaster, addrs: ["redis://s1:26379/1", "redis://s2:26379"]}, password: "${RPASS}"}`,
			State{Store: StoreRedis, Sentinel: Sentinel{Master: "mymaster", Addrs: []string{"redis://s1:26379/1", "redis://s2:26379"}},
				Password: "p@ss:w/rd"}, "redis sentinel"},
		{"operation timeout", `state: {store: redis, url: "redis://127.0.0.1:6379", timeout: 2s}`,
			State{Store: StoreRedis, URL: "redis://127.0.0.1:6379", Timeout: 2 * time.Second}, "redis"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Parse("c.yaml", []byte(base+c.yaml+"\n"), lookup)
			if err != nil {
				t.Fatal(err)
			}
			if !cfg.State.Equal(c.want) || cfg.State.Form() != c.form {
				t.Fatalf("state %+v (%s), want %+v (%s)", cfg.State, cfg.State.Form(), c.want, c.form)
			}
		})
	}
}

func TestStateErrors(t *testing.T) {
	env := map[string]string{"RPASS": "sk-secret-pw"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	for _, c := range []struct {
		name, yaml string
		want       []wantErr
	}{
		{"two forms", `state: {store: redis, url: "redis://a:1", cluster: ["redis://b:1"]}`,
			[]wantErr{{5, `state: give one of url, cluster and sentinel, not url and cluster`}}},
		{"no form", "state:\n  store: redis\n  password: x",
			[]wantErr{{6, `state store redis needs a url (redis://host:port/db or rediss://…), cluster seeds`}}},
		{"cluster for memory", `state: {cluster: ["redis://b:1"]}`,
			[]wantErr{{5, `state cluster is only for store: redis`}}},
		{"empty cluster", `state: {store: redis, cluster: []}`,
			[]wantErr{{5, `state cluster must list at least one redis:// or rediss:// URL`}}},
		{"mixed schemes", `state: {store: redis, cluster: ["redis://a:1", "rediss://b:1"]}`,
			[]wantErr{{5, `state cluster: every URL must use the same scheme`}}},
		{"cluster database", `state: {store: redis, cluster: ["redis://a:1/3"]}`,
			[]wantErr{{5, `state cluster entry: a cluster has only database 0`}}},
		{"query parameters", `state: {store: redis, url: "redis://:${RPASS}@a:1/0?dial_timeout=9"}`,
			[]wantErr{{5, `state url must not have query parameters`}}},
		{"bad port", `state: {store: redis, url: "redis://a:99999"}`,
			[]wantErr{{5, `state url has a bad port`}}},
		{"sentinel without master", `state: {store: redis, sentinel: {addrs: ["redis://s:26379"]}}`,
			[]wantErr{{5, `state sentinel is missing required key "master"`}}},
		{"sentinel not a URL", `state: {store: redis, sentinel: {master: m, addrs: ["s1:26379"]}}`,
			[]wantErr{{5, `state sentinel addrs entry must be a redis:// or rediss:// URL with a host`}}},
		{"timeout for memory", `state: {timeout: 2s}`,
			[]wantErr{{5, `state timeout is only for store: redis`}}},
		{"zero timeout", `state: {store: redis, url: "redis://a:1", timeout: 0s}`,
			[]wantErr{{5, `state timeout must be greater than zero`}}},
		{"timeout without unit", `state: {store: redis, url: "redis://a:1", timeout: 2}`,
			[]wantErr{{5, `state timeout: bad duration "2": a unit is required, e.g. 2s`}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("c.yaml", []byte(base+c.yaml+"\n"), lookup)
			checkErrors(t, err, c.want)
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("the password is echoed: %v", err)
			}
		})
	}
}

func TestStateEqual(t *testing.T) {
	a := State{Store: StoreRedis, Cluster: []string{"redis://a:1", "redis://b:1"}}
	b := a
	b.Cluster = slices.Clone(a.Cluster)
	if !a.Equal(b) {
		t.Fatal("equal states differ")
	}
	b.Cluster[1] = "redis://c:1"
	if a.Equal(b) {
		t.Fatal("different seeds compare equal")
	}
	b = a
	b.Timeout = time.Second
	if a.Equal(b) {
		t.Fatal("different timeouts compare equal")
	}
}
