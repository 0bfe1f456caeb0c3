// Probe 67e (e2e/clients67e_test.go): what the clients pinned since 2026-12-07
// send that the versions before them did not.
//   - @anthropic-ai/sdk 1.17.0's output format helper keeps a description
//     beside a $ref (and zod 4.3.2 or newer puts .describe() of an
//     .optional() or .default() field there): output_config.format's
//     properties are {"$ref": …, "description": …}.
//   - @ai-sdk/anthropic 4.0.111 keeps a later system message in the
//     conversation (midConversationSystemMessages), with no system message
//     before it, and puts a system message's cache control on its last
//     tool change when it carries only tool changes.
// Each case prints what the client got.
import Anthropic from '@anthropic-ai/sdk';
import { zodOutputFormat } from '@anthropic-ai/sdk/helpers/zod';
import { z } from 'zod';
import { generateText, tool, jsonSchema } from 'ai';
import { createAnthropic } from '@ai-sdk/anthropic';
import { base, key, model, run, weatherSchema, weatherAnswer } from './lib.mjs';

globalThis.AI_SDK_LOG_WARNINGS = false;

// Both fields described, one optional and one with a default: each is a
// $ref with a description beside it.
const Answer = z.object({
  city: z.string().optional().describe('The city'),
  sunny: z.boolean().default(false).describe('Whether it is sunny'),
});
const prompt = 'Is it sunny in Paris? Answer with the city and whether it is sunny.';
const an = new Anthropic({ baseURL: base, apiKey: key, maxRetries: 0, timeout: 20000 });
const aiAnthropic = createAnthropic({ baseURL: base + '/v1', apiKey: key })(model);
const maxRetries = 0;

const cases = {
  async sdk_parse_ref() {
    const r = await an.messages.parse({ model, max_tokens: 200, messages: [{ role: 'user', content: prompt }], output_config: { format: zodOutputFormat(Answer) } });
    return { object: r.parsed_output, stop: r.stop_reason };
  },
  async sdk_parse_ref_stream() {
    const s = an.messages.stream({ model, max_tokens: 200, messages: [{ role: 'user', content: prompt }], output_config: { format: zodOutputFormat(Answer) } });
    const r = await s.finalMessage();
    return { object: r.parsed_output, stop: r.stop_reason };
  },
  // A system message after the first turn, none before it: kept in place.
  async ai_mid_system() {
    const r = await generateText({
      model: aiAnthropic, maxRetries, allowSystemInMessages: true,
      providerOptions: { anthropic: { midConversationSystemMessages: true } },
      messages: [
        { role: 'user', content: 'Hello.' },
        { role: 'assistant', content: 'Hi.' },
        { role: 'system', content: 'From now on answer in one word.' },
        { role: 'user', content: 'What is the weather in Paris?' },
      ],
    });
    return { text: r.text, finish: r.finishReason };
  },
  // A system message that only adds a deferred tool, with cache control:
  // the cache control goes on the tool_addition block.
  async ai_tool_change_cache() {
    const r = await generateText({
      model: aiAnthropic, maxRetries, allowSystemInMessages: true,
      tools: {
        get_weather: tool({
          description: 'Weather in a city', inputSchema: jsonSchema(weatherSchema),
          execute: async (args) => weatherAnswer(args),
          providerOptions: { anthropic: { deferLoading: true } },
        }),
      },
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'What is the weather in Paris?' },
        { role: 'system', content: '', providerOptions: { anthropic: { toolChanges: [{ type: 'tool_addition', toolName: 'get_weather' }], cacheControl: { type: 'ephemeral' } } } },
      ],
    });
    return { text: r.text, finish: r.finishReason, calls: r.toolCalls.map((c) => c.toolName) };
  },
};
await run(cases);
