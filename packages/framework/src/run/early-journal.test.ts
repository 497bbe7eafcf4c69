import { OpenAICompatibleChatClient } from '@raf/client';
import { type MockModelServerOptions, startMockModelServer } from '@raf/client/testing';
import { type AgentResponseUpdate, defineTool, type JournalEntry, toolSuccess } from '@raf/core';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentBuilder } from '../agent/agent-builder.js';
import { AgentSession } from '../sessions/agent-session.js';
import { drain } from '../test-support/harness.js';
import { folded, MemoryJournal } from '../test-support/journal-fixture.js';

// SPEC §14.1: what a `kill -9` at a given moment leaves is the journal as it was at that moment;
// each test copies the journal at the moment of the "kill" and resumes from its fold.

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function model(turns: MockModelServerOptions['turns']) {
  const server = await startMockModelServer({ turns });
  const client = new OpenAICompatibleChatClient({ model: 'mock', baseURL: server.baseURL, maxRetries: 0 });
  closers.push(async () => {
    await client.close();
    await server.close();
  });
  return { server, client };
}

type Sent = { role: string; content: string | null }[];

describe('the turn journal before the first step completes (SPEC §14.1)', () => {
  it("journals the user's message before the model is called: a crash while the model answers resumes the turn with it", async () => {
    const journal = new MemoryJournal();
    let atModelCall: JournalEntry[] | undefined;
    const { client, server } = await model((request) => {
      atModelCall ??= [...journal.entries];
      const sent = (request.body?.messages ?? []) as Sent;
      return { text: `you said: ${sent.filter((m) => m.role === 'user').at(-1)?.content}` };
    });
    const agent = new AgentBuilder('memo').chatClient(client).build();
    const session = new AgentSession('m');
    await drain(agent.run('remember: the launch code is 42', { session, journal }));
    expect(atModelCall).toHaveLength(1);
    expect(atModelCall).toMatchObject([
      { type: 'messages', messages: [{ role: 'user', content: 'remember: the launch code is 42' }] },
    ]);
    // Journaled once: the fold of the whole journal is the session the run left.
    expect(folded('m', journal.entries).messages).toEqual(session.messages);

    // The process died while the model was answering: the resume asks it again, with the message.
    const crashed = AgentSession.fromJSON(folded('m', atModelCall!));
    expect(crashed.messages.map((m) => m.role)).toEqual(['user']);
    const before = server.requests.length;
    const resumed = await drain(agent.resume({ session: crashed, journal: new MemoryJournal() }));
    expect(resumed.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
    const sent = server.requests[before]!.body!.messages as Sent;
    expect(sent.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
      'remember: the launch code is 42',
    ]);
    expect(crashed.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'remember: the launch code is 42'],
      ['assistant', 'you said: remember: the launch code is 42'],
    ]);
  });

  it('a turn whose model call fails keeps its input out of the session, as without a journal', async () => {
    const { client } = await model([{ status: 400 }]);
    const agent = new AgentBuilder('memo').chatClient(client).build();
    const session = new AgentSession('f');
    const updates = await drain(agent.run('hello', { session, journal: new MemoryJournal() }));
    expect(updates.some((u) => u.type === 'error')).toBe(true);
    expect(session.messages).toEqual([]);
  });

  it('journals the model answer and the paused batch before the approval request is shown: a crash then resumes a paused approval', async () => {
    let deployed = 0;
    const deploy = defineTool({
      name: 'deploy',
      description: 'Deploys',
      parameters: z.object({ env: z.string() }),
      requiresApproval: true,
      execute: ({ env }) => {
        deployed++;
        return toolSuccess({ deployed: env });
      },
    });
    const { client } = await model([
      { toolCalls: [{ id: 'd1', name: 'deploy', arguments: { env: 'prod' } }] },
      { text: 'deployed' },
    ]);
    const agent = new AgentBuilder('deployer').chatClient(client).withTool(deploy).build();
    const journal = new MemoryJournal();
    const stream = agent.run('deploy', { session: new AgentSession('d'), journal });
    let atRequest: JournalEntry[] | undefined;
    for await (const update of stream as AsyncIterable<AgentResponseUpdate>) {
      if (update.type !== 'tool-approval-request') continue;
      // The reader acts on the request here (`--approve all`); the process dies before the turn ends.
      atRequest = [...journal.entries];
      break;
    }
    expect(atRequest?.map((e) => e.type)).toEqual(['messages', 'messages', 'pending']);
    const crashed = AgentSession.fromJSON(folded('d', atRequest!));
    expect(crashed.pendingApproval?.gatedCallIds).toEqual(['d1']);
    expect(crashed.messages.at(-1)).toMatchObject({ role: 'assistant', toolCalls: [{ id: 'd1' }] });

    const resumed = await drain(
      agent.run(undefined, {
        session: crashed,
        journal: new MemoryJournal(),
        approvals: [{ callId: 'd1', approved: true }],
      }),
    );
    expect(resumed.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
    expect(deployed).toBe(1);
    expect(crashed.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'deployed' });
  });
});
