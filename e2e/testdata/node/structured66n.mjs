// Probe 66n: structured output through every JavaScript client's own
// helper — the openai SDK's parse helpers (zod, Chat Completions and
// Responses, whole and streamed), the AI SDK's Output.object (OpenAI
// Responses and Chat, Anthropic; generateText and streamText) and
// LangChain's withStructuredOutput (ChatOpenAI, ChatAnthropic's default
// forced tool and its jsonSchema method). Each case prints the object.
import OpenAI from 'openai';
import { zodResponseFormat, zodTextFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { generateText, streamText, Output } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { createAnthropic } from '@ai-sdk/anthropic';
import { ChatOpenAI } from '@langchain/openai';
import { ChatAnthropic } from '@langchain/anthropic';
import { base, key, model, run } from './lib.mjs';

const Answer = z.object({ city: z.string(), sunny: z.boolean() });
const prompt = 'Is it sunny in Paris? Answer with the city and whether it is sunny.';
const client = new OpenAI({ baseURL: base + '/v1', apiKey: key, maxRetries: 0, timeout: 20000 });
const messages = [{ role: 'user', content: prompt }];
const ai = { responses: createOpenAI({ baseURL: base + '/v1', apiKey: key }), anthropic: createAnthropic({ baseURL: base + '/v1', apiKey: key }) };
const aiModels = { ai_responses: ai.responses(model), ai_chat: ai.responses.chat(model), ai_anthropic: ai.anthropic(model) };
const openai = { apiKey: key, configuration: { baseURL: base + '/v1' }, maxRetries: 0 };

const cases = {
  async parse_chat() {
    const r = await client.chat.completions.parse({ model, messages, response_format: zodResponseFormat(Answer, 'answer') });
    return { object: r.choices[0].message.parsed, finish: r.choices[0].finish_reason };
  },
  async parse_chat_stream() {
    const s = client.chat.completions.stream({ model, messages, response_format: zodResponseFormat(Answer, 'answer') });
    const r = await s.finalChatCompletion();
    return { object: r.choices[0].message.parsed, finish: r.choices[0].finish_reason };
  },
  async parse_responses() {
    const r = await client.responses.parse({ model, input: prompt, text: { format: zodTextFormat(Answer, 'answer') } });
    return { object: r.output_parsed, status: r.status };
  },
  async parse_responses_stream() {
    const s = client.responses.stream({ model, input: prompt, text: { format: zodTextFormat(Answer, 'answer') } });
    const r = await s.finalResponse();
    return { object: r.output_parsed, status: r.status };
  },
  async lc_chat() { return { object: await new ChatOpenAI({ model, ...openai }).withStructuredOutput(Answer, { name: 'answer' }).invoke(prompt) }; },
  async lc_chat_stream() {
    let last;
    for await (const c of await new ChatOpenAI({ model, ...openai, streaming: true }).withStructuredOutput(Answer, { name: 'answer' }).stream(prompt)) last = c;
    return { object: last };
  },
  async lc_responses() { return { object: await new ChatOpenAI({ model, ...openai, useResponsesApi: true }).withStructuredOutput(Answer, { name: 'answer' }).invoke(prompt) }; },
  async lc_anthropic() { return { object: await new ChatAnthropic({ model, apiKey: key, anthropicApiUrl: base, maxRetries: 0, maxTokens: 200 }).withStructuredOutput(Answer, { name: 'answer' }).invoke(prompt) }; },
  async lc_anthropic_json() { return { object: await new ChatAnthropic({ model, apiKey: key, anthropicApiUrl: base, maxRetries: 0, maxTokens: 200 }).withStructuredOutput(Answer, { name: 'answer', method: 'jsonSchema' }).invoke(prompt) }; },
};
for (const [name, m] of Object.entries(aiModels)) {
  cases[name] = async () => {
    const r = await generateText({ model: m, prompt, output: Output.object({ schema: Answer }), maxRetries: 0 });
    return { object: r.output, finish: r.finishReason };
  };
  cases[name + '_stream'] = async () => {
    let err;
    const r = streamText({ model: m, prompt, output: Output.object({ schema: Answer }), maxRetries: 0, onError: ({ error }) => { err = error; } });
    for await (const _ of r.textStream);
    if (err) throw err;
    return { object: await r.output, finish: await r.finishReason };
  };
}
await run(cases);
