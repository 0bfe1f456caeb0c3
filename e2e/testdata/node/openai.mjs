// The official OpenAI Node SDK (npm "openai") through one base URL:
// Chat Completions, Responses, embeddings, models, errors.
import OpenAI from 'openai';
import { base, key, model, embedModel, run, weatherSchema, weatherAnswer, png } from './lib.mjs';

const client = new OpenAI({ baseURL: base + '/v1', apiKey: key, maxRetries: 0, timeout: 20000 });

const system = { role: 'system', content: 'You are terse.' };
const user = { role: 'user', content: 'What is the weather in Paris?' };
const chatTools = [{ type: 'function', function: { name: 'get_weather', description: 'Weather in a city', parameters: weatherSchema } }];
const respTools = [{ type: 'function', name: 'get_weather', description: 'Weather in a city', parameters: weatherSchema, strict: true }];

// toolTurn answers a chat tool call locally.
function toolMessages(msg) {
  const out = [{ role: 'assistant', content: msg.content ?? null, tool_calls: msg.tool_calls }];
  for (const c of msg.tool_calls) {
    out.push({ role: 'tool', tool_call_id: c.id, content: weatherAnswer(JSON.parse(c.function.arguments)) });
  }
  return out;
}

await run({
  // A streamed tool loop as the SDK's stream helper gives it: each step's
  // final message goes back as it came, every member the upstream put on
  // a tool call included (a Gemini thought signature's extra_content).
  async chat_stream_tool_loop() {
    const messages = [user];
    for (let step = 0; step < 5; step++) {
      const s = client.chat.completions.stream({ model, messages, tools: chatTools });
      const msg = (await s.finalChatCompletion()).choices[0].message;
      if (!msg.tool_calls?.length) return { text: msg.content, steps: step };
      messages.push(...toolMessages(msg));
    }
    throw new Error('the loop did not end');
  },
  async chat() {
    const r = await client.chat.completions.create({ model, messages: [system, user], max_completion_tokens: 200, temperature: 0.2 });
    return { id: r.id, object: r.object, text: r.choices[0].message.content, finish: r.choices[0].finish_reason, usage: r.usage };
  },
  async chat_stream() {
    const s = await client.chat.completions.create({ model, messages: [system, user], stream: true, stream_options: { include_usage: true } });
    let text = '', finish = null, usage = null, chunks = 0;
    for await (const c of s) {
      chunks++;
      if (c.usage) usage = c.usage;
      for (const ch of c.choices) {
        text += ch.delta?.content ?? '';
        finish = ch.finish_reason ?? finish;
      }
    }
    return { text, finish, usage, chunks };
  },
  // Without stream_options: code written against OpenAI reads
  // chunk.choices[0] on every chunk, so no chunk may come without one.
  async chat_stream_plain() {
    const s = await client.chat.completions.create({ model, messages: [system, user], stream: true });
    let text = '', empty = 0, usage = 0;
    for await (const c of s) {
      if (!c.choices.length) empty++;
      if (c.usage) usage++;
      text += c.choices[0]?.delta?.content ?? '';
    }
    return { text, empty, usage };
  },
  async chat_tools() {
    const r1 = await client.chat.completions.create({ model, messages: [system, user], tools: chatTools, tool_choice: 'auto' });
    const msg = r1.choices[0].message;
    if (!msg.tool_calls?.length) return { finish: r1.choices[0].finish_reason, text: msg.content, calls: [] };
    const calls = msg.tool_calls.map((c) => ({ name: c.function.name, arguments: JSON.parse(c.function.arguments) }));
    const r2 = await client.chat.completions.create({ model, messages: [system, user, ...toolMessages(msg)], tools: chatTools });
    return { finish: r1.choices[0].finish_reason, calls, text: r2.choices[0].message.content };
  },
  // The stream helper accumulates the deltas into a whole completion.
  async chat_stream_tools() {
    const s = client.chat.completions.stream({ model, messages: [system, user], tools: chatTools, stream_options: { include_usage: true } });
    const r1 = await s.finalChatCompletion();
    const msg = r1.choices[0].message;
    if (!msg.tool_calls?.length) return { finish: r1.choices[0].finish_reason, text: msg.content, calls: [] };
    const calls = msg.tool_calls.map((c) => ({ name: c.function.name, arguments: JSON.parse(c.function.arguments) }));
    const s2 = client.chat.completions.stream({ model, messages: [system, user, ...toolMessages(msg)], tools: chatTools, stream_options: { include_usage: true } });
    const r2 = await s2.finalChatCompletion();
    return { finish: r1.choices[0].finish_reason, calls, text: r2.choices[0].message.content, usage: r2.usage };
  },
  async chat_image() {
    const r = await client.chat.completions.create({ model, messages: [{ role: 'user', content: [
      { type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,' + png } }] }] });
    return { text: r.choices[0].message.content };
  },
  async responses_image() {
    const r = await client.responses.create({ model, input: [{ role: 'user', content: [
      { type: 'input_text', text: 'What is this?' }, { type: 'input_image', image_url: 'data:image/png;base64,' + png, detail: 'auto' }] }] });
    return { text: r.output_text };
  },
  async responses() {
    const r = await client.responses.create({ model, instructions: 'You are terse.', input: 'What is the weather in Paris?', max_output_tokens: 200 });
    return { id: r.id, object: r.object, status: r.status, text: r.output_text, usage: r.usage };
  },
  async responses_stream() {
    const s = client.responses.stream({ model, instructions: 'You are terse.', input: [{ role: 'user', content: 'What is the weather in Paris?' }] });
    const types = [];
    let deltas = '';
    for await (const ev of s) {
      types.push(ev.type);
      if (ev.type === 'response.output_text.delta') deltas += ev.delta;
    }
    const r = await s.finalResponse();
    return { status: r.status, text: r.output_text, deltas, usage: r.usage, types: [...new Set(types)] };
  },
  async responses_tools() {
    const input = [{ role: 'user', content: 'What is the weather in Paris?' }];
    const r1 = await client.responses.create({ model, input, tools: respTools });
    const calls = r1.output.filter((o) => o.type === 'function_call');
    if (!calls.length) return { status: r1.status, text: r1.output_text, calls: [] };
    const next = [...input, ...r1.output];
    for (const c of calls) next.push({ type: 'function_call_output', call_id: c.call_id, output: weatherAnswer(JSON.parse(c.arguments)) });
    const r2 = await client.responses.create({ model, input: next, tools: respTools });
    return { status: r2.status, calls: calls.map((c) => ({ name: c.name, arguments: JSON.parse(c.arguments) })), text: r2.output_text };
  },
  async responses_stream_tools() {
    const input = [{ role: 'user', content: 'What is the weather in Paris?' }];
    const s1 = client.responses.stream({ model, input, tools: respTools });
    const r1 = await s1.finalResponse();
    const calls = r1.output.filter((o) => o.type === 'function_call');
    if (!calls.length) return { status: r1.status, text: r1.output_text, calls: [] };
    const next = [...input, ...r1.output];
    for (const c of calls) next.push({ type: 'function_call_output', call_id: c.call_id, output: weatherAnswer(JSON.parse(c.arguments)) });
    const s2 = client.responses.stream({ model, input: next, tools: respTools });
    const r2 = await s2.finalResponse();
    return { status: r2.status, calls: calls.map((c) => ({ name: c.name, arguments: JSON.parse(c.arguments) })), text: r2.output_text, usage: r2.usage };
  },
  // The SDK asks for base64 unless told otherwise, and decodes it itself.
  async embeddings() {
    const r = await client.embeddings.create({ model: embedModel, input: ['alpha', 'beta'] });
    return { model: r.model, vectors: r.data.map((d) => d.embedding), usage: r.usage };
  },
  // Asked for explicitly, base64 reaches the caller as sent: decoded here.
  async embeddings_base64() {
    const r = await client.embeddings.create({ model: embedModel, input: ['alpha', 'beta'], encoding_format: 'base64' });
    const types = r.data.map((d) => typeof d.embedding);
    const vectors = r.data.map((d) => (typeof d.embedding === 'string'
      ? Array.from(new Float32Array(new Uint8Array(Buffer.from(d.embedding, 'base64')).buffer)) : d.embedding));
    return { types, vectors };
  },
  async embeddings_float() {
    const r = await client.embeddings.create({ model: embedModel, input: 'alpha', encoding_format: 'float' });
    return { model: r.model, vectors: r.data.map((d) => d.embedding) };
  },
  async models() {
    const ids = [];
    for await (const m of client.models.list()) ids.push(m.id);
    return { ids };
  },
  async model() {
    const m = await client.models.retrieve(model);
    return { id: m.id, object: m.object, owned_by: m.owned_by };
  },
  async error_key() {
    const bad = new OpenAI({ baseURL: base + '/v1', apiKey: 'not-a-client-key', maxRetries: 0 });
    await bad.chat.completions.create({ model, messages: [user] });
    return { unexpected: 'no error' };
  },
  async error_model() {
    await client.chat.completions.create({ model: 'no-such-route', messages: [user] });
    return { unexpected: 'no error' };
  },
});
