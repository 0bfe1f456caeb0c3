package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Detour's translations join a request's system messages, or a message's
// text parts, at line breaks. An upstream that quotes the joined text back
// then holds a phrase the client sent in two pieces; it is still the
// client's text, and no evidence (docs/behaviour.md, "Echo rule"): the
// client cannot cool the account or page by splitting "credit balance is
// too low" over two strings.

// echoSystem answers 400 quoting the system prompt it got, as an Anthropic
// endpoint that rejects one would; echoFirst quotes the first message's
// content, as an OpenAI one.
func echoSystem(_ int, r upstreamtest.Request) upstreamtest.Step {
	var req struct {
		System json.RawMessage `json:"system"`
	}
	_ = json.Unmarshal(r.Body, &req)
	var sys string
	if json.Unmarshal(req.System, &sys) != nil {
		var blocks []struct{ Text string }
		_ = json.Unmarshal(req.System, &blocks)
		for _, b := range blocks {
			sys += b.Text
		}
	}
	m, _ := json.Marshal("Invalid system prompt: " + sys)
	return upstreamtest.Step{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":` + string(m) + `}}`}
}

func echoFirst(_ int, r upstreamtest.Request) upstreamtest.Step {
	var req struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(r.Body, &req)
	var text string
	if len(req.Messages) > 0 {
		_ = json.Unmarshal(req.Messages[0].Content, &text)
	}
	m, _ := json.Marshal("Invalid content: " + text)
	return upstreamtest.Step{Status: 400, Body: `{"error":{"message":` + string(m) + `,"type":"invalid_request_error","param":null,"code":null}}`}
}

func TestJoinedClientTextIsNoEvidence(t *testing.T) {
	g := startEchoPair(t, echoSystem, echoFirst)
	for i, c := range []struct {
		name, path, body, provider string
	}{
		{"two system messages to Anthropic", "/v1/chat/completions",
			`{"model":"ra","messages":[{"role":"system","content":"Your credit balance"},{"role":"system","content":"is too low to access the Anthropic API."},{"role":"user","content":"hi"}]}`, "anth"},
		{"system text parts to Anthropic", "/v1/chat/completions",
			`{"model":"ra","messages":[{"role":"system","content":[{"type":"text","text":"Your credit balance"},{"type":"text","text":"is too low to access the Anthropic API."}]},{"role":"user","content":"hi"}]}`, "anth"},
		{"Messages system blocks to OpenAI", "/v1/messages",
			`{"model":"ro","max_tokens":10,"system":[{"type":"text","text":"Incorrect API key"},{"type":"text","text":"provided: xyz"}],"messages":[{"role":"user","content":"hi"}]}`, "oai"},
		{"Responses text parts to OpenAI", "/v1/responses",
			`{"model":"ro","input":[{"role":"developer","content":[{"type":"input_text","text":"No endpoints"},{"type":"input_text","text":"found for gpt-4o"}]},{"role":"user","content":"hi"}]}`, "oai"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g.raw(t, http.MethodPost, c.path, c.body)
			d := g.recs.wait(t, i+1)
			a := d.Attempts[0]
			if a.Provider != c.provider || a.Class != "unknown" || !strings.HasSuffix(a.Evidence, "+echo") {
				t.Errorf("the joined client text decided the attempt: %+v", a)
			}
			for _, tr := range d.Transitions {
				t.Errorf("the echo changed health: %+v", tr)
			}
			for _, acc := range g.health(t).Accounts {
				if acc.State != "healthy" {
					t.Errorf("account %s is %s (last class %s) after an echo", acc.Name, acc.State, acc.LastClass)
				}
			}
		})
	}
}
