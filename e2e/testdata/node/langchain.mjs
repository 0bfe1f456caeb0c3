// LangChain JS through one base URL: ChatOpenAI over Chat Completions (its
// default) and over Responses (useResponsesApi), ChatAnthropic over
// Messages — each invoked whole and streamed, with a tool round trip
// (bindTools, the call run locally, a ToolMessage back) and structured
// output (withStructuredOutput) — and OpenAIEmbeddings.
import { z } from 'zod';
import { ChatOpenAI, OpenAIEmbeddings } from '@langchain/openai';
import { ChatAnthropic } from '@langchain/anthropic';
import { tool } from '@langchain/core/tools';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { base, key, model, embedModel, run, errorOf, weatherAnswer } from './lib.mjs';

// DETOUR_STREAM_MODEL, when set, is the model of the streamed cases.
const streamModel = process.env.DETOUR_STREAM_MODEL || model;

// LangChain retries six times by default; the tests want the first answer.
const openai = { apiKey: key, configuration: { baseURL: base + '/v1' }, maxRetries: 0, timeout: 20000 };
const chats = {
  chat: (m = model) => new ChatOpenAI({ model: m, ...openai }),
  responses: (m = model) => new ChatOpenAI({ model: m, ...openai, useResponsesApi: true }),
  anthropic: (m = model) => new ChatAnthropic({ model: m, apiKey: key, anthropicApiUrl: base, maxRetries: 0, maxTokens: 200 }),
};

const getWeather = tool(async (args) => weatherAnswer(args), {
  name: 'get_weather',
  description: 'Weather in a city',
  schema: z.object({ location: z.string().describe('A city') }),
});
const Answer = z.object({ city: z.string(), sunny: z.boolean() });
const prompt = () => [new SystemMessage('You are terse.'), new HumanMessage('What is the weather in Paris?')];

// streamed concatenates a stream's chunks into one message. A failure
// after the first chunk is returned beside the text that came before it.
async function streamed(llm, msgs) {
  let acc, chunks = 0;
  try {
    for await (const c of await llm.stream(msgs)) {
      chunks++;
      acc = acc ? acc.concat(c) : c;
    }
  } catch (e) {
    if (!acc) throw e;
    return { failed: { text: acc.text, error: errorOf(e) } };
  }
  return { msg: acc, chunks };
}

// usageOf is LangChain's usage_metadata in short.
const usageOf = (m) => m?.usage_metadata && { input: m.usage_metadata.input_tokens, output: m.usage_metadata.output_tokens };

const cases = {};
for (const [api, make] of Object.entries(chats)) {
  Object.assign(cases, {
    async [`${api}_invoke`]() {
      const m = await make().invoke(prompt());
      return { text: m.text, usage: usageOf(m) };
    },
    async [`${api}_stream`]() {
      const { msg, chunks, failed } = await streamed(make(streamModel), prompt());
      return failed ?? { text: msg.text, usage: usageOf(msg), chunks };
    },
    async [`${api}_tools`]() {
      const llm = make().bindTools([getWeather]);
      const msgs = prompt();
      const m1 = await llm.invoke(msgs);
      msgs.push(m1);
      for (const c of m1.tool_calls) msgs.push(await getWeather.invoke(c));
      const m2 = await llm.invoke(msgs);
      return { calls: m1.tool_calls.map((c) => ({ name: c.name, arguments: c.args })), text: m2.text };
    },
    async [`${api}_stream_tools`]() {
      const llm = make(streamModel).bindTools([getWeather]);
      const msgs = prompt();
      const { msg: m1, failed } = await streamed(llm, msgs);
      if (failed) return failed;
      msgs.push(m1);
      for (const c of m1.tool_calls) msgs.push(await getWeather.invoke(c));
      const { msg: m2, failed: failed2 } = await streamed(llm, msgs);
      if (failed2) return failed2;
      return { calls: m1.tool_calls.map((c) => ({ name: c.name, arguments: c.args })), text: m2.text };
    },
    // Each model's default method: jsonSchema for ChatOpenAI
    // (response_format / text.format), a forced tool for ChatAnthropic.
    async [`${api}_structured`]() {
      return { object: await make().withStructuredOutput(Answer, { name: 'answer' }).invoke(prompt()) };
    },
    async [`${api}_structured_tool`]() {
      return { object: await make().withStructuredOutput(Answer, { name: 'answer', method: 'functionCalling' }).invoke(prompt()) };
    },
  });
}
// ChatAnthropic's jsonSchema method: Anthropic's own structured output
// (output_config.format).
cases.anthropic_structured_json = async () => ({
  object: await chats.anthropic().withStructuredOutput(Answer, { name: 'answer', method: 'jsonSchema' }).invoke(prompt()),
});
const embeddings = new OpenAIEmbeddings({ model: embedModel, ...openai });
cases.embed_documents = async () => ({ vectors: await embeddings.embedDocuments(['alpha', 'beta']) });
cases.embed_query = async () => ({ vector: await embeddings.embedQuery('alpha') });
cases.embed_dimensions = async () => ({
  vector: await new OpenAIEmbeddings({ model: embedModel, dimensions: 2, ...openai }).embedQuery('alpha'),
});
for (const api of Object.keys(chats)) {
  cases[`${api}_error_model`] = async () => {
    await chats[api]('no-such-route').invoke('hi');
    return { unexpected: 'no error' };
  };
}
cases.error_key = async () => {
  await new ChatOpenAI({ model, ...openai, apiKey: 'not-a-client-key' }).invoke('hi');
  return { unexpected: 'no error' };
};
await run(cases);
