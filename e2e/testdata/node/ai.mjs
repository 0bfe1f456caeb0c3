// The Vercel AI SDK (npm "ai") with its OpenAI (Responses by default,
// .chat() for Chat Completions), Anthropic and OpenAI-compatible providers
// through one base URL: generateText, streamText, tool calls, embed,
// embedMany.
import { generateText, streamText, embed, embedMany, tool, jsonSchema, stepCountIs } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { base, key, model, embedModel, run, weatherSchema, weatherAnswer, png } from './lib.mjs';

globalThis.AI_SDK_LOG_WARNINGS = false; // its advice about model names it does not know

const openai = createOpenAI({ baseURL: base + '/v1', apiKey: key });
const anthropic = createAnthropic({ baseURL: base + '/v1', apiKey: key });
const compat = createOpenAICompatible({ name: 'detour', baseURL: base + '/v1', apiKey: key, includeUsage: true });

const models = {
  responses: openai(model),
  chat: openai.chat(model),
  anthropic: anthropic(model),
  compat: compat.chatModel(model),
};
const only = (process.env.DETOUR_PROVIDERS || '').split(',').filter(Boolean);

const tools = {
  get_weather: tool({
    description: 'Weather in a city',
    inputSchema: jsonSchema(weatherSchema),
    execute: async (args) => weatherAnswer(args),
  }),
};
const prompt = 'What is the weather in Paris?';
const system = 'You are terse.';
const maxRetries = 0;

const callsOf = (steps) => steps.flatMap((s) => s.toolCalls.map((c) => ({ name: c.toolName, input: c.input })));

const cases = {};
for (const [name, m] of Object.entries(models)) {
  if (only.length && !only.includes(name)) continue;
  cases[`${name}_generate`] = async () => {
    const r = await generateText({ model: m, system, prompt, maxRetries, maxOutputTokens: 200 });
    return { text: r.text, finish: r.finishReason, usage: r.usage };
  };
  cases[`${name}_stream`] = async () => {
    let err;
    const r = streamText({ model: m, system, prompt, maxRetries, onError: ({ error }) => { err = error; } });
    let text = '';
    for await (const t of r.textStream) text += t;
    if (err) throw err;
    return { text, finish: await r.finishReason, usage: await r.usage };
  };
  // A second turn carries the first one's response messages, as the AI
  // SDK's docs keep a conversation. The Responses provider then refers to
  // the first answer by id (item_reference) unless store is false.
  const twoTurns = (providerOptions) => async () => {
    const messages = [{ role: 'user', content: prompt }];
    const r1 = await generateText({ model: m, system, messages, maxRetries, providerOptions });
    messages.push(...r1.response.messages, { role: 'user', content: 'And tomorrow?' });
    const r2 = await generateText({ model: m, system, messages, maxRetries, providerOptions });
    return { text: r2.text, finish: r2.finishReason };
  };
  cases[`${name}_two_turns`] = twoTurns(undefined);
  if (name === 'responses') cases.responses_two_turns_nostore = twoTurns({ openai: { store: false } });
  cases[`${name}_image`] = async () => {
    const r = await generateText({ model: m, maxRetries, messages: [{ role: 'user', content: [
      { type: 'text', text: 'What is this?' }, { type: 'image', image: Buffer.from(png, 'base64'), mediaType: 'image/png' }] }] });
    return { text: r.text };
  };
  cases[`${name}_tools`] = async () => {
    const r = await generateText({ model: m, system, prompt, tools, stopWhen: stepCountIs(3), maxRetries });
    return { text: r.text, finish: r.finishReason, steps: r.steps.length, calls: callsOf(r.steps) };
  };
  if (name === 'responses') {
    cases.responses_tools_nostore = async () => {
      const r = await generateText({ model: m, system, prompt, tools, stopWhen: stepCountIs(3), maxRetries, providerOptions: { openai: { store: false } } });
      return { text: r.text, finish: r.finishReason, steps: r.steps.length, calls: callsOf(r.steps) };
    };
  }
  cases[`${name}_stream_tools`] = async () => {
    let err;
    const r = streamText({ model: m, system, prompt, tools, stopWhen: stepCountIs(3), maxRetries, onError: ({ error }) => { err = error; } });
    let text = '';
    for await (const t of r.textStream) text += t;
    if (err) throw err;
    const steps = await r.steps;
    return { text, finish: await r.finishReason, steps: steps.length, calls: callsOf(steps) };
  };
}
if (!only.length || only.includes('embed')) {
  cases.openai_embed = async () => {
    const r = await embed({ model: openai.embedding(embedModel), value: 'alpha', maxRetries });
    return { vector: r.embedding, usage: r.usage };
  };
  cases.openai_embed_many = async () => {
    const r = await embedMany({ model: openai.embedding(embedModel), values: ['alpha', 'beta'], maxRetries });
    return { vectors: r.embeddings, usage: r.usage };
  };
  cases.compat_embed_many = async () => {
    const r = await embedMany({ model: compat.embeddingModel(embedModel), values: ['alpha', 'beta'], maxRetries });
    return { vectors: r.embeddings, usage: r.usage };
  };
}
cases.error_model = async () => {
  await generateText({ model: openai.chat('no-such-route'), prompt, maxRetries });
  return { unexpected: 'no error' };
};

await run(cases);
