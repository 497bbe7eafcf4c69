import { randomUUID } from 'node:crypto';
import type { Message, StreamResponse } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { ScriptedChatClient } from '@raf/client/testing';
import { defineTool, toolSuccess } from '@raf/core';
import { AgentBuilder, type AgentSession, type RunEvent, RunEventMapper } from '@raf/framework';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { stateName, textOfParts } from '../client/a2a-events.js';
import { type SdkA2AServer, startSdkA2AServer } from '../test-support/sdk-a2a-server.js';
import { type A2ARunEvent, RafAgentExecutor } from './agent-executor.js';

let server: SdkA2AServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A RAF agent with a lookup tool and a gated `publish`, on a scripted model. */
function rafAgent() {
  const model = new ScriptedChatClient([
    { toolCalls: [{ id: 'c1', name: 'lookup', arguments: { q: 'weather' } }] },
    { toolCalls: [{ id: 'c2', name: 'publish', arguments: { text: 'sunny' } }] },
    { text: 'Published: sunny.' },
  ]);
  const published: string[] = [];
  const lookup = defineTool({
    name: 'lookup',
    description: 'looks a thing up',
    parameters: z.object({ q: z.string() }),
    execute: () => toolSuccess('sunny'),
  });
  const publish = defineTool({
    name: 'publish',
    description: 'publishes a text',
    parameters: z.object({ text: z.string() }),
    requiresApproval: true,
    execute: ({ text }) => {
      published.push(text);
      return toolSuccess('ok');
    },
  });
  const agent = new AgentBuilder('weather').chatClient(model).withTools([lookup, publish]).build();
  const sessions = new Map<string, AgentSession>();
  const executor = new RafAgentExecutor((turn) => {
    const session = sessions.get(turn.contextId) ?? agent.createSession(turn.contextId);
    sessions.set(turn.contextId, session);
    const updates = agent.run(turn.approvals ? undefined : turn.text, {
      session,
      signal: turn.signal,
      ...(turn.approvals && { approvals: turn.approvals }),
    });
    // What the server stores for a run: the §11.1 events.
    return (async function* () {
      const mapper = new RunEventMapper();
      for await (const update of updates) {
        const event: RunEvent | undefined = mapper.map(update, session.id);
        if (event) yield event as A2ARunEvent;
      }
    })();
  });
  return { executor, published };
}

function userMessage(parts: Message['parts'], taskId = '', contextId = ''): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: 1,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}
const text = (value: string) => ({
  content: { $case: 'text' as const, value },
  metadata: undefined,
  filename: '',
  mediaType: '',
});
const data = (value: unknown) => ({
  content: { $case: 'data' as const, value },
  metadata: undefined,
  filename: '',
  mediaType: '',
});

async function collect(stream: AsyncIterable<StreamResponse>) {
  const events: StreamResponse[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('RafAgentExecutor behind the SDK server, driven by the SDK client', () => {
  it('streams a tool-using run, pauses input-required on an approval, and finishes once approved', async () => {
    const { executor, published } = rafAgent();
    server = await startSdkA2AServer(executor);
    const client = await new ClientFactory().createFromUrl(server.url);

    const first = await collect(
      client.sendMessageStream({
        tenant: '',
        message: userMessage([text('weather?')]),
        configuration: undefined,
        metadata: undefined,
      }),
    );
    const statuses = first.flatMap((e) => (e.payload?.$case === 'statusUpdate' ? [e.payload.value] : []));
    const progress = statuses.flatMap((s) =>
      (s.status?.message?.parts ?? []).flatMap((p) => (p.content?.$case === 'data' ? [p.content.value] : [])),
    );
    expect(progress).toEqual([
      { type: 'tool-call', callId: 'c1', name: 'lookup', arguments: { q: 'weather' } },
      { type: 'tool-result', callId: 'c1', name: 'lookup', result: { ok: true, data: 'sunny' } },
      { type: 'tool-call', callId: 'c2', name: 'publish', arguments: { text: 'sunny' } },
      {
        approvalRequests: [
          expect.objectContaining({ type: 'tool-approval-request', callId: 'c2', name: 'publish' }),
        ],
      },
    ]);
    const last = statuses.at(-1)!;
    expect(stateName(last.status?.state)).toBe('input-required');
    expect(published).toEqual([]);

    const taskId = last.taskId;
    const contextId = last.contextId;
    const second = await collect(
      client.sendMessageStream({
        tenant: '',
        message: userMessage([data({ approvals: [{ callId: 'c2', approved: true }] })], taskId, contextId),
        configuration: undefined,
        metadata: undefined,
      }),
    );
    const answer = second
      .flatMap((e) =>
        e.payload?.$case === 'artifactUpdate' ? [textOfParts(e.payload.value.artifact?.parts)] : [],
      )
      .join('');
    expect(answer).toBe('Published: sunny.');
    expect(published).toEqual(['sunny']);
    const task = await client.getTask({ tenant: '', id: taskId, historyLength: undefined });
    expect(stateName(task.status?.state)).toBe('completed');
    expect(task.artifacts.map((a) => textOfParts(a.parts)).join('')).toBe('Published: sunny.');
  }, 60_000);
});
