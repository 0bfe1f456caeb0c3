package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A tool call's arguments are JSON inside a JSON string, and Detour sends
// them on to Gemini (functionCall.args) and Anthropic (tool_use.input) as
// JSON: the upstream reads the client's text there decoded twice. An
// upstream that quotes every string it got (as Gemini's "Invalid value at
// …" does) must still not let the client steer the class, nor tell it
// which of its guesses are part of a key (docs/security.md).

// echoStrings answers 400 in Google's envelope quoting every string of the
// request it decoded.
func echoStrings(_ int, r upstreamtest.Request) upstreamtest.Step {
	var v any
	_ = json.Unmarshal(r.Body, &v)
	var texts []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			texts = append(texts, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	m, _ := json.Marshal("Invalid value at 'contents': " + strings.Join(texts, " | "))
	return upstreamtest.Step{Status: 400, Body: `{"error":{"code":400,"message":` + string(m) + `,"status":"INVALID_ARGUMENT"}}`}
}

// twice writes s as a JSON string value inside a tool call's arguments,
// every letter escaped: once for the arguments' JSON, once more for the
// request's.
func twice(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			fmt.Fprintf(&b, `\\u%04x`, c)
		} else {
			b.WriteByte(c)
		}
	}
	return `{"model":"rg","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":\"zz ` + b.String() + ` zz\"}"}}]},{"role":"tool","tool_call_id":"c1","content":"ok"}]}`
}

func TestTwiceEscapedClientTextIsNoEvidence(t *testing.T) {
	const geminiKey = "AIzaSyFAKEKEY0123456789abcdefghij"
	gateway := func(t *testing.T) *gateway {
		fs := fakes(t, map[string]upstreamtest.Script{
			"gem": echoStrings,
			"q":   script(ok("model-b", "q")),
		})
		return start(t, `
providers:
  - {name: gem, dialect: gemini, base_url: "{gem}", api_key: `+geminiKey+`}
  - {name: q, dialect: openai, base_url: "{q}", api_key: `+secret+`}
targets:
  - {name: g, model: gemini-2.5-flash, providers: [gem]}
  - {name: b, model: model-b, providers: [q]}
routes:
  - {name: rg, targets: [g, b]}
`, fs)
	}
	t.Run("class", func(t *testing.T) {
		g := gateway(t)
		// Quota wording sent this way is the client's own.
		g.raw(t, http.MethodPost, "/v1/chat/completions", twice("Your credit balance is too low to access the API"))
		d := g.recs.wait(t, 1)
		if a := d.Attempts[0]; a.Provider != "gem" || a.Class == "quota" || !strings.HasSuffix(a.Evidence, "+echo") {
			t.Errorf("the twice-escaped client text decided the attempt: %+v", a)
		}
		for _, tr := range d.Transitions {
			t.Errorf("the echo changed health: %+v", tr)
		}
	})
	t.Run("no oracle", func(t *testing.T) {
		g := gateway(t)
		// A right and a wrong 8-byte guess at the key come back alike.
		for i, guess := range []string{geminiKey[8:16], geminiKey[8:15] + "#"} {
			r := g.raw(t, http.MethodPost, "/v1/chat/completions", twice(guess))
			if msg := r.errMessage(t); !strings.Contains(msg, "zz "+guess+" zz") {
				t.Errorf("guess %d %q: the client's own text came back as %q", i, guess, msg)
			}
		}
	})
}
