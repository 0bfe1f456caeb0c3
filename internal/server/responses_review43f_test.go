package server_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// openAITPM429 is OpenAI's 429 for a tokens-per-minute window
// (classify/testdata/corpus/openai-rate-limit-reached-tpm-429.json, from
// https://github.com/continuedev/continue/issues/10502).
const openAITPM429 = `{"error":{"message":"Rate limit reached for gpt-4.1 in organization org-vyUrKHsIdLcZGKR3zqCqllrS on tokens per min (TPM): Limit 30000, Used 28039, Requested 3906. Please try again in 3.89s. Visit https://platform.openai.com/account/rate-limits to learn more.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`

// A Codex user whose route mixes chat targets around a responses: true
// one relies on a rate limit at that target reaching it as a rate limit:
// a 429 with its Retry-After, which openai-go and Codex wait out and retry.
// A chat target after it, passed over because the request has no
// translation (a custom tool), called no one and is no one's answer
// (docs/behaviour.md, "Routing": a translation refused), as a target
// passed over as too costly is none (review 36c). Before, the pass-over
// was the last attempt, so the client got a 400 invalid_request_error
// ("could not translate the request"), which no SDK retries, without the
// upstream's wait, for a request the same route serves a few seconds on.
func TestReview43fATranslatePassOverDoesNotMaskTheNativeFailure(t *testing.T) {
	custom := `{"model":"r","input":"fix it","tools":[{"type":"custom","name":"apply_patch","format":{"type":"grammar","syntax":"lark","definition":"start: /.+/"}}]%s}`
	for _, c := range []struct{ name, extra string }{{"whole", ""}, {"stream", `,"stream":true`}} {
		url, chat, recs := mixedResponsesRoute(t, "[ct, nt, ct2]", func(int, upstreamtest.Request) upstreamtest.Step {
			return upstreamtest.Step{Status: 429, Header: map[string]string{"Retry-After": "20"}, Body: openAITPM429}
		})
		resp, body := post(t, url, "/v1/responses", strings.Replace(custom, "%s", c.extra, 1))
		ra, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		if resp.StatusCode != http.StatusTooManyRequests || ra < 15 || ra > 20 || chat.Calls() != 0 {
			t.Errorf("%s: the responses: true target answered 429 Retry-After: 20, a chat target after it was passed over: client got %d Retry-After %q %.200s (chat calls %d); want the 429 and its wait",
				c.name, resp.StatusCode, resp.Header.Get("Retry-After"), body, chat.Calls())
		}
		d := recs.Wait(t, 1)
		if d.Class != "rate_limited" || d.Status != http.StatusTooManyRequests || len(d.Attempts) != 3 || d.Attempts[2].Evidence != "translate" {
			t.Errorf("%s: record class %q status %d, %d attempts", c.name, d.Class, d.Status, len(d.Attempts))
		}
	}
}

// mixedResponsesRoute starts a gateway whose route r lists, in the order
// targets says, two chat targets (ct, ct2, one chat fake that answers) and
// a responses: true target (nt) answering by nat.
func mixedResponsesRoute(t *testing.T, targets string, nat upstreamtest.Script) (string, *upstreamtest.Server, *gatewaytest.Records) {
	t.Helper()
	n := upstreamtest.New(nat)
	chat := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o", "from c")}
	})
	t.Cleanup(n.Close)
	t.Cleanup(chat.Close)
	recs := gatewaytest.NewRecords()
	url, _ := gatewaytest.Start(t, gatewaytest.Config(t, `
providers:
  - {name: c, dialect: openai, base_url: "`+chat.URL+`", api_key: sk-c}
  - {name: c2, dialect: openai, base_url: "`+chat.URL+`", api_key: sk-c2}
  - {name: n, dialect: openai, base_url: "`+n.URL+`", api_key: sk-n, responses: true}
targets:
  - {name: ct, model: gpt-4o, providers: [c]}
  - {name: nt, model: gpt-5, providers: [n]}
  - {name: ct2, model: gpt-4o-mini, providers: [c2]}
routes:
  - {name: r, targets: `+targets+`}
`), app.Options{Decisions: recs})
	return url, chat, recs
}

// An operator who keeps a responses: true target as the route's guarded
// tail (tail_on naming unknown) relies on what only it can serve (Codex's
// custom tools) reaching it, as a request the chat targets fail does:
// the route has a target that serves Responses as sent (docs/doors.md,
// "Wiring"). Before, the door looked at the route's own targets only and
// refused the request with a 400.
func TestReview43fBNativeTailServesWhatOnlyItCan(t *testing.T) {
	answer := `{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"gpt-5","output":[{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"patched","annotations":[]}]}],"usage":{"input_tokens":3,"output_tokens":1,"total_tokens":4}}`
	nat := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step { return upstreamtest.Step{Body: answer} })
	chat := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o", "from c")}
	})
	t.Cleanup(nat.Close)
	t.Cleanup(chat.Close)
	url, _ := gatewaytest.Start(t, gatewaytest.Config(t, `
providers:
  - {name: c, dialect: openai, base_url: "`+chat.URL+`", api_key: sk-c}
  - {name: n, dialect: openai, base_url: "`+nat.URL+`", api_key: sk-n, responses: true}
targets:
  - {name: ct, model: gpt-4o, providers: [c]}
  - {name: nt, model: gpt-5, providers: [n]}
routes:
  - {name: r, targets: [ct], tail: [nt], tail_on: [unknown, server_error]}
`), app.Options{})
	custom := `{"model":"r","input":"fix it","tools":[{"type":"custom","name":"apply_patch","format":{"type":"grammar","syntax":"lark","definition":"start: /.+/"}}]}`
	resp, body := post(t, url, "/v1/responses", custom)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "patched") || nat.Calls() != 1 || chat.Calls() != 0 {
		t.Errorf("a custom tool, route [chat] with a responses: true tail: %d %.300s (calls native %d, chat %d)", resp.StatusCode, body, nat.Calls(), chat.Calls())
	}
	// What the chat target serves, it still serves, translated.
	resp, body = post(t, url, "/v1/responses", `{"model":"r","input":"hi"}`)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "from c") || chat.Calls() != 1 {
		t.Errorf("a plain request: %d %.300s", resp.StatusCode, body)
	}
}
