import { type BaseEvent, HttpAgent } from '@ag-ui/client';
import { OpenAICompatibleChatClient } from '@raf/client';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { defineTool, toolSuccess } from '@raf/core';
import { AgentBuilder } from '@raf/framework';
import { AbstractChat, type ChatState, type ChatStatus, DefaultChatTransport, type UIMessage } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Served, serve, TOKEN_A, TOKEN_B, until } from '../test-support/served-fixture.js';

// A call's question (what an MCP elicitation becomes: `ctx.requestInput`) through real clients:
// the AI SDK's chat sees a `data-input-request` part, @ag-ui/client a CUSTOM event; the answer
// goes to `POST /v1/runs/{id}/answers` and the same stream goes on to the end.
let model: MockModelServer;
let client: OpenAICompatibleChatClient;
let served: Served;
const answers: unknown[] = [];

beforeAll(async () => {
  model = await startMockModelServer({
    recordRequests: false,
    turns: (request) => {
      const messages = (request.body?.messages ?? []) as { role: string }[];
      return messages.at(-1)?.role === 'tool'
        ? { text: 'nice to meet you' }
        : { toolCalls: [{ id: `q${messages.length}`, name: 'greet', arguments: {} }] };
    },
  });
  client = new OpenAICompatibleChatClient({ model: 'mock', baseURL: model.baseURL, maxRetries: 0 });
  const greet = defineTool({
    name: 'greet',
    description: 'Asks the user their name',
    parameters: z.object({}),
    execute: async (_args, ctx) => {
      const answer = await ctx.requestInput!({
        source: 'tool:greet',
        message: 'What is your name?',
        mode: 'form',
        schema: {
          type: 'object',
          properties: { name: { type: 'string', minLength: 1 } },
          required: ['name'],
        },
      });
      answers.push(answer);
      return toolSuccess(answer);
    },
  });
  const asker = new AgentBuilder('asker').chatClient(client).withTools([greet]).build();
  served = await serve({ agents: [{ name: 'asker', agent: async () => asker }] } as never);
});
afterAll(async () => {
  await served?.close();
  await client?.close();
  await model?.close();
});

const answer = (runId: string, questionId: string, name: string, token = TOKEN_A) =>
  fetch(`${served.url}/v1/runs/${runId}/answers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ answers: [{ questionId, action: 'accept', content: { name } }] }),
  });

class MemoryState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  messages: UIMessage[] = [];
  pushMessage = (message: UIMessage) => {
    this.messages = [...this.messages, message];
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = this.messages.map((m, i) => (i === index ? message : m));
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

describe('questions of a running call through the protocols', () => {
  it("the AI SDK's chat gets a data-input-request part; the API's answer lets the same stream finish", async () => {
    answers.length = 0;
    const chat = new (class extends AbstractChat<UIMessage> {})({
      state: new MemoryState(),
      transport: new DefaultChatTransport({
        api: `${served.url}/v1/agents/asker/chat`,
        headers: { authorization: `Bearer ${TOKEN_A}` },
      }),
    });
    const sent = chat.sendMessage({ text: 'hello' });
    const question = () =>
      chat.messages.at(-1)?.parts.find((p) => p.type === 'data-input-request') as
        | { id: string; data: { runId: string; questionId: string; message: string } }
        | undefined;
    await until(() => question() !== undefined, 'the question');
    const { data } = question()!;
    expect(data).toMatchObject({ message: 'What is your name?', questionId: question()!.id });
    expect((await answer(data.runId, data.questionId, 'Eve', TOKEN_B)).status).toBe(404);
    expect((await answer(data.runId, data.questionId, 'Ada')).status).toBe(202);
    await sent;
    expect(chat.error).toBeUndefined();
    const last = chat.messages.at(-1)!;
    expect(last.parts.find((p) => p.type === 'dynamic-tool')).toMatchObject({ state: 'output-available' });
    expect(last.parts.some((p) => p.type === 'text' && p.text.includes('nice to meet you'))).toBe(true);
    expect(answers).toEqual([{ action: 'accept', content: { name: 'Ada' } }]);
  }, 60_000);

  it('@ag-ui/client gets a CUSTOM raf.input-request event; the answer lets the run finish', async () => {
    answers.length = 0;
    const agent = new HttpAgent({
      url: `${served.url}/v1/agents/asker/ag-ui`,
      headers: { authorization: `Bearer ${TOKEN_A}` },
      threadId: 'questions-thread',
      initialMessages: [{ id: 'u1', role: 'user', content: 'hello' }],
    });
    const events: BaseEvent[] = [];
    const subscriber = {
      onEvent: ({ event }: { event: BaseEvent }) => {
        events.push(event);
        const custom = event as BaseEvent & {
          name?: string;
          value?: { runId: string; questionId: string };
        };
        if (custom.type === 'CUSTOM' && custom.name === 'raf.input-request')
          void answer(custom.value!.runId, custom.value!.questionId, 'Grace');
      },
    };
    await agent.runAgent({ runId: 'ag-run-1' }, subscriber);
    const types = events.map((e) => e.type as string);
    expect(types).toContain('CUSTOM');
    expect(types.indexOf('CUSTOM')).toBeLessThan(types.indexOf('TOOL_CALL_RESULT'));
    expect((events.at(-1) as { outcome?: { type: string } }).outcome?.type).toBe('success');
    expect(answers).toEqual([{ action: 'accept', content: { name: 'Grace' } }]);
  }, 60_000);
});
