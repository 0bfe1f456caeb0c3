package e2e

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Round 52, helper probe52a: the embeddings door and the OpenAI Agents SDK
// (@openai/agents 0.20.0) through the Responses and chat doors to Claude
// and Gemini. /work/probe52a/REPORT.md lists what was run and passed.

const p52aAgentsTool = `
import OpenAI from 'openai';
import { z } from 'zod';
import { Agent, Runner, OpenAIProvider, setTracingDisabled, tool } from '@openai/agents';
setTracingDisabled(true);
const client = new OpenAI({ baseURL: process.env.P52A_BASE + '/v1', apiKey: 'k', maxRetries: 0, timeout: 20000 });
const runner = new Runner({ modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: process.env.P52A_CHAT !== '1' }), tracingDisabled: true });
const getWeather = tool({ name: 'get_weather', description: 'weather', parameters: z.object({ city: z.string() }), execute: async ({ city }) => 'sunny in ' + city });
const agent = new Agent({ name: 'Assistant', instructions: 'Be brief.', model: process.env.P52A_MODEL, tools: [getWeather] });
try {
  let r;
  if (process.env.P52A_STREAM === '1') {
    r = await runner.run(agent, 'weather in Paris?', { stream: true });
    for await (const ev of r) {}
    await r.completed;
    if (r.error) throw r.error;
  } else {
    r = await runner.run(agent, 'weather in Paris?');
  }
  console.log(JSON.stringify({ final: r.finalOutput, usage: { in: r.state.usage.inputTokens, out: r.state.usage.outputTokens, requests: r.state.usage.requests } }));
} catch (e) {
  console.log(JSON.stringify({ error: e?.constructor?.name, message: String(e?.message || e).slice(0, 300), status: e?.status }));
}
`

// The Agents SDK's tool loop on a route [Claude, Gemini] through both doors,
// whole and streamed: Claude asks for get_weather (toolu_ id), the SDK runs
// it, and the second call meets Claude overloaded (529, Anthropic's
// documented overloaded_error body), so Gemini gets the conversation with
// Claude's call and the tool's result and answers. Passes now; it guards
// the mid-loop cross-vendor failover the SDK cannot retry itself.
func TestAgentsToolLoopFailsOverClaudeToGemini(t *testing.T) {
	modules := os.Getenv("DETOUR_CLIENTS_DIR")
	if modules == "" {
		t.Skip("DETOUR_CLIENTS_DIR not set")
	}
	cfg := c50cCfg + "  - {name: cg, targets: [claude, gem]}\n"
	for _, chat := range []string{"0", "1"} {
		for _, stream := range []string{"0", "1"} {
			t.Run("chat="+chat+"/stream="+stream, func(t *testing.T) {
				fs := c50cFakes(t)
				call := `{"id":"msg_t","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Checking."},{"type":"tool_use","id":"toolu_01A","name":"get_weather","input":{"city":"Paris"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":40,"output_tokens":12}}`
				fs["anthropic"].SetScript(func(n int, r upstreamtest.Request) upstreamtest.Step {
					if n == 1 {
						if stream == "1" {
							return upstreamtest.Step{Events: []string{
								`event: message_start` + "\n" + `data: {"type":"message_start","message":{"id":"msg_t","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":40,"output_tokens":1}}}`,
								`event: content_block_start` + "\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_01A","name":"get_weather","input":{}}}`,
								`event: content_block_delta` + "\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"city\": \"Paris\"}"}}`,
								`event: content_block_stop` + "\n" + `data: {"type":"content_block_stop","index":0}`,
								`event: message_delta` + "\n" + `data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":12}}`,
								`event: message_stop` + "\n" + `data: {"type":"message_stop"}`,
							}}
						}
						return upstreamtest.Step{Body: call}
					}
					return upstreamtest.Step{Status: 529, Body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}
				})
				fs["gemini"].SetScript(func(n int, r upstreamtest.Request) upstreamtest.Step {
					if stream == "1" {
						return upstreamtest.Step{Events: []string{"data: " + geminiText("Sunny in Paris.")}}
					}
					return upstreamtest.Step{Body: geminiText("Sunny in Paris.")}
				})
				g := start(t, cfg, fs)
				cmd := exec.Command("node", "--input-type=module", "-e", p52aAgentsTool)
				cmd.Dir = modules
				cmd.Env = append(os.Environ(), "P52A_BASE="+g.URL, "P52A_MODEL=cg", "P52A_STREAM="+stream, "P52A_CHAT="+chat, "OPENAI_AGENTS_DISABLE_TRACING=1")
				out, err := cmd.CombinedOutput()
				t.Logf("node: %v %s", err, out)
				if !strings.Contains(string(out), `"final":"Sunny in Paris."`) {
					t.Errorf("the run did not end with Gemini's answer: %s", out)
				}
				reqs := fs["gemini"].Requests()
				if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), `"functionCall":{"name":"get_weather","args":{"city":"Paris"}}`) ||
					!strings.Contains(string(reqs[0].Body), `"functionResponse":{"name":"get_weather"`) {
					t.Errorf("Gemini did not get the call and its result: %d requests", len(reqs))
				}
			})
		}
	}
}
