// The OpenAI Agents SDK (npm "@openai/agents") through one base URL: an
// agent run whole and streamed, a function tool the runner executes and
// answers, structured output (outputType), over the Responses API (its
// default) and over Chat Completions (OpenAIProvider useResponses: false);
// and how a failed run surfaces.
import OpenAI from 'openai';
import { z } from 'zod';
import { Agent, Runner, OpenAIProvider, tool, setTracingDisabled } from '@openai/agents';
import { base, key, model, run, errorOf, weatherAnswer } from './lib.mjs';

// The SDK exports traces to api.openai.com unless told not to (RunNode
// also sets OPENAI_AGENTS_DISABLE_TRACING=1).
setTracingDisabled(true);

const client = new OpenAI({ baseURL: base + '/v1', apiKey: key, maxRetries: 0, timeout: 20000 });
const runners = {
  responses: new Runner({ modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: true }), tracingDisabled: true }),
  chat: new Runner({ modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: false }), tracingDisabled: true }),
};

let ran = 0;
const getWeather = tool({
  name: 'get_weather',
  description: 'Weather in a city',
  parameters: z.object({ location: z.string().describe('A city') }),
  execute: async (args) => { ran++; return weatherAnswer(args); },
});
const prompt = 'What is the weather in Paris?';
// DETOUR_STREAM_MODEL, when set, is the model of the streamed cases.
const streamModel = process.env.DETOUR_STREAM_MODEL || model;
const Answer = z.object({ city: z.string(), sunny: z.boolean() });
const agents = (m) => ({
  plain: new Agent({ name: 'Terse', instructions: 'You are terse.', model: m }),
  withTool: new Agent({ name: 'Weather', instructions: 'Use the tool.', model: m, tools: [getWeather] }),
  structured: new Agent({ name: 'Structured', instructions: 'Answer as JSON.', model: m, outputType: Answer }),
});
const whole = agents(model), streaming = agents(streamModel);

// calls lists the function calls of a run's items.
function calls(result) {
  return result.newItems
    .filter((i) => i.type === 'tool_call_item' && i.rawItem.type === 'function_call')
    .map((i) => ({ name: i.rawItem.name, arguments: JSON.parse(i.rawItem.arguments) }));
}

// streamed runs agent streamed and reads every event. A failure after the
// stream began is returned beside the text that came before it.
async function streamed(r, agent) {
  const types = new Set();
  let s, deltas = '';
  try {
    s = await r.run(agent, prompt, { stream: true });
    for await (const ev of s) {
      types.add(ev.type + (ev.type === 'raw_model_stream_event' ? ':' + ev.data.type : ''));
      if (ev.type === 'raw_model_stream_event' && ev.data.type === 'output_text_delta') deltas += ev.data.delta;
    }
    await s.completed;
    if (s.error) throw s.error;
  } catch (e) {
    if (!s) throw e;
    return { failed: { text: deltas, types: [...types], error: errorOf(e) } };
  }
  return { s, deltas, types: [...types] };
}

const cases = {};
for (const [api, r] of Object.entries(runners)) {
  Object.assign(cases, {
    async [`${api}_run`]() {
      const res = await r.run(whole.plain, prompt);
      const u = res.state.usage;
      return { text: res.finalOutput, usage: { input: u.inputTokens, output: u.outputTokens }, responses: res.rawResponses.length };
    },
    async [`${api}_stream`]() {
      const { s, deltas, types, failed } = await streamed(r, streaming.plain);
      return failed ?? { text: s.finalOutput, deltas, types };
    },
    async [`${api}_tools`]() {
      ran = 0;
      const res = await r.run(whole.withTool, prompt);
      return { text: res.finalOutput, calls: calls(res), ran, responses: res.rawResponses.length };
    },
    async [`${api}_stream_tools`]() {
      ran = 0;
      const { s, deltas, failed } = await streamed(r, streaming.withTool);
      return failed ?? { text: s.finalOutput, deltas, calls: calls(s), ran, responses: s.rawResponses.length };
    },
    async [`${api}_structured`]() {
      const res = await r.run(whole.structured, prompt);
      return { object: res.finalOutput };
    },
    async [`${api}_stream_structured`]() {
      const { s, failed } = await streamed(r, streaming.structured);
      return failed ?? { object: s.finalOutput };
    },
  });
}
// A conversation's second turn: the first run's history (its items, ids
// and all) and the new question, as a chat loop sends it.
cases.responses_two_turns = async () => {
  const r1 = await runners.responses.run(whole.plain, prompt);
  const r2 = await runners.responses.run(whole.plain, [...r1.history, { role: 'user', content: 'And tomorrow?' }]);
  return { text: r2.finalOutput, items: r2.history.length };
};
// The same with the SDK's server-side chaining (previousResponseId), which
// a stateless door cannot serve: the 400 says what to send instead.
cases.responses_previous_id = async () => {
  const r1 = await runners.responses.run(whole.plain, prompt);
  await runners.responses.run(whole.plain, 'And tomorrow?', { previousResponseId: r1.lastResponseId });
  return { unexpected: 'no error' };
};
// The model settings agents commonly set, a reasoning model's included
// encrypted reasoning with store: false among them.
cases.responses_settings = async () => {
  const agent = new Agent({ name: 'Tuned', instructions: 'You are terse.', model, tools: [getWeather],
    modelSettings: { temperature: 0.2, topP: 0.9, maxTokens: 300, parallelToolCalls: true, toolChoice: 'auto',
      truncation: 'auto', store: false, reasoning: { effort: 'low', summary: 'auto' }, text: { verbosity: 'low' } } });
  ran = 0;
  const res = await runners.responses.run(agent, prompt);
  return { text: res.finalOutput, calls: calls(res), ran };
};
cases.error_model = async () => {
  await runners.responses.run(new Agent({ name: 'Nobody', model: 'no-such-route' }), prompt);
  return { unexpected: 'no error' };
};
await run(cases);
