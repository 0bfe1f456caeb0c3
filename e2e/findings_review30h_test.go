package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 30h (a second look at ebff74a..ae14e5f).

// docs/doors.md, count_tokens: "A client key's limits see only the exact
// count, which calls an upstream ...; an estimate is never counted nor
// refused." Since review 30f the front (admit) takes the key's
// max_concurrent slot before it reads the body, on every door, so a
// count_tokens that is answered by the estimate (the route's first target
// is not Anthropic) is now refused with 429 client_concurrency_limit_exceeded
// while the key's slots are held: a Claude Code session limited to one
// request at a time gets a 429 for every count it asks during a stream.
func TestCountTokensEstimateIsNeverRefusedByMaxConcurrent(t *testing.T) {
	up, arrived, release := heldUpstream(t)
	yaml := `client_keys:
  - {name: cc, key: key-cc, max_concurrent: 1}
providers: [{name: p, dialect: openai, base_url: "` + up + `", api_key: sk-x}]
targets: [{name: gpt, model: gpt-4o, providers: [p]}]
`
	url, a := gatewaytest.Start(t, gatewaytest.Config(t, yaml), app.Options{})
	g := &gateway{URL: url, app: a}
	key := []string{"x-api-key", "key-cc", "anthropic-version", "2023-06-01"}

	var wg sync.WaitGroup
	wg.Go(func() {
		g.raw(t, http.MethodPost, "/v1/messages",
			`{"model":"gpt","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"hi"}]}`, key...)
	})
	waitArrivals(t, arrived, 1) // the stream holds cc's one slot

	r := g.raw(t, http.MethodPost, "/v1/messages/count_tokens",
		`{"model":"gpt","messages":[{"role":"user","content":"how many tokens is this"}]}`, key...)
	close(release)
	wg.Wait()
	if r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"input_tokens"`) {
		t.Errorf("count_tokens (an estimate: gpt is no Anthropic target) while cc's stream runs: %d %s; want 200 with input_tokens (docs/doors.md: an estimate is never counted nor refused)",
			r.Status, r.Body)
	}
}

// docs/security.md "No oracle either for text the client steers an upstream
// to write": a stretch of redact.ClientStretch bytes of one key is "a guess
// no one can make". Review 30h: at 24 bytes it was one for an Amazon
// Bedrock API key (Bedrock's OpenAI-compatible endpoint takes it as the
// Bearer api_key), "ABSK" + base64("BedrockAPIKey-…"), whose first 23
// bytes "ABSKQmVkcm9ja0FQSUtleS1" are the same in every key: with them
// known, the 24th was the guess — right, the stretch was scrubbed; wrong,
// the text came back as written. At 32 the guess must be 9 bytes at once.
// (Bedrock's short-term keys, "bedrock-api-key-" and ~148 fixed bytes of a
// presigned URL's base64, stay such an oracle: docs/security.md, "Not
// covered".)
func TestLongPublicPrefixIsNoKeyOracle(t *testing.T) {
	for _, k := range []struct {
		name, key string
		public    int // bytes every such key begins with
	}{
		// long-term: "ABSK" + base64("BedrockAPIKey-…")
		{"long-term", "ABSKQmVkcm9ja0FQSUtleS1hYjEyLWF0LTEyMzQ1Njc4OTAxMjpXa3F6N0xtUDJ2UjhOeFQ1c0I5aEY0Z0QwWQ==", 23},
	} {
		t.Run(k.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"brk": joiningUpstream})
			g := start(t, `
client_keys: [`+clientKey+`]
providers:
  - {name: brk, dialect: openai, base_url: "{brk}", api_key: "`+k.key+`"}
targets:
  - {name: t, model: openai.gpt-oss-120b-1:0, providers: [brk]}
`, fs)
			// The public bytes, then the guess at the first secret byte.
			known := k.key[:k.public]
			wrongByte := "Z"
			if k.key[k.public] == 'Z' {
				wrongByte = "Y"
			}
			right, wrong := string(k.key[k.public]), wrongByte
			seen := map[string]string{}
			for _, guess := range []string{right, wrong} {
				body := `{"model":"t","messages":[{"role":"user","content":[` +
					`{"type":"text","text":"` + known + `"},{"type":"text","text":"` + guess + `"}]}]}`
				r := g.raw(t, http.MethodPost, "/v1/chat/completions", body, "Authorization", "Bearer "+clientKey)
				seen[guess] = strings.ReplaceAll(r.errMessage(t), known+guess, "<known><guess>")
			}
			if seen[right] != seen[wrong] {
				t.Errorf("the answer tells a right guess at the key's first secret byte from a wrong one:\n right %q → %q\n wrong %q → %q",
					right, seen[right], wrong, seen[wrong])
			}
		})
	}
}

// docs/scale.md, Reload: "an endpoint whose target now names another model
// ... starts healthy (a model found gone ... was the old one's: correcting
// a retired model and reloading tries the new one at once)". But
// forgetChanged clears the record once, at the reload, and "requests in
// flight finish on the configuration they started with": an attempt of the
// old configuration that meets the old model's 404 after the reload reports
// it under the same endpoint name, and the corrected model is cooled for
// unavailable_cooldown (24h) without ever being asked. On a busy gateway
// some request is always in flight at a reload.
func TestReloadedModelIsNotCooledByAnOldAttemptInFlight(t *testing.T) {
	// Review 30i: the same with a reload between (a routine SIGHUP that
	// changed nothing): the first fix retired only the configuration just
	// replaced, and an attempt two configurations old still cooled a/p.
	for _, noops := range []int{0, 1} {
		t.Run(fmt.Sprintf("%d reloads between", noops), func(t *testing.T) { reloadedModelInFlight(t, noops) })
	}
}

func reloadedModelInFlight(t *testing.T, noops int) {
	release := make(chan struct{})
	gone := `{"error":{"message":"The model ` + "`model-a`" + ` does not exist or you do not have access to it.",` +
		`"type":"invalid_request_error","param":null,"code":"model_not_found"}}`
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			if strings.Contains(string(r.Body), `"model-a"`) {
				<-release // the old model's answer comes after the reloads
				return upstreamtest.Step{Status: 404, Body: gone}
			}
			return ok("model-a2", "fixed")
		},
		"q": script(ok("model-b", "b"), ok("model-b", "b"), ok("model-b", "b")),
	})
	g := start(t, twoTargets, fs)
	done := make(chan reply, 1)
	go func() { done <- g.post(t, "r", "") }()
	waitCalls(t, fs["p"], 1)

	urls := strings.NewReplacer("{p}", fs["p"].URL, "{q}", fs["q"].URL)
	for range noops {
		if err := g.app.Reload(gatewaytest.Config(t, urls.Replace(twoTargets))); err != nil {
			t.Fatal(err)
		}
	}
	fixed := strings.Replace(urls.Replace(twoTargets), "model: model-a,", "model: model-a2,", 1)
	if err := g.app.Reload(gatewaytest.Config(t, fixed)); err != nil {
		t.Fatal(err)
	}
	close(release)
	<-done
	d := g.recs.wait(t, 1)
	t.Logf("in flight across the reloads: steps %v, transitions %+v", steps(d), d.Transitions)

	calls := fs["p"].Calls()
	g.post(t, "r", "")
	d = g.recs.wait(t, 2)
	if fs["p"].Calls() == calls {
		t.Errorf("the corrected model model-a2 was never tried: the old model-a's 404, met by a request in flight, cooled a/p after the reload (steps %v, skipped %v)",
			steps(d), skipped(d))
	}
}
