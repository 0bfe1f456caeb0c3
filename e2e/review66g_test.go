package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 66g: LM Studio answers a path it does not serve with HTTP 200 and
// {"error":"Unexpected endpoint or method. (POST …)"} (the corpus's
// lmstudio-unexpected-endpoint-or-method-in-200.json: "Returning 200
// anyway"). Round 66 read those words, at a claimed passthrough path, as
// the claim's fault — but only in a non-2xx answer: the 200 LM Studio
// really sends still read as a gone model, cooled the endpoint for a day,
// and the route's chat requests went elsewhere.
func TestReview66gLMStudio200AtAClaimedPathDoesNotCool(t *testing.T) {
	body := `{"error":"Unexpected endpoint or method. (POST /v1/completions)"}`
	lacks := func(_ int, r upstreamtest.Request) upstreamtest.Step {
		if strings.HasSuffix(r.Path, "/completions") && !strings.HasSuffix(r.Path, "/chat/completions") {
			return upstreamtest.Step{Status: 200, Body: body, Header: map[string]string{"Content-Type": "application/json; charset=utf-8"}}
		}
		return ok("llama-3", "local chat")
	}
	g, fs, c := r65fGateway(t, map[string]upstreamtest.Script{"lacks": lacks, "vllm": script(upstreamtest.Step{Body: completionJSON("qwen-coder", "from coder")})})
	res, err := c.Completions.New(context.Background(), openai.CompletionNewParams{Model: "local-first",
		Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("def f(")}})
	if err != nil || res.Choices[0].Text != "from coder" {
		t.Fatalf("%+v, %v; %+v", res, err, g.recs.wait(t, 1).Attempts)
	}
	d := g.recs.wait(t, 1)
	a := d.Attempts[0]
	if a.Counted || !strings.Contains(a.Evidence+" "+a.Message, "completions: true") {
		t.Errorf("the wrong opt-in's attempt: %+v", a)
	}
	r := g.post(t, "local-first", "", "Authorization", "Bearer key-all")
	r.wantStatus(t, 200)
	if n := len(fs["lacks"].Requests()); n != 2 || !strings.Contains(string(r.Body), "local chat") {
		t.Fatalf("the chat request after it went elsewhere (lacks served %d requests): %s, steps %v", n, r.Body, steps(g.recs.wait(t, 2)))
	}
}
