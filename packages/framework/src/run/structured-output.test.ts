import { createChatClient } from '@raf/client';
import {
  type MockModelServer,
  type RecordedRequest,
  startMockAnthropicServer,
  startMockModelServer,
} from '@raf/client/testing';
import { type AgentResponseUpdate, defineTool, OutputError } from '@raf/core';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { AgentBuilder } from '../agent/agent-builder.js';

// Issue 32 / SPEC §15: outputSchema → native mode, the final answer validated, one repair, then a
// typed error; `finish` carries `output`; works after tool rounds.

const forecast = z.object({ city: z.string(), celsius: z.number() });
const lookup = defineTool({
  name: 'lookup',
  description: 'Look a city up',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ ok: true, data: { city, celsius: 21 } }),
});

let server: MockModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const agentOn = (srv: MockModelServer, provider: 'custom' | 'anthropic' = 'custom') =>
  new AgentBuilder('weather')
    .chatClient(
      createChatClient({
        provider,
        model: provider === 'anthropic' ? 'claude-sonnet-4-5' : 'm',
        baseURL: srv.baseURL,
        apiKey: 'k',
      }),
    )
    .withTool(lookup)
    .build();

async function collect(stream: AsyncIterable<AgentResponseUpdate>): Promise<AgentResponseUpdate[]> {
  const updates: AgentResponseUpdate[] = [];
  for await (const update of stream) updates.push(update);
  return updates;
}

const messagesOf = (request: RecordedRequest) =>
  (request.body as { messages: { role: string; content: unknown }[] }).messages;

describe('structured output', () => {
  it('validates the answer after two tool rounds: finish carries output, every call asked natively', async () => {
    server = await startMockModelServer({
      turns: [
        { toolCalls: [{ name: 'lookup', arguments: { city: 'Paris' } }] },
        { toolCalls: [{ name: 'lookup', arguments: { city: 'Lyon' } }] },
        { text: '{"city":"Paris","celsius":21}' },
      ],
    });
    const agent = agentOn(server);
    const response = await agent.generate('Weather in Paris?', { output: forecast });
    // Typed by the zod schema: `response.output.celsius` is a number.
    const celsius: number = response.output.celsius;
    expect(celsius).toBe(21);
    expect(response.output).toEqual({ city: 'Paris', celsius: 21 });
    expect(server.requests).toHaveLength(3);
    for (const request of server.requests)
      expect(request.body?.response_format).toMatchObject({
        type: 'json_schema',
        json_schema: { name: 'output' },
      });
  });

  it('repairs an invalid answer once: the model reads what was wrong, on the same session', async () => {
    server = await startMockModelServer({
      turns: [{ text: 'It is 21 degrees.' }, { text: '{"city":"Paris","celsius":21}' }],
    });
    const agent = agentOn(server);
    const session = agent.createSession();
    const updates = await collect(agent.run('Weather?', { session, output: forecast }));
    const finish = updates.at(-1);
    expect(finish).toMatchObject({ type: 'finish', reason: 'stop', output: { city: 'Paris', celsius: 21 } });
    expect(updates.some((u) => u.type === 'warning' && u.code === 'RAF_OUTPUT_REPAIR')).toBe(true);
    const second = messagesOf(server.requests[1]!);
    expect(second.at(-2)).toMatchObject({ role: 'assistant', content: 'It is 21 degrees.' });
    expect(second.at(-1)?.role).toBe('user');
    expect(String(second.at(-1)?.content)).toMatch(
      /not the structured output asked for: the answer is not JSON/,
    );
  });

  it('fails clearly after the one repair: an error update RAF_OUTPUT, and generate throws OutputError', async () => {
    server = await startMockModelServer({ turns: () => ({ text: '{"city":"Paris"}' }) });
    const agent = agentOn(server);
    const updates = await collect(agent.run('Weather?', { output: forecast }));
    expect(updates.filter((u) => u.type === 'error')).toEqual([
      expect.objectContaining({ code: 'RAF_OUTPUT', message: expect.stringMatching(/celsius/) }),
    ]);
    expect(updates.at(-1)).toMatchObject({ type: 'finish', reason: 'other' });
    expect(updates.at(-1)).not.toHaveProperty('output');
    expect(server.requests).toHaveLength(2);

    const error = await agent.generate('Weather?', { output: forecast }).catch((e: unknown) => e);
    expect(OutputError.isInstance(error)).toBe(true);
    expect((error as OutputError).text).toBe('{"city":"Paris"}');
    expect((error as OutputError).issues.join()).toMatch(/celsius/);
  });

  it('a JSON Schema from the builder (YAML outputSchema), over Anthropic: tool rounds, then the forced answer tool', async () => {
    server = await startMockAnthropicServer({
      turns: [
        { toolCalls: [{ name: 'lookup', arguments: { city: 'Paris' } }] },
        { toolCalls: [{ name: 'lookup', arguments: { city: 'Lyon' } }] },
        { toolCalls: [{ name: 'final_answer', arguments: { city: 'Paris', celsius: 21 } }] },
      ],
    });
    const agent = new AgentBuilder('weather')
      .chatClient(
        createChatClient({
          provider: 'anthropic',
          model: 'claude-sonnet-4-5',
          baseURL: server.baseURL,
          apiKey: 'k',
        }),
      )
      .withTool(lookup)
      .outputSchema({
        type: 'object',
        properties: { city: { type: 'string' }, celsius: { type: 'number' } },
        required: ['city', 'celsius'],
      })
      .build();
    const response = await agent.generate('Weather?');
    expect(response.output).toEqual({ city: 'Paris', celsius: 21 });
    expect(response.toolResults.map((r) => r.name)).toEqual(['lookup', 'lookup']);
    const last = server.requests[2]!.body as { tools: { name: string }[]; tool_choice: unknown };
    expect(last.tools.map((t) => t.name)).toEqual(['lookup', 'final_answer']);
    expect(last.tool_choice).toEqual({ type: 'any' });
  });
});
