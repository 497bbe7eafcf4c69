import { collectAgentResponse, type OutputSchema, userMessage } from '@raf/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createChatClient } from '../providers.js';
import {
  type MockModelServer,
  startMockAnthropicServer,
  startMockModelServer,
  startMockResponsesServer,
} from '../testing/mock-server.js';
import { isStrictSchema } from './output-format.js';

const weather: OutputSchema = {
  name: 'weather',
  schema: {
    type: 'object',
    properties: { city: { type: 'string' }, celsius: { type: 'number' } },
    required: ['city', 'celsius'],
    additionalProperties: false,
  },
};
const tool = { name: 'lookup', description: 'Look up', parameters: { type: 'object', properties: {} } };

let server: MockModelServer | undefined;
let client: { close(): Promise<void> } | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

describe('an output schema on each wire format', () => {
  it('Chat Completions: response_format json_schema, strict when the schema allows it', async () => {
    server = await startMockModelServer({
      turns: [{ text: '{"city":"Paris","celsius":21}' }, { text: '{}' }],
    });
    const chat = createChatClient({ provider: 'custom', model: 'm', baseURL: server.baseURL });
    client = chat;
    await collectAgentResponse(chat.run([userMessage('weather?')], { modelOptions: { output: weather } }));
    expect(server.requests[0]!.body?.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'weather', schema: weather.schema, strict: true },
    });
    const loose = { schema: { type: 'object', properties: { city: { type: 'string' } } } };
    await collectAgentResponse(chat.run([userMessage('weather?')], { modelOptions: { output: loose } }));
    expect(server.requests[1]!.body?.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'output', schema: loose.schema, strict: false },
    });
  });

  it('Responses: text.format json_schema', async () => {
    server = await startMockResponsesServer({ turns: [{ text: '{"city":"Paris","celsius":21}' }] });
    const responses = createChatClient({
      provider: 'openai',
      apiType: 'responses',
      model: 'gpt-5',
      baseURL: server.baseURL,
      apiKey: 'k',
    });
    client = responses;
    await collectAgentResponse(
      responses.run([userMessage('weather?')], { modelOptions: { output: weather } }),
    );
    expect(server.requests[0]!.body?.text).toEqual({
      format: { type: 'json_schema', name: 'weather', schema: weather.schema, strict: true },
    });
  });

  it('Anthropic: a forced output tool whose call comes back as the answer text, finish stop', async () => {
    server = await startMockAnthropicServer({
      turns: [
        { toolCalls: [{ name: 'final_answer', arguments: { city: 'Paris', celsius: 21 } }] },
        { toolCalls: [{ name: 'lookup', arguments: {} }] },
      ],
    });
    const anthropic = createChatClient({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      baseURL: server.baseURL,
      apiKey: 'k',
      modelOptions: { cache: false },
    });
    client = anthropic;
    const answer = await collectAgentResponse(
      anthropic.run([userMessage('weather?')], { modelOptions: { output: weather } }),
    );
    expect(JSON.parse(answer.text)).toEqual({ city: 'Paris', celsius: 21 });
    expect(answer.toolCalls).toEqual([]);
    expect(answer.finishReason).toBe('stop');
    const body = server.requests[0]!.body as { tools: { name: string }[]; tool_choice: unknown };
    expect(body.tools).toEqual([
      expect.objectContaining({ name: 'final_answer', input_schema: weather.schema }),
    ]);
    expect(body.tool_choice).toEqual({ type: 'tool', name: 'final_answer' });

    // Beside the agent's tools: any tool call is required; a real call stays a call.
    const withTools = await collectAgentResponse(
      anthropic.run([userMessage('weather?')], { modelOptions: { output: weather }, tools: [tool] }),
    );
    expect(withTools.toolCalls.map((call) => call.name)).toEqual(['lookup']);
    expect(withTools.finishReason).toBe('toolCalls');
    const second = server.requests[1]!.body as { tools: { name: string }[]; tool_choice: unknown };
    expect(second.tools.map((t) => t.name)).toEqual(['lookup', 'final_answer']);
    expect(second.tool_choice).toEqual({ type: 'any' });
  });

  it('tells strict-compatible schemas from loose ones', () => {
    expect(isStrictSchema(weather.schema)).toBe(true);
    expect(
      isStrictSchema({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false }),
    ).toBe(false);
    expect(
      isStrictSchema({
        type: 'object',
        properties: {
          list: { type: 'array', items: { type: 'object', properties: { x: { type: 'number' } } } },
        },
        required: ['list'],
        additionalProperties: false,
      }),
    ).toBe(false);
  });
});
