package app_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/redistest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Whoever can read the Redis a fleet shares (another team's service on a
// shared instance, a backup, a MONITOR session) must learn no credential
// from it: docs/scale.md says the key itself never reaches Redis. After
// traffic that writes every kind of key — an account rejected (auth), a
// limited client's request counted and its spend added, an endpoint's
// latency — no key or value holds a provider key, a header secret, a
// client key or the Redis password.
func TestReview40dRedisHoldsNoSecret(t *testing.T) {
	const (
		providerKey = "sk-prov-SECRET-0f9a8b7c6d5e"
		headerValue = "hdr-SECRET-1a2b3c4d"
		clientKey   = "ck-client-SECRET-5e6f7a8b"
		redisPass   = "redis-SECRET-pw-9c8d"
	)
	srv := redistest.StartWith(t, "--requirepass", redisPass)
	good := upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Body: upstreamtest.ChatJSON("m", "hi")}))
	t.Cleanup(good.Close)
	bad := upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Status: 401, Body: `{"error":{"message":"Incorrect API key provided: sk-prov-****8b7c6d5e.","type":"invalid_request_error","code":"invalid_api_key"}}`}))
	t.Cleanup(bad.Close)
	cfg := gatewaytest.Config(t, `state: {store: redis, url: "redis://:`+redisPass+`@`+srv.Addr()+`/0"}
client_keys:
  - {name: team-a, key: "`+clientKey+`", rate: {requests_per_minute: 100, tokens_per_minute: 100000}, budget: {usd_per_day: 5}}
providers:
  - {name: rejected, dialect: openai, base_url: "`+bad.URL+`/v1", api_key: "`+providerKey+`", headers: {X-Org-Secret: "`+headerValue+`"}}
  - {name: fine, dialect: openai, base_url: "`+good.URL+`/v1", api_key: "`+providerKey+`", headers: {X-Org-Secret: "`+headerValue+`"}}
targets:
  - {name: t1, model: m, providers: [rejected], price: {input: 1, output: 1}}
  - {name: t2, model: m, providers: [fine], price: {input: 1, output: 1}}
routes:
  - {name: r, strategy: ordered, targets: [t1, t2], fallback_on: [auth]}
`)
	url, _ := gatewaytest.Start(t, cfg, app.Options{})
	for range 3 {
		req, _ := http.NewRequest(http.MethodPost, url+"/v1/chat/completions", strings.NewReader(`{"model":"r","messages":[{"role":"user","content":"x"}]}`))
		req.Header.Set("Authorization", "Bearer "+clientKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d: %s", resp.StatusCode, b)
		}
	}
	rc := srv.Client(t)
	ctx := context.Background()
	if err := rc.Do(ctx, "AUTH", redisPass).Err(); err != nil {
		t.Fatal(err)
	}
	keys, err := rc.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, k := range keys {
		if typ := rc.Type(ctx, k).Val(); typ != "string" {
			t.Errorf("redis key %q is a %s: Detour writes strings only", k, typ)
			continue
		}
		v, err := rc.Get(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{providerKey, headerValue, clientKey, redisPass, "8b7c6d5e", "1a2b3c4d", "5e6f7a8b"} {
			if strings.Contains(k, secret) || strings.Contains(v, secret) {
				t.Errorf("redis key %q (value %q) holds %q", k, v, secret)
			}
		}
		kinds = append(kinds, k)
	}
	for _, want := range []string{"{rejected}:acct", "{fine}:ep:t2", "{client:team-a}:req:", "{client:team-a}:usd:d:"} {
		found := false
		for _, k := range kinds {
			found = found || strings.Contains(k, want)
		}
		if !found {
			t.Errorf("no key like %q was written (keys: %v): the traffic did not reach every kind", want, kinds)
		}
	}
}
