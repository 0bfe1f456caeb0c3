package e2e

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Hostile 69d: a Responses request whose function tool has a description
// longer than Chat Completions' 1024 characters reaches an OpenAI-dialect
// target with one more system message (openai.FitDescriptions: the full
// descriptions, after the instructions), so every later message of the
// body the upstream read sits one index further than in the door's
// translation. The upstream's error.param names the body it read: mapped
// as if it named the translation, an honest "messages[2].content" (the
// client's input[0]) was told as input[1].content, a member the client
// never got wrong, and "messages[1]" (Detour's own note) as input[0].
func TestHostile69dFittedDescriptionsKeepTheParam(t *testing.T) {
	var mu sync.Mutex
	param, sawNote := "", false
	oai := func(_ int, r upstreamtest.Request) upstreamtest.Step {
		mu.Lock()
		defer mu.Unlock()
		sawNote = sawNote || strings.Contains(string(r.Body), "Full descriptions of the tools")
		return openAIParam400(param)
	}
	fs := probe67cFakes(t, map[string]upstreamtest.Script{"openai": oai})
	g := start(t, probe67cCfg, fs)
	c := probe67cOpenAI(g)
	long := strings.Repeat("Look a thing up. ", 80) // 1,360 characters
	body := `{"model":"r-gpt","instructions":"Be brief.",
 "tools":[{"type":"function","name":"lookup","description":"` + long + `","parameters":{"type":"object","properties":{"q":{"type":"string"}}}}],
 "input":[{"role":"user","content":"find it"},{"role":"user","content":"and this"}]}`
	cases := []struct{ upstream, want string }{
		{"messages[0].content", "instructions"},
		{"messages[1].content", ""}, // Detour's note: no member of the client's
		{"messages[2].content", "input[0].content"},
		{"messages[3].content", "input[1].content"},
		{"messages[4].content", ""},
		{"tools[0].function.description", "tools[0].description"},
	}
	for _, stream := range []bool{false, true} {
		for _, tc := range cases {
			mu.Lock()
			param = tc.upstream
			mu.Unlock()
			var err error
			if stream {
				s := c.Responses.NewStreaming(context.Background(), responses.ResponseNewParams{},
					option.WithRequestBody("application/json", []byte(strings.Replace(body, `"model":"r-gpt",`, `"model":"r-gpt","stream":true,`, 1))))
				for s.Next() {
				}
				err = s.Err()
			} else {
				_, err = c.Responses.New(context.Background(), responses.ResponseNewParams{}, option.WithRequestBody("application/json", []byte(body)))
			}
			var e *openai.Error
			if !errors.As(err, &e) {
				t.Fatalf("%s (stream %v): %T %v", tc.upstream, stream, err, err)
			}
			if e.StatusCode != 400 || e.Param != tc.want {
				t.Errorf("upstream param %q (stream %v): %d param %q, want %q: %s", tc.upstream, stream, e.StatusCode, e.Param, tc.want, e.RawJSON())
			}
		}
	}
	if !sawNote {
		t.Fatal("the upstream never read the fitted descriptions' note: the test proves nothing")
	}
}
