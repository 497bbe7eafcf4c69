import { assistantMessage, systemMessage, toolMessage, userMessage } from '@raf/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createChatClient, createOpenAIResponsesClient } from '../providers.js';
import { type MockModelServer, startMockResponsesServer } from '../testing/mock-server.js';
import { drain } from '../testing/test-helpers.js';
import { OpenAIResponsesChatClient } from './responses-client.js';

let server: MockModelServer | undefined;
let client: OpenAIResponsesChatClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

const tool = {
  name: 'get_weather',
  description: 'Weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
};

describe('the OpenAI Responses API client', () => {
  it('sends the conversation as input items, store false with encrypted reasoning asked for, tools and options', async () => {
    server = await startMockResponsesServer({ turns: [{ text: 'ok' }] });
    client = new OpenAIResponsesChatClient({
      model: 'gpt-5-mini',
      baseURL: server.baseURL,
      apiKey: 'sk-test',
      modelOptions: { temperature: 0.2, maxTokens: 100, reasoningEffort: 'low' },
    });
    const call = { id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' };
    await drain(
      client.run(
        [
          systemMessage('Be brief.'),
          userMessage('Weather?'),
          assistantMessage('', [call]),
          toolMessage('{"ok":true,"data":"sunny"}', 'call_1'),
        ],
        { tools: [tool], toolChoice: { name: 'get_weather' }, parallelToolCalls: false },
      ),
    );
    const request = server.requests[0]!;
    expect(request.path).toBe('/v1/responses');
    expect(request.headers.authorization).toBe('Bearer sk-test');
    expect(request.body).toEqual({
      model: 'gpt-5-mini',
      input: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather?' },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_1', output: '{"ok":true,"data":"sunny"}' },
      ],
      stream: true,
      store: false,
      include: ['reasoning.encrypted_content'],
      temperature: 0.2,
      max_output_tokens: 100,
      reasoning: { effort: 'low' },
      tools: [{ type: 'function', ...tool, strict: false }],
      tool_choice: { type: 'function', name: 'get_weather' },
      parallel_tool_calls: false,
    });
  });

  it('carries the reasoning items of a round, encrypted, back with the calls they led to', async () => {
    server = await startMockResponsesServer({
      turns: [
        {
          reasoning: 'Need the weather.',
          toolCalls: [{ id: 'call_w', name: 'get_weather', arguments: { city: 'Oslo' } }],
        },
        { text: 'It is cold.' },
      ],
    });
    client = createOpenAIResponsesClient({ model: 'o4-mini', baseURL: server.baseURL, apiKey: 'k' });
    const first = await drain(client.run([userMessage('Oslo?')], { tools: [tool] }));
    expect(
      first
        .filter((u) => u.type === 'reasoning-delta')
        .map((u) => (u as { delta: string }).delta)
        .join(''),
    ).toBe('Need the weather.');
    expect(first.at(-1)).toEqual({ type: 'finish', reason: 'toolCalls' });
    const call = { id: 'call_w', name: 'get_weather', arguments: '{"city":"Oslo"}' };
    const second = await drain(
      client.run(
        [
          userMessage('Oslo?'),
          assistantMessage('', [call]),
          toolMessage('{"ok":true,"data":"-5"}', 'call_w'),
        ],
        { tools: [tool] },
      ),
    );
    // The mock refuses (400) a reasoning item without its encrypted content, as the API does.
    expect(
      second
        .filter((u) => u.type === 'text-delta')
        .map((u) => (u as { delta: string }).delta)
        .join(''),
    ).toBe('It is cold.');
    expect((server.requests[1]!.body as { input: unknown[] }).input.slice(1, 3)).toEqual([
      {
        type: 'reasoning',
        id: 'rs_mock_0',
        summary: [{ type: 'summary_text', text: 'Need the weather.' }],
        encrypted_content: 'mock-encrypted-0',
      },
      { type: 'function_call', call_id: 'call_w', name: 'get_weather', arguments: '{"city":"Oslo"}' },
    ]);
  });

  it('reads a non-streamed answer, and says length when the output budget ran out', async () => {
    server = await startMockResponsesServer({
      turns: [
        {
          text: 'whole',
          usage: { promptTokens: 5, completionTokens: 1, totalTokens: 6, promptCacheHitTokens: 4 },
        },
        { text: 'cut', finishReason: 'length' },
      ],
    });
    client = new OpenAIResponsesChatClient({
      model: 'm',
      baseURL: server.baseURL,
      apiKey: 'k',
      stream: false,
    });
    const whole = await drain(client.run([userMessage('x')]));
    expect(whole).toEqual([
      { type: 'response-metadata', id: 'resp_mock_0', model: 'mock-model' },
      { type: 'text-delta', delta: 'whole' },
      {
        type: 'usage',
        usage: { promptTokens: 5, completionTokens: 1, totalTokens: 6, promptCacheHitTokens: 4 },
      },
      {
        type: 'finish',
        reason: 'stop',
        usage: { promptTokens: 5, completionTokens: 1, totalTokens: 6, promptCacheHitTokens: 4 },
      },
    ]);
    expect((await drain(client.run([userMessage('x')]))).at(-1)).toEqual({
      type: 'finish',
      reason: 'length',
    });
  });

  it('apiType responses picks it from createChatClient (OpenAI-compatible providers only)', async () => {
    server = await startMockResponsesServer({ turns: [{ text: 'hi' }] });
    const made = createChatClient({
      provider: 'custom',
      apiType: 'responses',
      model: 'm',
      baseURL: server.baseURL,
    });
    expect(made).toBeInstanceOf(OpenAIResponsesChatClient);
    client = made as OpenAIResponsesChatClient;
    expect((await drain(client.run([userMessage('x')]))).at(-1)).toEqual({ type: 'finish', reason: 'stop' });
    expect(() =>
      createChatClient({ provider: 'anthropic', apiType: 'responses', model: 'm', apiKey: 'k' }),
    ).toThrow('apiType responses is the OpenAI Responses API; provider anthropic speaks the Messages API');
  });
});
