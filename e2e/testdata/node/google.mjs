// The Vercel AI SDK's Google provider (npm "@ai-sdk/google") with its
// baseURL at Detour's /v1beta: the Gemini door. generateText (and its
// usage, its provider metadata), streamText, a tool with execute over two
// steps (whole and streamed), generateObject (a zod schema, which the
// provider sends as responseJsonSchema), an image, and the errors it
// raises (an unknown route, a refused member).
import { generateText, streamText, generateObject, tool, jsonSchema, stepCountIs } from 'ai';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { z } from 'zod';
import { base, key, model, run, weatherSchema, weatherAnswer, png, errorOf } from './lib.mjs';

globalThis.AI_SDK_LOG_WARNINGS = false;

const google = createGoogleGenerativeAI({ baseURL: base + '/v1beta', apiKey: key });
const m = google(model);
const maxRetries = 0;
const system = 'You are terse.';
const prompt = 'What is the weather in Paris?';
const tools = {
  get_weather: tool({
    description: 'Weather in a city',
    inputSchema: jsonSchema(weatherSchema),
    execute: async (args) => weatherAnswer(args),
  }),
};
const errorRoutes = Object.fromEntries((process.env.DETOUR_ERROR_ROUTES || '').split(',').filter(Boolean).map((kv) => kv.split('=')));
const callsOf = (steps) => steps.flatMap((s) => s.toolCalls.map((c) => ({ name: c.toolName, input: c.input })));

// thrown runs fn and describes what it threw (null when it did not).
const thrown = async (fn) => {
  try {
    await fn();
    return null;
  } catch (e) {
    return { ...errorOf(e), body: e?.responseBody ? String(e.responseBody).slice(0, 500) : undefined, retryable: e?.isRetryable };
  }
};

await run({
  async generate() {
    const r = await generateText({ model: m, system, prompt, maxRetries, maxOutputTokens: 200, temperature: 0.2 });
    return { text: r.text, finish: r.finishReason, usage: r.usage, responseModel: r.response?.modelId };
  },
  async stream() {
    let err;
    const r = streamText({ model: m, system, prompt, maxRetries, onError: ({ error }) => { err = error; } });
    let text = '';
    for await (const t of r.textStream) text += t;
    if (err) throw err;
    return { text, finish: await r.finishReason, usage: await r.usage };
  },
  async image() {
    const r = await generateText({ model: m, maxRetries, messages: [{ role: 'user', content: [
      { type: 'text', text: 'What is this?' }, { type: 'image', image: Buffer.from(png, 'base64'), mediaType: 'image/png' }] }] });
    return { text: r.text };
  },
  async tools() {
    const r = await generateText({ model: m, system, prompt, tools, stopWhen: stepCountIs(3), maxRetries });
    return { text: r.text, finish: r.finishReason, steps: r.steps.length, calls: callsOf(r.steps) };
  },
  async stream_tools() {
    let err;
    const r = streamText({ model: m, system, prompt, tools, stopWhen: stepCountIs(3), maxRetries, onError: ({ error }) => { err = error; } });
    let text = '';
    for await (const t of r.textStream) text += t;
    if (err) throw err;
    const steps = await r.steps;
    return { text, finish: await r.finishReason, steps: steps.length, calls: callsOf(steps) };
  },
  async object() {
    const r = await generateObject({ model: m, maxRetries, prompt: 'Is it sunny in Paris? Answer as JSON.',
      schema: z.object({ city: z.string(), sunny: z.boolean() }) });
    return { object: r.object, finish: r.finishReason };
  },
  async errors() {
    return {
      unknown: await thrown(() => generateText({ model: google('no-such-route'), prompt, maxRetries })),
      // A Gemini context cache: served by Gemini targets alone (a 400
      // INVALID_ARGUMENT naming cachedContent on a route without one).
      bad: await thrown(() => generateText({ model: m, prompt, maxRetries, providerOptions: { google: { cachedContent: 'cachedContents/probe69h' } } })),
      stream_unknown: await thrown(async () => {
        let err;
        const r = streamText({ model: google('no-such-route'), prompt, maxRetries, onError: ({ error }) => { err = error; } });
        for await (const _ of r.textStream) { /* drain */ }
        if (err) throw err;
      }),
    };
  },
  // Detour's failures (DETOUR_ERROR_ROUTES): a route whose first target
  // answers 503 (failed over), and a stream cut after its first words
  // (Detour's last data event is Google's error envelope).
  async failures() {
    if (!Object.keys(errorRoutes).length) return { skipped: true };
    const failover = await generateText({ model: google(errorRoutes.failover), prompt, maxRetries });
    let text = '', err, parts = [];
    const r = streamText({ model: google(errorRoutes.cut), prompt, maxRetries, onError: ({ error }) => { err = error; } });
    for await (const p of r.fullStream) {
      parts.push(p.type);
      if (p.type === 'text-delta') text += p.text;
      if (p.type === 'error' && !err) err = p.error;
    }
    let finish;
    try { finish = await r.finishReason; } catch (e) { err = err ?? e; }
    return { failover: { text: failover.text }, cut: { text, finish, parts: [...new Set(parts)], error: err ? errorOf(err) : null } };
  },
});
