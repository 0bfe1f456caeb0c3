package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Probe 66c (probe66c_test.go, DETOUR_PROBE66C=1): 158 corpus answers,
// each served through every door that reaches its dialect, whole, as a
// stream failing before its first byte and as one failing after its
// commit point. Whole and before the first byte every door agreed on the
// class, the walk, what cooled, the page, the status and what was billed
// (but by design: a 404 in unread words at a passthrough's claimed path).
// After the commit point the Responses door told the failure apart from
// the other OpenAI doors: its error event's nested error was typed by the
// code ("auth", "bad_request") where the same failure before the commit
// is typed "authentication_error", "invalid_request_error"; and a
// Responses passthrough (responses: true) ended with a flat error event
// alone, which the openai SDKs read to its end as a finished answer.

// r66cOpenAIDoors are the doors that answer in OpenAI's envelope.
var r66cOpenAIDoors = map[string]bool{"chat": true, "responses": true, "responses*": true, "embeddings": true, "completions": true}

// r66cMessagesType is the Messages door's error type of each class
// (docs/doors.md, "Errors"), the statuses of these cases aside.
var r66cMessagesType = map[string]string{
	"auth": "authentication_error", "quota": "billing_error", "rate_limited": "rate_limit_error",
	"unavailable": "not_found_error", "bad_request": "invalid_request_error", "context_length": "invalid_request_error",
	"forbidden": "permission_error", "refusal": "invalid_request_error", "overflow": "request_too_large",
}

func TestReview66cOneAnswerEveryDoor(t *testing.T) {
	for _, tc := range []struct {
		answer, mode string
		class        string
		status       int
		moved        bool // the second target answered
		cools        string
		paged        bool
	}{
		// Held: one per dialect, whole and before the first byte.
		{"openai-insufficient-quota-429", "whole", "quota", 200, true, "ep cooling 1h0m0s | acct cooling 1h0m0s", true},
		{"anthropic-workspace-usage-limits", "pre", "quota", 200, true, "ep cooling 1h0m0s | acct cooling 1h0m0s", true},
		{"gemini-api-key-expired-400", "whole", "auth", 400, false, "ep cooling 1h0m0s | acct cooling 1h0m0s", true},
		{"groq-model-decommissioned", "pre", "unavailable", 400, false, "ep cooling 24h0m0s | acct healthy", false},
		// Broke: after the commit point, the Responses doors' error
		// events (the type, the nesting).
		{"openrouter-user-not-found-401", "post", "auth", 200, false, "ep cooling 1h0m0s | acct cooling 1h0m0s", true},
		{"openai-context-length-exceeded-128k", "post", "context_length", 200, false, "ep healthy | acct healthy", false},
		{"gemini-api-key-expired-400", "post", "auth", 200, false, "ep cooling 1h0m0s | acct cooling 1h0m0s", true},
		{"anthropic-organization-disabled-400", "post", "auth", 200, false, "ep cooling 1h0m0s | acct cooling 1h0m0s", true},
	} {
		t.Run(tc.answer+"/"+tc.mode, func(t *testing.T) {
			c := r66cCase(t, tc.answer)
			var typ, code, doors string
			for _, d := range p66Doors {
				if !contains66(d.dialects, c.Dialect) || (tc.mode != "whole" && !d.streams) {
					continue
				}
				step, ok := p66Upstream(c, tc.mode, d.name)
				if !ok {
					t.Fatalf("%s: no %s answer", d.name, tc.mode)
				}
				r := p66Run(t, c, d, tc.mode, step)
				doors += " " + d.name
				if r.class != tc.class || r.status != tc.status || r.bTried != tc.moved || r.ep+" | "+r.acct != tc.cools || (r.pages != "") != tc.paged {
					t.Errorf("%s: class %s, status %d, second target %v, cools %q, pages %q; want %s, %d, %v, %q, paged %v",
						d.name, r.class, r.status, r.bTried, r.ep+" | "+r.acct, r.pages, tc.class, tc.status, tc.moved, tc.cools, tc.paged)
				}
				_, rt, _ := strings.Cut(r.envType, "/")
				if tc.status == 200 && tc.mode != "post" {
					continue // served by the second target
				}
				if d.name == "messages" {
					if rt != r66cMessagesType[tc.class] {
						t.Errorf("messages: error type %q, want %q", rt, r66cMessagesType[tc.class])
					}
					continue
				}
				// Every OpenAI door tells the same type and code, before
				// the commit point and after it.
				if typ == "" {
					typ, code = rt, r.envCode
				} else if rt != typ || r.envCode != code {
					t.Errorf("%s: error type %q code %q; the other OpenAI doors said %q %q", d.name, rt, r.envCode, typ, code)
				}
			}
			t.Logf("doors:%s", doors)
		})
	}
}

// r66cCase reads a corpus answer whole.
func r66cCase(t *testing.T, name string) p66Case {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "classify", "testdata", "corpus", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	c := p66Case{name: name}
	if err := json.Unmarshal(b, &c.corpusCase); err != nil {
		t.Fatal(err)
	}
	return c
}

// A Responses passthrough that fails after its commit point ends with an
// error event the openai SDKs raise on: the nested error object, as the
// translated stream's (TestClients56bResponsesCutStreamErrorIsNested).
func TestReview66cResponsesPassthroughCutStreamErrorIsNested(t *testing.T) {
	ev := corpus(t, "openai-responses-stream-error-event-insufficient-quota-200").Events
	fs := fakes(t, map[string]upstreamtest.Script{"openai": script(upstreamtest.Step{Events: append([]string{p66PassContent("responses*")}, ev...)})})
	g := start(t, `
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: `+secret+`, responses: true}
targets:
  - {name: gpt, model: gpt-4.1, providers: [openai]}
routes:
  - {name: r, targets: [gpt]}
`, fs)
	st := sdk(g).Responses.NewStreaming(context.Background(), responses.ResponseNewParams{Model: "r",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("hi")}})
	var types []string
	for st.Next() {
		types = append(types, st.Current().Type)
	}
	if st.Err() == nil {
		t.Errorf("openai-go read the cut passthrough stream to its end without an error; events: %v", types)
	} else if !strings.Contains(st.Err().Error(), "exceeded your current quota") {
		t.Errorf("error %v, want the upstream's words", st.Err())
	}
	if d := g.recs.wait(t, 1); d.Class != "quota" || d.Outcome != "error" {
		t.Errorf("record: class %q outcome %q", d.Class, d.Outcome)
	}
}
