import { userMessage } from '@raf/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createDeepSeekClient } from '../providers.js';
import { type MockModelServer, type MockTurnInput, startMockModelServer } from '../testing/mock-server.js';
import { drain } from '../testing/test-helpers.js';
import { OpenAICompatibleChatClient } from './openai-compatible-client.js';

let server: MockModelServer;
let client: OpenAICompatibleChatClient;

async function setup(
  turns: MockTurnInput[],
  extra: Partial<ConstructorParameters<typeof OpenAICompatibleChatClient>[0]> = {},
) {
  server = await startMockModelServer({ turns });
  client = new OpenAICompatibleChatClient({
    provider: 'custom',
    model: 'm1',
    baseURL: server.baseURL,
    apiKey: 'sk-test-key',
    ...extra,
  });
}

afterEach(async () => {
  await client?.close();
  await server?.close();
});

describe('OpenAICompatibleChatClient over HTTP', () => {
  it('streams text as deltas and finishes with the usage', async () => {
    await setup([
      { text: 'Hello there world', usage: { promptTokens: 9, completionTokens: 3, totalTokens: 12 } },
    ]);
    const updates = await drain(client.run([userMessage('hi')]));
    const usage = { promptTokens: 9, completionTokens: 3, totalTokens: 12 };
    expect(updates).toEqual([
      { type: 'response-metadata', id: 'chatcmpl-mock-0', model: 'mock-model' },
      { type: 'text-delta', delta: 'Hello ' },
      { type: 'text-delta', delta: 'there ' },
      { type: 'text-delta', delta: 'world' },
      { type: 'usage', usage },
      { type: 'finish', reason: 'stop', usage },
    ]);
  });

  it('answers a plain (non-streamed) request the same way', async () => {
    await setup([{ text: 'Plain answer', usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 } }], {
      stream: false,
    });
    const updates = await drain(client.run([userMessage('hi')]));
    expect(updates.filter((u) => u.type === 'text-delta')).toEqual([
      { type: 'text-delta', delta: 'Plain answer' },
    ]);
    expect(updates.at(-1)).toEqual({
      type: 'finish',
      reason: 'stop',
      usage: { promptTokens: 1, completionTokens: 2, totalTokens: 3 },
    });
    expect(server.requests[0]?.body?.stream).toBe(false);
    expect(server.requests[0]?.body?.stream_options).toBeUndefined();
  });

  it('assembles one tool call whose arguments arrive split across chunks', async () => {
    await setup([
      {
        toolCalls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'src/main.ts' } }],
        argumentChunks: 4,
      },
    ]);
    const updates = (await drain(client.run([userMessage('read it')]))).filter(
      (u) => u.type !== 'response-metadata',
    );
    const args = '{"path":"src/main.ts"}';
    expect(updates[0]).toEqual({ type: 'tool-call-start', callId: 'call_1', name: 'read_file' });
    const deltas = updates.filter((u) => u.type === 'tool-call-args');
    expect(deltas.length).toBe(4);
    expect(deltas.map((u) => (u.type === 'tool-call-args' ? u.delta : '')).join('')).toBe(args);
    expect(updates.slice(-2)).toEqual([
      { type: 'tool-call-end', callId: 'call_1', name: 'read_file', arguments: args },
      { type: 'finish', reason: 'toolCalls' },
    ]);
  });

  it('assembles several parallel tool calls and ends them in call order', async () => {
    await setup([
      {
        text: 'Checking.',
        toolCalls: [
          { id: 'a', name: 'get_weather', arguments: { city: 'Paris' } },
          { id: 'b', name: 'get_weather', arguments: { city: 'Berlin' } },
          { id: 'c', name: 'get_time', arguments: {} },
        ],
      },
    ]);
    const updates = await drain(client.run([userMessage('go')]));
    const ends = updates.filter((u) => u.type === 'tool-call-end');
    expect(ends).toEqual([
      { type: 'tool-call-end', callId: 'a', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'tool-call-end', callId: 'b', name: 'get_weather', arguments: '{"city":"Berlin"}' },
      { type: 'tool-call-end', callId: 'c', name: 'get_time', arguments: '{}' },
    ]);
    expect(
      updates
        .filter((u) => u.type === 'tool-call-start')
        .map((u) => u.type === 'tool-call-start' && u.callId),
    ).toEqual(['a', 'b', 'c']);
    expect(updates.at(-1)).toEqual({ type: 'finish', reason: 'toolCalls' });
  });

  it('reads DeepSeek reasoning content and cache-hit usage, and sends thinking via extra body', async () => {
    server = await startMockModelServer({
      turns: [
        {
          reasoning: 'Let me think.',
          text: 'Answer',
          rawUsage: {
            prompt_tokens: 100,
            completion_tokens: 20,
            total_tokens: 120,
            prompt_cache_hit_tokens: 60,
            prompt_cache_miss_tokens: 40,
            completion_tokens_details: { reasoning_tokens: 12 },
          },
        },
      ],
    });
    client = createDeepSeekClient({
      model: 'deepseek-chat',
      baseURL: server.baseURL,
      apiKey: 'k',
      extraBody: { thinking: { type: 'enabled' } },
    });
    const updates = await drain(client.run([userMessage('why?')]));
    expect(
      updates
        .filter((u) => u.type === 'reasoning-delta')
        .map((u) => u.type === 'reasoning-delta' && u.delta)
        .join(''),
    ).toBe('Let me think.');
    expect(updates.find((u) => u.type === 'usage')).toEqual({
      type: 'usage',
      usage: {
        promptTokens: 100,
        completionTokens: 20,
        totalTokens: 120,
        promptCacheHitTokens: 60,
        promptCacheMissTokens: 40,
        reasoningTokens: 12,
      },
    });
    expect(server.requests[0]?.body?.thinking).toEqual({ type: 'enabled' });
    expect(client.provider).toBe('deepseek');
  });

  it('sends DeepSeek reasoning back on assistant tool-call messages, and only for DeepSeek', async () => {
    server = await startMockModelServer({ turns: [{ text: 'a' }, { text: 'b' }] });
    const history = [
      userMessage('weather?'),
      {
        role: 'assistant' as const,
        content: '',
        reasoning: 'I should look it up.',
        toolCalls: [{ id: 'c1', name: 'get_weather', arguments: '{}' }],
      },
      { role: 'tool' as const, content: '{"ok":true}', toolCallId: 'c1' },
      { role: 'assistant' as const, content: 'Sunny.', reasoning: 'Done thinking.' },
    ];
    client = createDeepSeekClient({ model: 'deepseek-chat', baseURL: server.baseURL, apiKey: 'k' });
    await drain(client.run(history));
    const deepseekSent = server.requests[0]?.body?.messages as Record<string, unknown>[];
    expect(deepseekSent[1]?.reasoning_content).toBe('I should look it up.');
    // Thinking mode needs it only on tool-call turns; plain answers stay as they were.
    expect(deepseekSent[3]?.reasoning_content).toBeUndefined();
    await client.close();
    client = new OpenAICompatibleChatClient({ provider: 'openai', model: 'm', baseURL: server.baseURL });
    await drain(client.run(history));
    const openaiSent = server.requests[1]?.body?.messages as Record<string, unknown>[];
    expect(openaiSent[1]?.reasoning_content).toBeUndefined();
  });

  it('reads OpenAI cached and reasoning token details', async () => {
    const usage = {
      promptTokens: 50,
      completionTokens: 5,
      totalTokens: 55,
      promptCacheHitTokens: 32,
      reasoningTokens: 3,
    };
    await setup([{ text: 'x', usage }]);
    const updates = await drain(client.run([userMessage('x')]));
    // The mock sends OpenAI's wire shape (prompt_tokens_details, completion_tokens_details).
    expect(updates.find((u) => u.type === 'usage')).toEqual({ type: 'usage', usage });
  });

  it('sends messages, tools, model options, extra body and headers as the protocol expects', async () => {
    await setup([{ text: 'ok' }], {
      modelOptions: { temperature: 0.2, maxTokens: 100 },
      headers: { 'x-team': 'raf' },
    });
    await drain(
      client.run(
        [
          { role: 'system', content: 'Be brief.' },
          userMessage('weather?'),
          {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 'c1', name: 'get_weather', arguments: '{"city":"Oslo"}' }],
          },
          { role: 'tool', content: '{"ok":true,"data":"rain"}', toolCallId: 'c1' },
        ],
        {
          tools: [
            { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: {} } },
          ],
          toolChoice: 'auto',
          parallelToolCalls: true,
          modelOptions: { temperature: 0.7, seed: 7 },
          extraBody: { user: 'u1' },
          extraHeaders: { 'x-run': 'r1' },
        },
      ),
    );
    const request = server.requests[0]!;
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.headers.authorization).toBe('Bearer sk-test-key');
    expect(request.headers['x-team']).toBe('raf');
    expect(request.headers['x-run']).toBe('r1');
    expect(request.body).toEqual({
      model: 'm1',
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.7,
      max_tokens: 100,
      seed: 7,
      user: 'u1',
      tool_choice: 'auto',
      parallel_tool_calls: true,
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Weather',
            parameters: { type: 'object', properties: {} },
          },
        },
      ],
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'weather?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
          ],
        },
        { role: 'tool', content: '{"ok":true,"data":"rain"}', tool_call_id: 'c1' },
      ],
    });
  });

  it('closes the connection when the consumer stops reading early', async () => {
    await setup([{ text: 'one two three four five six', chunkDelayMs: 20 }]);
    for await (const update of client.run([userMessage('x')])) {
      if (update.type === 'text-delta') break;
    }
    await new Promise((r) => setTimeout(r, 100));
    expect(server.requests[0]?.closedEarly).toBe(true);
  });
});
