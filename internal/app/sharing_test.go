package app_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/redistest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Every replica answers /v1/health from its own view. An operator reading
// it on a replica cut off from Redis sees only what that replica learned
// itself, so /v1/health says where its state comes from ("state": store,
// shared, local_since) and /metrics has detour_state_shared, 0 while the
// replica serves from local state: otherwise the replica's partial picture
// passed for the fleet's.
func TestHealthSaysWhenAReplicaIsCutOffFromRedis(t *testing.T) {
	srv := redistest.Start(t)
	up := upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Body: upstreamtest.ChatJSON("m", "hi")}))
	t.Cleanup(up.Close)
	cfg := gatewaytest.Config(t, `state: {store: redis, url: "`+srv.URL()+`", timeout: 200ms}
providers:
  - {name: p, dialect: openai, base_url: "`+up.URL+`/v1", api_key: sk-test}
targets:
  - {name: t, model: m, providers: [p]}
`)
	url, _ := gatewaytest.Start(t, cfg, app.Options{})
	chat := func() {
		resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"t","messages":[{"role":"user","content":"x"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d: a replica without Redis must still serve", resp.StatusCode)
		}
	}
	type state struct {
		Store      string     `json:"store"`
		Shared     bool       `json:"shared"`
		LocalSince *time.Time `json:"local_since"`
	}
	read := func() (state, string) {
		var h struct{ State state }
		resp, err := http.Get(url + "/v1/health")
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(resp.Body).Decode(&h)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		m, err := http.Get(url + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(m.Body)
		m.Body.Close()
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, `detour_state_shared{store="redis"}`) {
				return h.State, strings.TrimSpace(strings.TrimPrefix(l, `detour_state_shared{store="redis"}`))
			}
		}
		return h.State, "missing"
	}

	chat()
	if st, gauge := read(); st.Store != "redis" || !st.Shared || st.LocalSince != nil || gauge != "1" {
		t.Fatalf("with Redis answering: state %+v, gauge %s", st, gauge)
	}
	before := time.Now()
	srv.Kill()
	chat() // the request's operations find Redis gone
	st, gauge := read()
	if st.Store != "redis" || st.Shared || st.LocalSince == nil || st.LocalSince.Before(before.Add(-time.Second)) || gauge != "0" {
		t.Fatalf("with Redis down: state %+v, gauge %s; want shared false since the outage", st, gauge)
	}
	srv.Start(t)
	deadline := time.Now().Add(10 * time.Second)
	for {
		chat()
		if st, gauge = read(); st.Shared || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if !st.Shared || st.LocalSince != nil || gauge != "1" {
		t.Fatalf("Redis back: state %+v, gauge %s", st, gauge)
	}
}

// With the memory store there is nothing to share: the state says so.
func TestHealthSaysAMemoryStoreSharesNothing(t *testing.T) {
	cfg := gatewaytest.Config(t, `providers:
  - {name: p, dialect: openai, base_url: "http://127.0.0.1:9/v1", api_key: sk-test}
targets:
  - {name: t, model: m, providers: [p]}
`)
	url, _ := gatewaytest.Start(t, cfg, app.Options{})
	resp, err := http.Get(url + "/v1/health")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(b), `"state":{"store":"memory","shared":false,"local_since":null,"lost_at":null}`) {
		t.Fatalf("/v1/health: %s", b)
	}
}

// A Redis restarted empty (no persistence, a failover to an empty replica,
// a flush) came back with no word on /v1/health: only the log and, where
// keys had budgets, detour_state_lost_total said so. The state now says
// when this replica found it (state.lost_at), with or without budgets.
func TestHealthSaysWhenRedisLostItsState(t *testing.T) {
	srv := redistest.Start(t)
	cfg := gatewaytest.Config(t, `state: {store: redis, url: "`+srv.URL()+`", timeout: 200ms}
providers:
  - {name: p, dialect: openai, base_url: "http://127.0.0.1:9/v1", api_key: sk-test}
targets:
  - {name: t, model: m, providers: [p]}
`)
	url, _ := gatewaytest.Start(t, cfg, app.Options{})
	lostAt := func() *time.Time { return lostAt(t, url) }
	time.Sleep(6 * time.Second) // a tick while Redis holds everything: nothing is lost
	if at := lostAt(); at != nil {
		t.Fatalf("lost_at %v before Redis lost anything", at)
	}
	before := time.Now()
	srv.Kill()
	srv.Start(t) // empty: nothing saved
	deadline := time.Now().Add(15 * time.Second)
	for {
		at := lostAt()
		if at != nil {
			if at.Before(before.Add(-time.Second)) {
				t.Fatalf("lost_at %v is before Redis restarted (%v)", at, before)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("/v1/health's state.lost_at is still null 15 s after Redis restarted empty")
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// lostAt is the state.lost_at of the gateway at url's /v1/health.
func lostAt(t *testing.T, url string) *time.Time {
	t.Helper()
	var h struct {
		State struct {
			LostAt *time.Time `json:"lost_at"`
		}
	}
	resp, err := http.Get(url + "/v1/health")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		t.Fatal(err)
	}
	return h.State.LostAt
}
