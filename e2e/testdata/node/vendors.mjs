// Probe 68j: other vendors' OpenAI-compatible SDKs pointed at Detour's
// /v1/chat/completions by a base URL — Mistral's Speakeasy-generated
// @mistralai/mistralai (which validates every answer against its schema),
// the Stainless-generated groq-sdk, together-ai and
// @cerebras/cerebras_cloud_sdk, and the AI SDK's @ai-sdk/mistral, groq,
// deepseek and xai providers: a whole and a streamed answer, a tool loop,
// JSON output, and the errors of the routes DETOUR_ERROR_ROUTES names
// (name=route,…), each with the number of HTTP requests the client sent
// (its own retries) and how long it took.
// Only @mistralai/mistralai and groq-sdk are pinned (package.json): the
// others are imported when DETOUR_CLIENTS names them (probe 68j installed
// them beside the pinned set).
import { generateText, streamText, Output, tool, jsonSchema, stepCountIs } from 'ai';
import { z } from 'zod';
import { base, key, model, run, errorOf, weatherSchema, weatherAnswer } from './lib.mjs';

globalThis.AI_SDK_LOG_WARNINGS = false;

const retries = Number(process.env.DETOUR_RETRIES || 0); // the clients' own retries
const errorRoutes = Object.fromEntries((process.env.DETOUR_ERROR_ROUTES || '').split(',').filter(Boolean).map((s) => s.split('=')));
const only = (process.env.DETOUR_CLIENTS || '').split(',').filter(Boolean);

// counting is a fetch that counts the requests a client sends.
let sent = 0;
const counting = (...a) => { sent++; return fetch(...a); };

const prompt = 'What is the weather in Paris?';
const messages = [{ role: 'system', content: 'You are terse.' }, { role: 'user', content: prompt }];
const jsonMessages = [{ role: 'user', content: 'Is it sunny in Paris? Answer in JSON with the city and whether it is sunny.' }];
const oaTools = [{ type: 'function', function: { name: 'get_weather', description: 'Weather in a city', parameters: weatherSchema } }];
const Answer = z.object({ city: z.string(), sunny: z.boolean() });
const answerSchema = { type: 'object', properties: { city: { type: 'string' }, sunny: { type: 'boolean' } }, required: ['city', 'sunny'], additionalProperties: false };

// errorWith is errorOf with the body an SDK kept as text (Mistral's) read.
function errorWith(e) {
  const out = errorOf(e);
  let body = e?.body ?? e?.responseBody;
  if (typeof body === 'string') { try { body = JSON.parse(body); } catch { /* kept as text */ } }
  if (body && typeof body === 'object') {
    out.type ??= body.error?.type ?? body.type;
    out.code ??= body.error?.code ?? body.code;
    out.bodyMessage = body.error?.message ?? body.message;
  }
  out.headers = {};
  const h = e?.headers ?? e?.responseHeaders ?? e?.rawResponse?.headers;
  for (const k of ['retry-after', 'retry-after-ms', 'x-should-retry']) {
    const v = typeof h?.get === 'function' ? h.get(k) : h?.[k];
    if (v != null) out.headers[k] = v;
  }
  return out;
}

// failing runs fn, which must throw, and reports its error, the requests
// sent and the time taken.
const failing = (fn) => async () => {
  sent = 0;
  const t0 = Date.now();
  try {
    const r = await fn();
    return { unexpected: r ?? 'no error', sent, ms: Date.now() - t0 };
  } catch (e) {
    return { failure: errorWith(e), sent, ms: Date.now() - t0 };
  }
};

const cases = {};
const clients = {};

// Mistral: serverURL is the host (paths are /v1/...).
clients.mistral = async () => {
  const { Mistral, HTTPClient } = await import('@mistralai/mistralai');
  const c = new Mistral({ apiKey: key, serverURL: base, httpClient: new HTTPClient({ fetcher: counting }), ...(retries ? { retryConfig: { strategy: 'backoff', backoff: { initialInterval: 100, maxInterval: 30000, exponent: 1.5, maxElapsedTime: 2500 }, retryConnectionErrors: false } } : {}) });
  const mc = (extra) => c.chat.complete({ model, messages, ...extra });
  return {
    chat: async () => { const r = await mc({ maxTokens: 200 }); return { text: r.choices[0].message.content, finish: r.choices[0].finishReason, usage: r.usage, id: r.id, created: r.created }; },
    stream: async () => {
      const s = await c.chat.stream({ model, messages });
      let text = '', finish, usage;
      for await (const ev of s) {
        const ch = ev.data.choices[0];
        if (ch?.delta?.content) text += ch.delta.content;
        if (ch?.finishReason) finish = ch.finishReason;
        if (ev.data.usage) usage = ev.data.usage;
      }
      return { text, finish, usage };
    },
    tools: async () => {
      const msgs = [...messages];
      const r1 = await c.chat.complete({ model, messages: msgs, tools: oaTools });
      const m1 = r1.choices[0].message;
      const calls = (m1.toolCalls || []).map((t) => ({ name: t.function.name, arguments: typeof t.function.arguments === 'string' ? JSON.parse(t.function.arguments) : t.function.arguments }));
      msgs.push({ role: 'assistant', content: m1.content ?? '', toolCalls: m1.toolCalls });
      for (const t of m1.toolCalls || []) msgs.push({ role: 'tool', toolCallId: t.id, name: t.function.name, content: weatherAnswer(calls[0].arguments) });
      const r2 = await c.chat.complete({ model, messages: msgs, tools: oaTools });
      return { finish1: r1.choices[0].finishReason, calls, text: r2.choices[0].message.content, finish: r2.choices[0].finishReason };
    },
    stream_tools: async () => {
      const s = await c.chat.stream({ model, messages, tools: oaTools });
      const calls = []; let finish;
      for await (const ev of s) {
        const ch = ev.data.choices[0];
        for (const t of ch?.delta?.toolCalls || []) {
          const i = t.index ?? 0;
          calls[i] ??= { name: '', arguments: '' };
          if (t.function?.name) calls[i].name += t.function.name;
          if (t.function?.arguments) calls[i].arguments += typeof t.function.arguments === 'string' ? t.function.arguments : JSON.stringify(t.function.arguments);
        }
        if (ch?.finishReason) finish = ch.finishReason;
      }
      return { calls: calls.map((x) => ({ name: x.name, arguments: JSON.parse(x.arguments) })), finish };
    },
    json: async () => { const r = await c.chat.complete({ model, messages: jsonMessages, responseFormat: { type: 'json_object' } }); return { object: JSON.parse(r.choices[0].message.content) }; },
    json_schema: async () => {
      const r = await c.chat.parse({ model, messages: jsonMessages, responseFormat: Answer });
      return { object: r.choices[0].message.parsed };
    },
    fail: (route, msgs) => c.chat.complete({ model: route, messages: msgs }),
    fail_stream: async (route, msgs) => { const s = await c.chat.stream({ model: route, messages: msgs }); for await (const _ of s); },
  };
};

// The Stainless-generated SDKs: the openai SDK's surface, their own base URLs.
const stainless = (pkg, baseURL) => async () => {
  const C = (await import(pkg)).default;
  const c = new C({ apiKey: key, baseURL, maxRetries: retries, timeout: 30000, fetch: counting, warmTCPConnection: false });
  return {
    chat: async () => { const r = await c.chat.completions.create({ model, messages, max_tokens: 200 }); return { text: r.choices[0].message.content, finish: r.choices[0].finish_reason, usage: r.usage, id: r.id, created: r.created }; },
    stream: async () => {
      const s = await c.chat.completions.create({ model, messages, stream: true, stream_options: { include_usage: true } });
      let text = '', finish, usage;
      for await (const ch of s) {
        const x = ch.choices?.[0];
        if (x?.delta?.content) text += x.delta.content;
        if (x?.finish_reason) finish = x.finish_reason;
        if (ch.usage) usage = ch.usage;
        if (ch.x_groq?.usage) usage = ch.x_groq.usage;
      }
      return { text, finish, usage };
    },
    tools: async () => {
      const msgs = [...messages];
      const r1 = await c.chat.completions.create({ model, messages: msgs, tools: oaTools });
      const m1 = r1.choices[0].message;
      const calls = (m1.tool_calls || []).map((t) => ({ name: t.function.name, arguments: JSON.parse(t.function.arguments) }));
      msgs.push({ role: 'assistant', content: m1.content, tool_calls: m1.tool_calls });
      for (const t of m1.tool_calls || []) msgs.push({ role: 'tool', tool_call_id: t.id, content: weatherAnswer(calls[0].arguments) });
      const r2 = await c.chat.completions.create({ model, messages: msgs, tools: oaTools });
      return { finish1: r1.choices[0].finish_reason, calls, text: r2.choices[0].message.content, finish: r2.choices[0].finish_reason };
    },
    stream_tools: async () => {
      const s = await c.chat.completions.create({ model, messages, tools: oaTools, stream: true });
      const calls = []; let finish;
      for await (const ch of s) {
        const x = ch.choices?.[0];
        for (const t of x?.delta?.tool_calls || []) {
          calls[t.index] ??= { name: '', arguments: '' };
          if (t.function?.name) calls[t.index].name += t.function.name;
          if (t.function?.arguments) calls[t.index].arguments += t.function.arguments;
        }
        if (x?.finish_reason) finish = x.finish_reason;
      }
      return { calls: calls.map((x) => ({ name: x.name, arguments: JSON.parse(x.arguments) })), finish };
    },
    json: async () => { const r = await c.chat.completions.create({ model, messages: jsonMessages, response_format: { type: 'json_object' } }); return { object: JSON.parse(r.choices[0].message.content) }; },
    json_schema: async () => {
      const r = await c.chat.completions.create({ model, messages: jsonMessages, response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: answerSchema, strict: true } } });
      return { object: JSON.parse(r.choices[0].message.content) };
    },
    fail: (route, msgs) => c.chat.completions.create({ model: route, messages: msgs }),
    fail_stream: async (route, msgs) => { const s = await c.chat.completions.create({ model: route, messages: msgs, stream: true }); for await (const _ of s); },
  };
};
clients.groq = stainless('groq-sdk', base); // its paths are /openai/v1/...
clients.together = stainless('together-ai', base + '/v1');
clients.cerebras = stainless('@cerebras/cerebras_cloud_sdk', base); // its paths are /v1/...

// The AI SDK's providers.
const aiTools = { get_weather: tool({ description: 'Weather in a city', inputSchema: jsonSchema(weatherSchema), execute: async (a) => weatherAnswer(a) }) };
const callsOf = (steps) => steps.flatMap((s) => s.toolCalls.map((c) => ({ name: c.toolName, arguments: c.input })));
const aiSDK = (pkg, fn) => async () => {
  const make = (await import(pkg))[fn];
  const p = make({ baseURL: base + '/v1', apiKey: key, fetch: counting });
  const m = (name) => p.chat ? p.chat(name) : p(name);
  const maxRetries = retries;
  return {
    chat: async () => { const r = await generateText({ model: m(model), system: 'You are terse.', prompt, maxRetries, maxOutputTokens: 200 }); return { text: r.text, finish: r.finishReason, rawFinish: r.rawFinishReason, usage: r.usage }; },
    stream: async () => {
      let err;
      const r = streamText({ model: m(model), system: 'You are terse.', prompt, maxRetries, onError: ({ error }) => { err = error; } });
      let text = '';
      for await (const t of r.textStream) text += t;
      if (err) throw err;
      return { text, finish: await r.finishReason, usage: await r.usage };
    },
    tools: async () => {
      const r = await generateText({ model: m(model), system: 'You are terse.', prompt, tools: aiTools, stopWhen: stepCountIs(3), maxRetries });
      return { text: r.text, finish: r.finishReason, steps: r.steps.length, calls: callsOf(r.steps) };
    },
    stream_tools: async () => {
      let err;
      const r = streamText({ model: m(model), system: 'You are terse.', prompt, tools: aiTools, stopWhen: stepCountIs(3), maxRetries, onError: ({ error }) => { err = error; } });
      let text = '';
      for await (const t of r.textStream) text += t;
      if (err) throw err;
      return { text, finish: await r.finishReason, steps: (await r.steps).length, calls: callsOf(await r.steps) };
    },
    json_schema: async () => {
      const r = await generateText({ model: m(model), messages: jsonMessages, output: Output.object({ schema: Answer }), maxRetries });
      return { object: r.output, finish: r.finishReason };
    },
    fail: (route, msgs) => generateText({ model: m(route), messages: msgs.filter((x) => x.role !== 'system'), maxRetries }),
    fail_stream: async (route, msgs) => {
      let err;
      const r = streamText({ model: m(route), messages: msgs.filter((x) => x.role !== 'system'), maxRetries, onError: ({ error }) => { err = error; } });
      for await (const _ of r.textStream);
      if (err) throw err;
    },
  };
};
clients.ai_mistral = aiSDK('@ai-sdk/mistral', 'createMistral');
clients.ai_groq = aiSDK('@ai-sdk/groq', 'createGroq');
clients.ai_deepseek = aiSDK('@ai-sdk/deepseek', 'createDeepSeek');
clients.ai_xai = aiSDK('@ai-sdk/xai', 'createXai');

for (const [name, make] of Object.entries(clients)) {
  if (only.length && !only.includes(name)) continue;
  const c = await make();
  for (const k of process.env.DETOUR_ERRORS_ONLY ? [] : ['chat', 'stream', 'tools', 'stream_tools', 'json', 'json_schema']) {
    if (c[k]) cases[`${name}_${k}`] = c[k];
  }
  for (const [what, route] of Object.entries(errorRoutes)) {
    // "big": a body past the gateway's max_body_bytes (the test sets it).
    const msgs = what === 'big' ? [{ role: 'user', content: 'x'.repeat(Number(process.env.DETOUR_BIG || 40000)) }] : messages;
    cases[`${name}_error_${what}`] = failing(() => c.fail(route, msgs));
    cases[`${name}_error_${what}_stream`] = failing(() => c.fail_stream(route, msgs));
  }
}

await run(cases);
