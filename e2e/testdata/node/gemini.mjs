// Google's Gen AI SDK (npm "@google/genai") through one base URL
// (httpOptions.baseUrl): generateContent whole and streamed, a chat, a
// function call round trip (whole and streamed), JSON output, countTokens,
// the model list, embedContent (one content and several: the SDK sends
// both as :batchEmbedContents), and the errors the SDK raises (ApiError).
// DETOUR_EMBED_REFUSED asks embedContent of the chat route, which has no
// target that embeds. DETOUR_API_VERSION
// sets the SDK's apiVersion (v1beta by default).
import { GoogleGenAI, FunctionCallingConfigMode } from '@google/genai';
import { base, key, model, embedModel, run, weatherSchema, weatherAnswer, png } from './lib.mjs';

const ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: base, apiVersion: process.env.DETOUR_API_VERSION || 'v1beta', timeout: 20000 } });

const system = 'You are terse.';
const user = 'What is the weather in Paris?';
const tools = [{ functionDeclarations: [{ name: 'get_weather', description: 'Weather in a city', parametersJsonSchema: weatherSchema }] }];
const errorRoutes = Object.fromEntries((process.env.DETOUR_ERROR_ROUTES || '').split(',').filter(Boolean).map((kv) => kv.split('=')));

const finishOf = (r) => r.candidates?.[0]?.finishReason;

// apiError describes an ApiError: its status and message (the error body).
const apiError = async (fn) => {
  try {
    await fn();
    return { thrown: false };
  } catch (e) {
    let body = null;
    try { body = JSON.parse(String(e.message).replace(/^got status: [A-Z_]+\. /, '')); } catch {}
    return { thrown: true, class: e.constructor?.name, status: e.status, message: String(e.message).slice(0, 500), body };
  }
};

// roundTrip asks, answers its function calls locally, and asks again.
async function roundTrip(stream) {
  const config = { systemInstruction: system, tools, toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.AUTO } } };
  const contents = [{ role: 'user', parts: [{ text: user }] }];
  const ask = async () => {
    if (!stream) return ai.models.generateContent({ model, contents, config });
    let last, parts = [];
    for await (const c of await ai.models.generateContentStream({ model, contents, config })) {
      parts.push(...(c.candidates?.[0]?.content?.parts ?? []));
      last = c;
    }
    return { parts, finish: finishOf(last), functionCalls: parts.filter((p) => p.functionCall).map((p) => p.functionCall), text: parts.filter((p) => p.text && !p.thought).map((p) => p.text).join('') };
  };
  const r1 = await ask();
  const calls = r1.functionCalls ?? [];
  if (!calls.length) return { calls: [], text: r1.text };
  contents.push(stream ? { role: 'model', parts: r1.parts } : r1.candidates[0].content);
  contents.push({ role: 'user', parts: calls.map((c) => ({ functionResponse: { id: c.id, name: c.name, response: { output: weatherAnswer(c.args) } } })) });
  const r2 = await ask();
  return { calls: calls.map((c) => ({ name: c.name, arguments: c.args })), text: r2.text, finish: stream ? r2.finish : finishOf(r2) };
}

await run({
  async generate() {
    const r = await ai.models.generateContent({ model, contents: user, config: { systemInstruction: system, temperature: 0.2, maxOutputTokens: 200 } });
    return { text: r.text, finish: finishOf(r), role: r.candidates[0].content.role, usage: r.usageMetadata, modelVersion: r.modelVersion };
  },
  async stream() {
    let text = '', finish, usage, chunks = 0;
    for await (const c of await ai.models.generateContentStream({ model, contents: user, config: { systemInstruction: system } })) {
      chunks++;
      text += c.text ?? '';
      finish = finishOf(c) ?? finish;
      usage = c.usageMetadata ?? usage;
    }
    return { text, finish, usage, chunks };
  },
  // A chat keeps a streamed turn in its history only when every chunk is
  // valid (content with parts).
  async chat_stream() {
    const chat = ai.chats.create({ model, config: { systemInstruction: system } });
    let text = '';
    for await (const c of await chat.sendMessageStream({ message: user })) text += c.text ?? '';
    const h = chat.getHistory(true);
    return { text, history: h.map((c) => c.role) };
  },
  async image() {
    const r = await ai.models.generateContent({ model, contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: png } }, { text: 'What is this?' }] }] });
    return { text: r.text, finish: finishOf(r) };
  },
  async tools() { return roundTrip(false); },
  async stream_tools() { return roundTrip(true); },
  async json() {
    const r = await ai.models.generateContent({ model, contents: 'Is it sunny in Paris? Answer as JSON.',
      config: { responseMimeType: 'application/json', responseJsonSchema: { type: 'object', properties: { city: { type: 'string' }, sunny: { type: 'boolean' } }, required: ['city', 'sunny'] } } });
    return { object: JSON.parse(r.text), finish: finishOf(r) };
  },
  async count() {
    const r = await ai.models.countTokens({ model, contents: user });
    return { totalTokens: r.totalTokens };
  },
  async models() {
    const names = [];
    for await (const m of await ai.models.list()) names.push(m.name);
    const one = await ai.models.get({ model });
    return { names, one: { name: one.name, methods: one.supportedActions } };
  },
  async embed() {
    const one = await ai.models.embedContent({ model: embedModel, contents: 'Paris is sunny.',
      config: { outputDimensionality: 4, taskType: 'RETRIEVAL_DOCUMENT', title: 'Weather' } });
    const several = await ai.models.embedContent({ model: embedModel, contents: ['one', 'two', 'three'], config: { taskType: 'RETRIEVAL_QUERY' } });
    const out = { one: one.embeddings.map((e) => e.values.length), several: several.embeddings.map((e) => e.values.length), first: several.embeddings[0].values };
    if (process.env.DETOUR_EMBED_REFUSED) out.refused = await apiError(() => ai.models.embedContent({ model, contents: 'x' }));
    if (errorRoutes.failover) out.failover = (await ai.models.embedContent({ model: errorRoutes.failover, contents: ['a', 'b'] })).embeddings.map((e) => e.values.length);
    return out;
  },
  async errors() {
    if (!Object.keys(errorRoutes).length) return { skipped: true };
    return {
      unknown: await apiError(() => ai.models.generateContent({ model: 'no-such-route', contents: user })),
      bad: await apiError(() => ai.models.generateContent({ model, contents: user, config: { candidateCount: 2 } })),
      failover: await (async () => { const r = await ai.models.generateContent({ model: errorRoutes.failover, contents: user }); return { text: r.text }; })(),
      cut: await apiError(async () => { let t = ''; for await (const c of await ai.models.generateContentStream({ model: errorRoutes.cut, contents: user })) t += c.text ?? ''; }),
    };
  },
});
