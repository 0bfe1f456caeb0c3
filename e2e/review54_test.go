package e2e

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider/gemini"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// review54: Gemini sometimes refuses a thought signature it wrote itself
// ("Corrupted thought signature.", 400 INVALID_ARGUMENT: at random in
// charmbracelet/crush#1698 and google-gemini/gemini-cli#13467; a model
// alias such as gemini-flash-latest moved to another model keeps the same
// Detour tag, and signatures are bound to the model). Before round 54 the
// gateway always sent Google's placeholder, which Gemini serves; now it
// hands the real signature back, and when Gemini refuses it the 400 is a
// bad_request that ends the walk: the client's tool loop dies, where
// sending the placeholder (what the gateway does for every signature it
// cannot vouch for) would have served it. Proxies that hand signatures
// back retry without them on this refusal (lbjlaq/Antigravity-Manager#3342:
// "retry was skipped (isRetryable:false) and request failed with 400").
const p54rCfg = `
providers:
  - {name: gemini-a, dialect: gemini, base_url: "{a}", api_key: ` + secret + `}
targets:
  - {name: g3, model: gemini-flash-latest, providers: [gemini-a]}
routes:
  - {name: gem3, targets: [g3]}
`

func TestProbeReview54OwnSignatureRefusedEndsTheLoop(t *testing.T) {
	// Gemini's generateContent answer shape with a signed call
	// (https://ai.google.dev/gemini-api/docs/thought-signatures).
	const call = `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"Q2lnLTE="}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":5,"totalTokenCount":15},"modelVersion":"gemini-3-flash-preview"}`
	const text = `{"candidates":[{"content":{"role":"model","parts":[{"text":"Paris is fine."}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":20,"candidatesTokenCount":4,"totalTokenCount":24},"modelVersion":"gemini-3-flash-preview"}`
	fs := fakes(t, map[string]upstreamtest.Script{"a": func(n int, r upstreamtest.Request) upstreamtest.Step {
		if n == 1 {
			return upstreamtest.Step{Body: call}
		}
		for _, c := range p53dContents(r) {
			for _, p := range c.Parts {
				if p.ThoughtSignature != "" && p.ThoughtSignature != gemini.SkipSignature {
					// the alias now names another model: its signature is refused
					return upstreamtest.Step{Status: 400, Body: `{"error":{"code":400,"message":"Corrupted thought signature.","status":"INVALID_ARGUMENT"}}`}
				}
			}
		}
		return upstreamtest.Step{Body: text}
	}})
	g := start(t, p54rCfg, fs)
	tc, callID := p54FirstCall(t, g, "gem3")
	// the client hands the call back as it came (the JS SDK's messages.push(message))
	body := p54HandBack("gem3", false, tc, callID)
	r2 := g.raw(t, "POST", "/v1/chat/completions", body)
	if r2.Status != 200 || !strings.Contains(string(r2.Body), "Paris is fine.") {
		t.Errorf("step 2, handing back the signature the same endpoint wrote, which it now refuses: %d %s\n(before round 54 the placeholder went and the step was served; upstream saw %d requests)", r2.Status, r2.Body, len(fs["a"].Requests()))
	}
}
