package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider/gemini"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Hostile 54c: the Gemini thought signatures carried through the Messages
// and Responses doors (round 54), from a hostile client's and a hostile
// upstream's side.

// h54cResponsesStep1 runs step 1 of a Responses tool loop at route and
// returns the output items (the sealed reasoning item, then the call).
func h54cResponsesStep1(t *testing.T, g *gateway, route string) []json.RawMessage {
	t.Helper()
	r := g.raw(t, "POST", "/v1/responses", `{"model":"`+route+`","store":false,"include":["reasoning.encrypted_content"],"tools":[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}],"input":[{"role":"user","content":"What is the weather in Paris, then in London?"}]}`)
	if r.Status != 200 {
		t.Fatalf("step 1: %d %s", r.Status, r.Body)
	}
	var res struct {
		Output []json.RawMessage `json:"output"`
	}
	if err := json.Unmarshal(r.Body, &res); err != nil {
		t.Fatalf("step 1: %v %s", err, r.Body)
	}
	if !strings.Contains(string(r.Body), `"encrypted_content":"detour1.`) {
		t.Fatalf("step 1 carries no sealed signature: %s", r.Body)
	}
	return res.Output
}

// h54cVLLMError is vLLM's refusal of a reasoning input item with
// encrypted_content: construct_chat_message_with_tool_call raises
// ValueError("Encrypted content is not supported.") (vllm
// entrypoints/responses_utils.py, seen in qandrew/vllm@cfdddb12), which its
// server answers as a 400 BadRequestError.
const h54cVLLMError = `{"error":{"message":"Encrypted content is not supported.","type":"BadRequestError","param":null,"code":400}}`

// docs/doors.md, "Gemini thought signatures": "A target of dialect openai
// never gets a sealed signature". But the Responses door's native
// passthrough (responses: true) strips the sealed reasoning item only for
// OpenAI's own hosts or an OpenAI reasoning model's name
// (internal/provider/openai/native.go: openAIHost(host) ||
// reasoningModel(ep.Model)). A vLLM Responses server of a Qwen model, the
// fallback of a Gemini 3 route, is handed Gemini's sealed signature
// ("detour1.<seal>.<Gemini's signature bytes>") as a reasoning item's
// encrypted_content, which vLLM refuses: the fallback that was to serve
// the loop's next step when Gemini is overloaded fails it instead.
func TestHostile54cSealedReasoningReachesANonOpenAIResponsesServer(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"a": p54Gemini("a", false, true), // 503 overloaded from its second request on
		"vllm": func(n int, r upstreamtest.Request) upstreamtest.Step {
			if strings.Contains(string(r.Body), `"encrypted_content":"`) && !strings.Contains(string(r.Body), `"encrypted_content":""`) {
				return upstreamtest.Step{Status: 400, Body: h54cVLLMError}
			}
			return upstreamtest.Step{Body: nativeAnswer}
		},
	})
	g := start(t, `
providers:
  - {name: gemini-a, dialect: gemini, base_url: "{a}", api_key: `+secret+`}
  - {name: vllm, dialect: openai, base_url: "{vllm}/v1", api_key: `+secret+`, responses: true}
targets:
  - {name: g3, model: gemini-3-pro-preview, providers: [gemini-a]}
  - {name: qwen, model: Qwen/Qwen3-32B, providers: [vllm]}
routes:
  - {name: gem3-then-qwen, targets: [g3, qwen]}
`, fs)
	out := h54cResponsesStep1(t, g, "gem3-then-qwen")
	input := []json.RawMessage{json.RawMessage(`{"role":"user","content":"What is the weather in Paris, then in London?"}`)}
	for _, o := range out {
		input = append(input, o)
		var head struct {
			Type   string `json:"type"`
			CallID string `json:"call_id"`
		}
		_ = json.Unmarshal(o, &head)
		if head.Type == "function_call" {
			input = append(input, json.RawMessage(`{"type":"function_call_output","call_id":"`+head.CallID+`","output":"sunny"}`))
		}
	}
	in, _ := json.Marshal(input)
	r := g.raw(t, "POST", "/v1/responses", `{"model":"gem3-then-qwen","store":false,"tools":[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}],"input":`+string(in)+`}`)
	for _, q := range fs["vllm"].Requests() {
		if strings.Contains(string(q.Body), "detour1.") {
			t.Errorf("the vLLM Responses server (dialect openai) was handed a sealed Gemini signature: %.600s", q.Body)
			break
		}
	}
	if r.Status != 200 {
		t.Errorf("step 2, Gemini overloaded, the vLLM fallback refusing the sealed item: %d %s", r.Status, r.Body)
	}
	d := g.recs.wait(t, 2)
	for _, a := range d.Attempts {
		t.Logf("attempt %s/%s status %d class %s evidence %q action %s counted %v", a.Target, a.Provider, a.Status, a.Class, a.Evidence, a.Action, a.Counted)
	}
}

// The Responses door keeps the last sealed reasoning item it read in
// `signed` (internal/door/responses/input.go) until a function_call takes
// it, across messages and turns: a sealed item whose call the client did
// not hand back (an agent that prunes old tool calls; one dropped by a
// history compaction) is put on the first function_call of any later
// turn, where the Messages door keeps it within its assistant turn. Gemini
// then reads its own signature on a call it did not write it for.
func TestHostile54cSealedReasoningCarriesIntoAnotherTurnsCall(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"a": p54Gemini("a", false, false), "b": p54Gemini("b", false, false)})
	g := start(t, `
providers:
  - {name: gemini-a, dialect: gemini, base_url: "{a}", api_key: `+secret+`}
targets:
  - {name: g3, model: gemini-3-pro-preview, providers: [gemini-a]}
routes:
  - {name: gem3, targets: [g3]}
`, fs)
	out := h54cResponsesStep1(t, g, "gem3")
	var sealed json.RawMessage
	for _, o := range out {
		if strings.Contains(string(o), `"type":"reasoning"`) && strings.Contains(string(o), "detour1.") {
			sealed = o
		}
	}
	// Turn 1's sealed item stays, its call was pruned; turn 1 ended in
	// text; turn 2's call came from elsewhere (no signature of its own).
	input := `[{"role":"user","content":"What is the weather in Paris?"},` + string(sealed) +
		`,{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Paris is sunny."}]}` +
		`,{"role":"user","content":"And London?"}` +
		`,{"type":"function_call","call_id":"call_other","name":"get_weather","arguments":"{\"city\":\"London\"}"}` +
		`,{"type":"function_call_output","call_id":"call_other","output":"rainy"}]`
	n := len(fs["a"].Requests())
	g.raw(t, "POST", "/v1/responses", `{"model":"gem3","store":false,"tools":[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}],"input":`+input+`}`)
	reqs := fs["a"].Requests()
	if len(reqs) <= n {
		t.Fatal("Gemini got no request for turn 2")
	}
	got := p53dSigsBack(p53dContents(reqs[n]))
	if len(got) == 0 || got[0] != gemini.SkipSignature {
		t.Errorf("turn 2's call (which no Gemini step wrote) reached Gemini with signature %q; want the placeholder (turn 1's sealed signature belongs to no call of turn 2)", got)
	}
}

// A hostile (or broken) Gemini that answers "Corrupted thought signature."
// to every request, the placeholder resend included: the resend is made
// once per endpoint, the walk then moves on or ends; never a loop. The
// record is logged for the report.
func TestHostile54cCorruptedForEverResendsOnce(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "whole", true: "streamed"}[stream], func(t *testing.T) {
			refuse := func(n int, r upstreamtest.Request) upstreamtest.Step {
				if n == 1 {
					return p54Gemini("a", false, false)(n, r)
				}
				return upstreamtest.Step{Status: 400, Body: p54Corrupted}
			}
			fs := fakes(t, map[string]upstreamtest.Script{"a": refuse, "b": func(n int, r upstreamtest.Request) upstreamtest.Step {
				return upstreamtest.Step{Status: 400, Body: p54Corrupted}
			}})
			g := start(t, `
providers:
  - {name: gemini-a, dialect: gemini, base_url: "{a}", api_key: `+secret+`}
  - {name: gemini-b, dialect: gemini, base_url: "{b}", api_key: `+secret+`}
targets:
  - {name: g3, model: gemini-3-pro-preview, providers: [gemini-a, gemini-b]}
routes:
  - {name: gem3, targets: [g3]}
`, fs)
			tc, callID := p54FirstCall(t, g, "gem3")
			body := p54HandBack("gem3", stream, tc, callID)
			r2 := g.raw(t, "POST", "/v1/chat/completions", body)
			d := g.recs.wait(t, 2)
			t.Logf("status %d body %.300s; a got %d, b got %d; record steps %v", r2.Status, r2.Body, len(fs["a"].Requests()), len(fs["b"].Requests()), steps(d))
			for _, a := range d.Attempts {
				t.Logf("attempt %s/%s status %d class %s evidence %q action %s billable %v", a.Target, a.Provider, a.Status, a.Class, a.Evidence, a.Action, a.Billable)
			}
			if n := len(fs["a"].Requests()); n > 3 {
				t.Errorf("gemini-a got %d requests for 2 steps; want at most 3 (step 1, step 2, its one placeholder resend)", n)
			}
		})
	}
}

// The placeholder resend through the Messages and Responses doors: Gemini
// refuses a signature it wrote itself (review 54's alias case); the step
// must be served with the placeholder, as through the Chat door.
func TestHostile54cOwnSignatureRefusedThroughTheOtherDoors(t *testing.T) {
	const call = `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"Q2lnLTE="}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":5,"totalTokenCount":15},"modelVersion":"gemini-3-flash-preview"}`
	const text = `{"candidates":[{"content":{"role":"model","parts":[{"text":"Paris is fine. London is rainy."}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":20,"candidatesTokenCount":4,"totalTokenCount":24},"modelVersion":"gemini-3-flash-preview"}`
	script := func(n int, r upstreamtest.Request) upstreamtest.Step {
		if n == 1 {
			return upstreamtest.Step{Body: call}
		}
		for _, c := range p53dContents(r) {
			for _, p := range c.Parts {
				if p.ThoughtSignature != "" && p.ThoughtSignature != gemini.SkipSignature {
					return upstreamtest.Step{Status: 400, Body: p54Corrupted}
				}
			}
		}
		return upstreamtest.Step{Body: text}
	}
	t.Run("messages", func(t *testing.T) {
		fs := fakes(t, map[string]upstreamtest.Script{"a": script})
		g := start(t, p54rCfg, fs)
		got, err := p54AnthropicLoop(g.URL, "gem3", false)
		if err != nil || !strings.Contains(got, "London is rainy") {
			t.Errorf("loop: %v %q (upstream saw %d requests)", err, got, len(fs["a"].Requests()))
		}
	})
	t.Run("responses", func(t *testing.T) {
		fs := fakes(t, map[string]upstreamtest.Script{"a": script})
		g := start(t, p54rCfg, fs)
		out := h54cResponsesStep1(t, g, "gem3")
		input := []json.RawMessage{json.RawMessage(`{"role":"user","content":"What is the weather in Paris, then in London?"}`)}
		for _, o := range out {
			input = append(input, o)
			var head struct {
				Type   string `json:"type"`
				CallID string `json:"call_id"`
			}
			_ = json.Unmarshal(o, &head)
			if head.Type == "function_call" {
				input = append(input, json.RawMessage(`{"type":"function_call_output","call_id":"`+head.CallID+`","output":"sunny"}`))
			}
		}
		in, _ := json.Marshal(input)
		r := g.raw(t, "POST", "/v1/responses", `{"model":"gem3","store":false,"stream":true,"tools":[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}],"input":`+string(in)+`}`)
		if r.Status != 200 || !strings.Contains(string(r.Body), "London is rainy") {
			t.Errorf("step 2: %d %.400s (upstream saw %d requests)", r.Status, r.Body, len(fs["a"].Requests()))
		}
	})
}

// The Messages door's carry stays within one assistant turn: a sealed
// redacted_thinking of turn 1 (its tool_use pruned) does not reach turn
// 2's tool_use.
func TestHostile54cMessagesCarryStaysInItsTurn(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"a": p54Gemini("a", false, false), "b": p54Gemini("b", false, false),
		"compat": upstreamtest.Steps(upstreamtest.Step{Status: 500})})
	g := start(t, p54Cfg, fs)
	tools := `"tools":[{"name":"get_weather","input_schema":{"type":"object","properties":{"city":{"type":"string"}}}}]`
	r1 := g.raw(t, "POST", "/v1/messages", `{"model":"gem3","max_tokens":256,`+tools+`,"messages":[{"role":"user","content":"weather in Paris?"}]}`, "anthropic-version", "2023-06-01")
	var m struct {
		Content []json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(r1.Body, &m); err != nil {
		t.Fatalf("%v %s", err, r1.Body)
	}
	var sealed string
	for _, b := range m.Content {
		if strings.Contains(string(b), "redacted_thinking") {
			sealed = string(b)
		}
	}
	if sealed == "" {
		t.Fatalf("no sealed block: %s", r1.Body)
	}
	body := `{"model":"gem3","max_tokens":256,` + tools + `,"messages":[{"role":"user","content":"weather in Paris?"},{"role":"assistant","content":[` + sealed + `,{"type":"text","text":"Paris is sunny."}]},{"role":"user","content":"And London?"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_other","name":"get_weather","input":{"city":"London"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_other","content":"rainy"}]}]}`
	n := len(fs["a"].Requests())
	g.raw(t, "POST", "/v1/messages", body, "anthropic-version", "2023-06-01")
	reqs := fs["a"].Requests()
	if len(reqs) <= n {
		t.Fatal("no request for turn 2")
	}
	if got := p53dSigsBack(p53dContents(reqs[n])); len(got) == 0 || got[0] != gemini.SkipSignature {
		t.Errorf("turn 2's tool_use reached Gemini with %q", got)
	}
}

// The resend is budget-checked: with X-Detour-Max-Attempts: 1 it is not
// made (observation for the report: the refusal then reaches the client).
func TestHostile54cResendHonoursMaxAttempts(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"a": func(n int, r upstreamtest.Request) upstreamtest.Step {
		if n == 1 {
			return p54Gemini("a", false, false)(n, r)
		}
		return upstreamtest.Step{Status: 400, Body: p54Corrupted}
	}})
	g := start(t, p54rCfg, fs)
	tc, callID := p54FirstCall(t, g, "gem3")
	body := p54HandBack("gem3", false, tc, callID)
	r2 := g.raw(t, "POST", "/v1/chat/completions", body, "X-Detour-Max-Attempts", "1")
	d := g.recs.wait(t, 2)
	t.Logf("status %d %.200s; upstream got %d; steps %v", r2.Status, r2.Body, len(fs["a"].Requests()), steps(d))
	if n := len(fs["a"].Requests()); n > 2 {
		t.Errorf("max_attempts 1 let %d requests through", n)
	}
}
