import { type AgentResponseUpdate, type ChatMessage, systemMessage, userMessage } from '@raf/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type MockModelServer,
  type MockTurnInput,
  startMockAnthropicServer,
} from '../testing/mock-server.js';
import { drain } from '../testing/test-helpers.js';
import { AnthropicChatClient, type AnthropicClientOptions } from './anthropic-client.js';

let server: MockModelServer;
let client: AnthropicChatClient;

async function setup(turns: MockTurnInput[], extra: Partial<AnthropicClientOptions> = {}) {
  server = await startMockAnthropicServer({ turns, model: 'claude-mock' });
  client = new AnthropicChatClient({
    model: 'claude-x',
    baseURL: server.url,
    apiKey: 'sk-ant-test',
    // The wire shapes checked here leave out the cache breakpoints (request-body.test.ts has them).
    modelOptions: { cache: false },
    ...extra,
  });
}

afterEach(async () => {
  await client?.close();
  await server?.close();
});

const weatherTool = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** Joins runs of deltas of one kind (and one call) into one delta. */
function joinDeltas(updates: AgentResponseUpdate[]): AgentResponseUpdate[] {
  const out: AgentResponseUpdate[] = [];
  for (const update of updates) {
    const last = out.at(-1);
    if (
      'delta' in update &&
      last?.type === update.type &&
      'delta' in last &&
      (update.type !== 'tool-call-args' || (last.type === 'tool-call-args' && last.callId === update.callId))
    ) {
      out[out.length - 1] = { ...last, delta: last.delta + update.delta };
    } else out.push(update);
  }
  return out;
}

// Text, tool-call and reasoning streaming, and every fault, are checked for both protocols in
// ../protocol-parity.test.ts.
describe('AnthropicChatClient over HTTP', () => {
  it('gives thinking as reasoning deltas and sends the signed thinking back with the tool calls', async () => {
    await setup([
      {
        reasoning: 'Paris is in France.',
        toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: { city: 'Paris' } }],
      },
      { text: 'Sunny.' },
    ]);
    const thinking = { thinking: { type: 'enabled', budget_tokens: 1024 } };
    const updates = await drain(
      client.run([userMessage('weather?')], { tools: [weatherTool], extraBody: thinking }),
    );
    expect(updates.filter((u) => u.type === 'reasoning-delta')).toEqual([
      { type: 'reasoning-delta', delta: 'Paris is i' },
      { type: 'reasoning-delta', delta: 'n France.' },
    ]);
    const history: ChatMessage[] = [
      userMessage('weather?'),
      {
        role: 'assistant',
        content: '',
        reasoning: 'Paris is in France.',
        toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
      },
      { role: 'tool', content: '{"ok":true,"data":"sun"}', toolCallId: 'toolu_1' },
    ];
    await drain(client.run(history, { tools: [weatherTool], extraBody: thinking }));
    expect(server.requests[1]?.body?.messages).toEqual([
      { role: 'user', content: 'weather?' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Paris is in France.', signature: 'mock-signature-0' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
        ],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '{"ok":true,"data":"sun"}' }],
      },
    ]);
  });

  it('sends system, tool_use and tool_result blocks, tools, options and headers as the Messages API expects', async () => {
    await setup([{ text: 'ok' }], {
      modelOptions: { temperature: 0.2, topP: 0.9, stop: ['END'], seed: 7, cache: false },
      modelMetadata: { contextWindowTokens: 200_000, maxOutputTokens: 8192 },
      headers: { 'anthropic-beta': 'tools-2024' },
      extraBody: { top_k: 5 },
    });
    const history: ChatMessage[] = [
      systemMessage('You are terse.'),
      systemMessage('Use metric units.'),
      userMessage('Weather in Oslo and Rome?'),
      {
        role: 'assistant',
        content: 'Looking.',
        toolCalls: [
          { id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
          { id: 'toolu_2', name: 'get_weather', arguments: '{"city":"Rome"}' },
        ],
      },
      { role: 'tool', content: '{"ok":true,"data":"rain"}', toolCallId: 'toolu_1' },
      { role: 'tool', content: '{"ok":false,"error":"no station"}', toolCallId: 'toolu_2' },
      userMessage('Also tomorrow?'),
    ];
    await drain(
      client.run(history, {
        tools: [weatherTool],
        toolChoice: 'required',
        parallelToolCalls: false,
        extraBody: { metadata: { user_id: 'u1' } },
      }),
    );
    const request = server.requests[0]!;
    expect(request.path).toBe('/v1/messages');
    expect(request.headers['x-api-key']).toBe('sk-ant-test');
    expect(request.headers['anthropic-version']).toBe('2023-06-01');
    expect(request.headers['anthropic-beta']).toBe('tools-2024');
    expect(request.body).toEqual({
      model: 'claude-x',
      max_tokens: 8192,
      system: 'You are terse.\n\nUse metric units.',
      messages: [
        { role: 'user', content: 'Weather in Oslo and Rome?' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Looking.' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } },
            { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Rome' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: '{"ok":true,"data":"rain"}' },
            {
              type: 'tool_result',
              tool_use_id: 'toolu_2',
              content: '{"ok":false,"error":"no station"}',
              is_error: true,
            },
            { type: 'text', text: 'Also tomorrow?' },
          ],
        },
      ],
      stream: true,
      temperature: 0.2,
      top_p: 0.9,
      stop_sequences: ['END'],
      tools: [
        { name: 'get_weather', description: 'Weather for a city', input_schema: weatherTool.parameters },
      ],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      top_k: 5,
      metadata: { user_id: 'u1' },
    });
  });

  it('answers a plain (non-streamed) request with the same updates', async () => {
    const turn = {
      reasoning: 'Hmm.',
      text: 'Plain answer',
      toolCalls: [{ id: 'toolu_9', name: 'get_time', arguments: { zone: 'UTC' } }],
      usage: { promptTokens: 10, completionTokens: 4, totalTokens: 14 },
    };
    await setup([turn, turn]);
    const streamed = await drain(client.run([userMessage('hi')]));
    await client.close();
    client = new AnthropicChatClient({ model: 'claude-x', baseURL: server.url, stream: false });
    const plain = await drain(client.run([userMessage('hi')]));
    expect(server.requests[1]?.body?.stream).toBe(false);
    // The same updates, each delta whole instead of in pieces.
    expect(plain).toEqual(
      joinDeltas(streamed).map((u) => (u.type === 'response-metadata' ? { ...u, id: 'msg_mock_1' } : u)),
    );
    expect(plain.at(-1)).toEqual({
      type: 'finish',
      reason: 'toolCalls',
      usage: { promptTokens: 10, completionTokens: 4, totalTokens: 14 },
    });
  });

  it('maps stop reasons and cache usage', async () => {
    const usage = {
      promptTokens: 100,
      completionTokens: 7,
      totalTokens: 107,
      promptCacheHitTokens: 80,
      promptCacheMissTokens: 20,
    };
    await setup([
      { text: 'cut', finishReason: 'length', usage },
      { text: 'no', finishReason: 'contentFilter' },
    ]);
    const first = await drain(client.run([userMessage('x')]));
    expect(first.slice(-2)).toEqual([
      { type: 'usage', usage },
      { type: 'finish', reason: 'length', usage },
    ]);
    expect((await drain(client.run([userMessage('x')]))).at(-1)).toEqual({
      type: 'finish',
      reason: 'contentFilter',
    });
  });
});
