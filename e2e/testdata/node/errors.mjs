// How each JavaScript client reports Detour's errors: an upstream's 429
// before anything streamed (DETOUR_MODEL names a route whose upstream
// refuses), a stream cut after its first words (DETOUR_STREAM_MODEL), and
// Detour's own 400 for a member the stateless Responses door refuses.
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { generateText, streamText } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { base, key, model, run, errorOf } from './lib.mjs';

globalThis.AI_SDK_LOG_WARNINGS = false;

const streamModel = process.env.DETOUR_STREAM_MODEL || model;
const oa = new OpenAI({ baseURL: base + '/v1', apiKey: key, maxRetries: 0, timeout: 20000 });
const an = new Anthropic({ baseURL: base, apiKey: key, maxRetries: 0, timeout: 20000 });
const ai = {
  responses: createOpenAI({ baseURL: base + '/v1', apiKey: key }),
  chat: createOpenAI({ baseURL: base + '/v1', apiKey: key }).chat,
  anthropic: createAnthropic({ baseURL: base + '/v1', apiKey: key }),
  compat: createOpenAICompatible({ name: 'detour', baseURL: base + '/v1', apiKey: key, includeUsage: true }).chatModel,
};
const messages = [{ role: 'user', content: 'hi' }];

// collect reads an async iterable, keeping the text it saw before an error.
async function collect(iter, textOf) {
  let text = '';
  try {
    for await (const ev of iter) text += textOf(ev) ?? '';
  } catch (e) {
    return { text, error: errorOf(e) };
  }
  return { text, ended: true };
}

const cases = {
  async openai_chat() {
    await oa.chat.completions.create({ model, messages });
  },
  async openai_chat_stream() {
    const s = await oa.chat.completions.create({ model: streamModel, messages, stream: true, stream_options: { include_usage: true } });
    return collect(s, (c) => c.choices[0]?.delta?.content);
  },
  async openai_responses() {
    await oa.responses.create({ model, input: 'hi' });
  },
  async openai_responses_stream() {
    const s = await oa.responses.create({ model: streamModel, input: 'hi', stream: true });
    const types = [];
    const r = await collect(s, (ev) => { types.push(ev.type); return ev.type === 'response.output_text.delta' ? ev.delta : ''; });
    return { ...r, types };
  },
  async openai_responses_store() {
    await oa.responses.create({ model, input: 'hi', store: true });
  },
  async anthropic() {
    await an.messages.create({ model, max_tokens: 50, messages });
  },
  async anthropic_stream() {
    const s = an.messages.stream({ model: streamModel, max_tokens: 50, messages });
    let text = '';
    s.on('text', (t) => { text += t; });
    try {
      await s.finalMessage();
    } catch (e) {
      return { text, error: errorOf(e) };
    }
    return { text, ended: true };
  },
};
for (const [name, p] of Object.entries(ai)) {
  cases[`ai_${name}`] = async () => {
    await generateText({ model: p(model), prompt: 'hi', maxRetries: 0 });
  };
  cases[`ai_${name}_stream`] = async () => {
    let err;
    const r = streamText({ model: p(streamModel), prompt: 'hi', maxRetries: 0, onError: ({ error }) => { err = error; } });
    let text = '';
    for await (const t of r.textStream) text += t;
    const finish = await r.finishReason.catch(() => undefined);
    return { text, finish, error: err ? errorOf(err) : undefined };
  };
}
for (const [name, fn] of Object.entries(cases)) {
  // A case that did not throw reports what it got, marked unexpected
  // unless it is a stream (whose error travels in its result).
  cases[name] = async () => (await fn()) ?? { unexpected: 'no error' };
}
await run(cases);
