package e2e

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A provider given responses: true whose server lacks {base_url}/responses
// (vLLM before its Responses support, a llama-server, a relay that serves
// chat only) answers that path with a bare 404. Read as a gone model
// (unavailable), the wrong claim cooled the endpoint for
// unavailable_cooldown, taking it from the chat requests it serves, and
// stopped the ordered route's walk: the client got a 404 for a model that
// exists. As on the Completions door (review 65f), a 404 with no code or
// words on a path the operator claimed is unknown: nothing cools, the walk
// moves on, and the record says what to check.
func TestReview65WrongResponsesOptInDoesNotCoolTheChatEndpoint(t *testing.T) {
	for _, body := range []string{"404 page not found\n", `{"detail":"Not Found"}`} {
		t.Run(body, func(t *testing.T) {
			lacks := func(_ int, r upstreamtest.Request) upstreamtest.Step {
				if strings.HasSuffix(r.Path, "/responses") {
					return upstreamtest.Step{Status: 404, Body: body, Header: map[string]string{"Content-Type": "text/plain"}}
				}
				return ok("gpt-5-mini", "chat still served")
			}
			fs := fakes(t, map[string]upstreamtest.Script{"openai": lacks, "anthropic": script(claudeAnswerWith(`{"input_tokens":5,"output_tokens":2}`))})
			g := start(t, responsesNativeCfg, fs)
			r := g.raw(t, "POST", "/v1/responses", `{"model":"agent","input":"hi"}`)
			r.wantStatus(t, 200)
			d := g.recs.wait(t, 1)
			a := d.Attempts[0]
			if a.Status != 404 || a.Class != "unknown" || a.Counted || !strings.Contains(a.Evidence, "responses: true") {
				t.Errorf("the wrong opt-in's attempt: %+v; steps %v", a, steps(d))
			}
			for _, e := range g.health(t).Endpoints {
				if e.Provider == "openai" && e.State != "healthy" {
					t.Errorf("the endpoint is %s after a 404 on a path it never had", e.State)
				}
			}
			c := g.post(t, "agent", "")
			c.wantStatus(t, 200)
			if !strings.Contains(string(c.Body), "chat still served") {
				t.Errorf("the chat request after it went elsewhere: %s, steps %v", c.Body, steps(g.recs.wait(t, 2)))
			}
		})
	}
}
