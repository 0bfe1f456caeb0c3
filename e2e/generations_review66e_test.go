package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// refusedByRule is the fake's 400 for a request its rule refuses: the
// words are the fake's own, not a vendor's (no vendor documentation
// publishes those of the refusals below); param names the member, as an
// OpenAI refusal does.
func refusedByRule(param string) upstreamtest.Step {
	return upstreamtest.Step{Status: 400, Body: `{"error":{"message":"fake upstream: request refused by rule","type":"invalid_request_error","param":"` + param + `","code":null}}`}
}

// chatBody is an upstream request's body, decoded.
func chatBody(t *testing.T, r upstreamtest.Request) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// Review 66e. From GPT-5.4 on, OpenAI's Chat Completions refuses function
// tools beside a reasoning effort other than none, and the 5.6 models at
// their default effort too (param reasoning_effort; openai/openai-openapi#541):
// it points to /v1/responses, or to none. Claude Code sends tools with
// every request: through the Messages door to a gpt-5.6 chat target every
// request was that 400 (class unknown: the walk moved on, and a route of
// that target alone answered nothing). Codex's reasoning.effort, through
// the Responses door, did the same at 5.4 and later. The fake refuses by
// that rule; a translation with tools now says none, and is answered at
// the first call.
func TestToolsWithReasoningReachGPT56ChatReview66e(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			var b struct {
				Tools  []json.RawMessage `json:"tools"`
				Effort *string           `json:"reasoning_effort"`
			}
			_ = json.Unmarshal(r.Body, &b)
			if len(b.Tools) > 0 && (b.Effort == nil || *b.Effort != "none") {
				return refusedByRule("reasoning_effort")
			}
			return ok("gpt-5.6-terra", "Hello.")
		},
	})
	g := start(t, `
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: `+secret+`}
targets:
  - {name: gpt, model: gpt-5.6-terra, providers: [openai]}
routes:
  - {name: r, targets: [gpt]}
`, fs)
	const tool = `{"name":"Read","description":"Read a file","input_schema":{"type":"object","properties":{"path":{"type":"string"}}}}`
	r := g.raw(t, http.MethodPost, "/v1/messages", `{"model":"r","max_tokens":1000,"thinking":{"type":"adaptive"},"tools":[`+tool+`],"messages":[{"role":"user","content":"read a.txt"}]}`, "x-api-key", "k")
	if r.Status != http.StatusOK {
		t.Fatalf("messages: %d %s", r.Status, r.Body)
	}
	wantSteps(t, g.recs.wait(t, 1), "gpt/openai ok done")

	const fn = `{"type":"function","name":"exec_command","description":"run","parameters":{"type":"object","properties":{"cmd":{"type":"string"}}},"strict":false}`
	r = g.raw(t, http.MethodPost, "/v1/responses", `{"model":"r","input":"list files","tools":[`+fn+`],"reasoning":{"effort":"high","summary":"auto"},"store":false,"temperature":0.3}`)
	if r.Status != http.StatusOK {
		t.Fatalf("responses: %d %s", r.Status, r.Body)
	}
	wantSteps(t, g.recs.wait(t, 2), "gpt/openai ok done")
	reqs := fs["openai"].Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d upstream calls, want 2: one each", len(reqs))
	}
	if b := chatBody(t, reqs[1]); b["reasoning_effort"] != "none" || b["temperature"] != 0.3 {
		t.Errorf("the Responses door's translation: %s", reqs[1].Body)
	}
}

// Review 66e. A Responses client writes its effort for the model it
// thinks it talks to (Codex's xhigh, the Agents SDK's minimal); the
// route's model takes another set ("xhigh is supported for all models
// after gpt-5.1-codex-max", "All models before gpt-5.1 … do not support
// none", OpenAI's API reference), and its 400 (bad_request) ended the
// walk: the client got nothing. The fake refuses, by the documented rule,
// a value its model does not take; the translation is sent the nearest
// value the model's generation takes.
func TestReasoningEffortFitsTheRoutesModelReview66e(t *testing.T) {
	takes := map[string][]string{
		"o3":      {"low", "medium", "high"},
		"gpt-5.1": {"none", "low", "medium", "high"},
	}
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			var b struct {
				Model  string `json:"model"`
				Effort string `json:"reasoning_effort"`
			}
			_ = json.Unmarshal(r.Body, &b)
			if b.Effort != "" && !strings.Contains(" "+strings.Join(takes[b.Model], " ")+" ", " "+b.Effort+" ") {
				return refusedByRule("reasoning_effort")
			}
			return ok(b.Model, "Hello.")
		},
	})
	g := start(t, `
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: `+secret+`}
targets:
  - {name: o3, model: o3, providers: [openai]}
  - {name: g51, model: gpt-5.1, providers: [openai]}
routes:
  - {name: ro3, targets: [o3]}
  - {name: rg51, targets: [g51]}
`, fs)
	for i, c := range []struct{ route, effort, want string }{
		{"ro3", "xhigh", "high"},
		{"ro3", "none", "low"},
		{"rg51", "minimal", "low"},
		{"rg51", "xhigh", "high"},
	} {
		r := g.raw(t, http.MethodPost, "/v1/responses", `{"model":"`+c.route+`","input":"hi","reasoning":{"effort":"`+c.effort+`"},"store":false}`)
		if r.Status != http.StatusOK {
			t.Fatalf("%s %s: %d %s", c.route, c.effort, r.Status, r.Body)
		}
		g.recs.wait(t, i+1)
		reqs := fs["openai"].Requests()
		if len(reqs) != i+1 {
			t.Fatalf("%s %s: %d upstream calls in all, want %d", c.route, c.effort, len(reqs), i+1)
		}
		if e := chatBody(t, reqs[i])["reasoning_effort"]; e != c.want {
			t.Errorf("%s %s: sent %v, want %s", c.route, c.effort, e, c.want)
		}
	}
}
