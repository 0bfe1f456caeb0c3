// The official Anthropic TypeScript SDK (npm "@anthropic-ai/sdk") through
// one base URL: messages (whole and streamed), tools, structured output
// (messages.parse), count_tokens, models, errors.
import Anthropic from '@anthropic-ai/sdk';
import { betaTool } from '@anthropic-ai/sdk/helpers/beta/json-schema';
import { zodOutputFormat } from '@anthropic-ai/sdk/helpers/zod';
import * as z from 'zod/v4';
import { base, key, model, run, weatherSchema, weatherAnswer, png } from './lib.mjs';

const client = new Anthropic({ baseURL: base, apiKey: key, maxRetries: 0, timeout: 20000 });

const system = 'You are terse.';
const user = { role: 'user', content: 'What is the weather in Paris?' };
const tools = [{ name: 'get_weather', description: 'Weather in a city', input_schema: weatherSchema }];

const answer = z.object({ city: z.string(), sunny: z.boolean() });

const textOf = (m) => m.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
const callsOf = (m) => m.content.filter((b) => b.type === 'tool_use').map((b) => ({ name: b.name, input: b.input }));

// toolTurns answers a message's tool_use blocks locally.
function toolTurns(m) {
  return [
    { role: 'assistant', content: m.content },
    { role: 'user', content: m.content.filter((b) => b.type === 'tool_use').map((b) => ({ type: 'tool_result', tool_use_id: b.id, content: weatherAnswer(b.input) })) },
  ];
}

async function toolRunner(opts) {
  let ran = 0;
  const weather = betaTool({ name: 'get_weather', description: 'Weather in a city', inputSchema: weatherSchema,
    run: (args) => { ran++; return weatherAnswer(args); } });
  const runner = client.beta.messages.toolRunner({ model, max_tokens: 200, system, messages: [user], tools: [weather], ...opts });
  let texts = '';
  if (opts.stream) {
    for await (const stream of runner) {
      for await (const ev of stream) {
        if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') texts += ev.delta.text;
      }
    }
  }
  // done() waits for the iteration above; runUntilDone() drives the loop.
  const m = await (opts.stream ? runner.done() : runner.runUntilDone());
  return { text: textOf(m), texts, stop: m.stop_reason, ran };
}

await run({
  async messages() {
    const m = await client.messages.create({ model, max_tokens: 200, system, messages: [user], temperature: 0.2 });
    return { id: m.id, type: m.type, role: m.role, text: textOf(m), stop: m.stop_reason, usage: m.usage };
  },
  // The stream helper: text events, then the accumulated message.
  async messages_stream() {
    const s = client.messages.stream({ model, max_tokens: 200, system, messages: [user] });
    let texts = '';
    s.on('text', (t) => { texts += t; });
    const m = await s.finalMessage();
    return { text: textOf(m), texts, stop: m.stop_reason, usage: m.usage };
  },
  // stream: true, every raw event.
  async messages_raw_stream() {
    const s = await client.messages.create({ model, max_tokens: 200, system, messages: [user], stream: true });
    const types = [];
    let text = '', stop = null;
    for await (const ev of s) {
      types.push(ev.type);
      if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') text += ev.delta.text;
      if (ev.type === 'message_delta') stop = ev.delta.stop_reason;
    }
    return { text, stop, types: [...new Set(types)] };
  },
  async image() {
    const m = await client.messages.create({ model, max_tokens: 200, messages: [{ role: 'user', content: [
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } }, { type: 'text', text: 'What is this?' }] }] });
    return { text: textOf(m), stop: m.stop_reason };
  },
  async tools() {
    const m1 = await client.messages.create({ model, max_tokens: 200, system, messages: [user], tools, tool_choice: { type: 'auto' } });
    const calls = callsOf(m1);
    if (!calls.length) return { stop: m1.stop_reason, text: textOf(m1), calls };
    const m2 = await client.messages.create({ model, max_tokens: 200, system, messages: [user, ...toolTurns(m1)], tools });
    return { stop: m1.stop_reason, calls, text: textOf(m2), stop2: m2.stop_reason };
  },
  async tools_stream() {
    const m1 = await client.messages.stream({ model, max_tokens: 200, system, messages: [user], tools }).finalMessage();
    const calls = callsOf(m1);
    if (!calls.length) return { stop: m1.stop_reason, text: textOf(m1), calls };
    const m2 = await client.messages.stream({ model, max_tokens: 200, system, messages: [user, ...toolTurns(m1)], tools }).finalMessage();
    return { stop: m1.stop_reason, calls, text: textOf(m2), stop2: m2.stop_reason };
  },
  // The SDK's tool runner (beta: /v1/messages?beta=true) runs the tool
  // and sends its result until the model stops calling it. By default it
  // keeps the conversation in a server-side thread at Anthropic (thread:
  // create, then continue with only the new turns); thread: false sends
  // the whole conversation every time.
  async tool_runner() { return toolRunner({}); },
  async tool_runner_nothread() { return toolRunner({ thread: false }); },
  async tool_runner_stream_nothread() { return toolRunner({ thread: false, stream: true }); },
  // Structured output (output_config.format), parsed by the SDK from the
  // answer's text, whole and streamed.
  async parse() {
    const m = await client.messages.parse({ model, max_tokens: 200, system, messages: [user], output_config: { format: zodOutputFormat(answer) } });
    return { object: m.parsed_output, stop: m.stop_reason };
  },
  async parse_stream() {
    const s = client.messages.stream({ model, max_tokens: 200, system, messages: [user], output_config: { format: zodOutputFormat(answer) } });
    const m = await s.finalMessage();
    return { object: m.parsed_output, stop: m.stop_reason };
  },
  async count_tokens() {
    const c = await client.messages.countTokens({ model, system, messages: [user], tools });
    return { input_tokens: c.input_tokens };
  },
  async models() {
    const ids = [];
    for await (const m of client.models.list()) ids.push(m.id);
    return { ids };
  },
  async model() {
    const m = await client.models.retrieve(model);
    return { id: m.id, type: m.type, display_name: m.display_name };
  },
  async error_key() {
    const bad = new Anthropic({ baseURL: base, apiKey: 'not-a-client-key', maxRetries: 0 });
    await bad.messages.create({ model, max_tokens: 10, messages: [user] });
    return { unexpected: 'no error' };
  },
  async error_model() {
    await client.messages.create({ model: 'no-such-route', max_tokens: 10, messages: [user] });
    return { unexpected: 'no error' };
  },
});
