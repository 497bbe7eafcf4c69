import { OpenAICompatibleChatClient } from '@raf/client';
import { type MockModelServerOptions, startMockModelServer } from '@raf/client/testing';
import { defineTool, type IContextProvider, type JournalEntry, messageText, toolSuccess } from '@raf/core';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentBuilder } from '../agent/agent-builder.js';
import { AgentSession } from '../sessions/agent-session.js';
import { drain } from '../test-support/harness.js';
import {
  fixtureTools,
  folded,
  fourRoundModel,
  MemoryJournal,
  ROUNDS,
} from '../test-support/journal-fixture.js';
import { INTERRUPTED_ERROR } from './interrupted-turn.js';

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

function agentWith(client: OpenAICompatibleChatClient, log: string[], extra: IContextProvider[] = []) {
  const builder = new AgentBuilder('counter')
    .chatClient(client)
    .withTools(fixtureTools((line) => log.push(line)));
  for (const provider of extra) builder.withContextProvider(provider);
  return builder.build();
}

function toolIds(entries: readonly JournalEntry[]): string[] {
  return entries.flatMap((e) =>
    e.type === 'messages' ? e.messages.filter((m) => m.role === 'tool').map((m) => m.toolCallId!) : [],
  );
}

describe('the turn journal (SPEC §14.1)', () => {
  it('journals input and assistant, calls-started before the calls run, each result before the next model call, state at the end', async () => {
    const journal = new MemoryJournal();
    const seenBeforeModel: string[][] = [];
    const { client } = await model((request) => {
      seenBeforeModel.push(toolIds(journal.entries));
      return fourRoundModel(request);
    });
    const log: string[] = [];
    const stateful: IContextProvider = {
      name: 'Counter',
      kind: 'state',
      onInvoked: ({ session }) => session.setProviderState('Counter', { runs: 1 }),
    };
    const agent = agentWith(client, log, [stateful]);
    const session = agent.createSession('s1');
    const updates = await drain(agent.run('count', { session, journal }));
    expect(updates.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });

    const [input, first, second] = journal.entries;
    // The input before the first model call, then the model's answer with its calls.
    expect(input).toMatchObject({ type: 'messages', messages: [{ role: 'user', content: 'count' }] });
    expect(first).toMatchObject({ type: 'messages', messages: [{ role: 'assistant' }] });
    expect(second).toEqual({ type: 'calls-started', callIds: ['b0', 'l0'] });
    // Model call n saw every result of the rounds before it in the journal.
    expect(seenBeforeModel.map((ids) => ids.length)).toEqual([0, 2, 4, 6, 8]);
    expect(journal.entries.at(-1)).toEqual({
      type: 'state',
      key: 'provider_state::Counter',
      value: { runs: 1 },
    });
    // Folded, the journal is the session the run left behind (results in completion order).
    const fold = folded('s1', journal.entries);
    expect(fold.inFlight).toBeUndefined();
    expect(fold.state).toEqual(session.toJSON().state);
    expect(fold.messages.map((m) => m.role)).toEqual(session.messages.map((m) => m.role));
    expect(new Set(fold.messages.map((m) => m.toolCallId))).toEqual(
      new Set(session.messages.map((m) => m.toolCallId)),
    );
    expect(log.filter((l) => !l.startsWith('look:'))).toEqual(['b0', 'b1', 'b2', 'b3']);
  });

  it('resumed from every crash point, never runs a journaled call again and never re-runs a call in doubt unless idempotent', async () => {
    const { client } = await model((request) => fourRoundModel(request));
    const full = new MemoryJournal();
    await drain(agentWith(client, []).run('count', { session: new AgentSession('s'), journal: full }));
    const entries = full.entries;
    expect(entries.length).toBeGreaterThan(4 * ROUNDS);

    for (let k = 1; k < entries.length; k++) {
      const prefix = entries.slice(0, k);
      const snapshot = folded('s', prefix);
      const journaled = new Set(toolIds(prefix));
      const inDoubt = new Set(snapshot.inFlight ?? []);
      const log: string[] = [];
      const session = AgentSession.fromJSON(snapshot);
      const resumed = agentWith(client, log);
      const updates = await drain(resumed.resume({ session, journal: new MemoryJournal() }));
      expect(updates.at(-1), `crash after entry ${k}`).toMatchObject({ type: 'finish', reason: 'stop' });

      for (const line of log) {
        const id = line.replace(/^look:/, '');
        expect(journaled.has(id), `entry ${k}: ${id} ran again though its result was journaled`).toBe(false);
        if (!line.startsWith('look:'))
          expect(inDoubt.has(id), `entry ${k}: ${id} was in doubt and is not idempotent`).toBe(false);
      }
      // A look in doubt runs again; a bump in doubt is answered as interrupted.
      for (const id of inDoubt)
        expect(log.includes(id.startsWith('l') ? `look:${id}` : id)).toBe(id.startsWith('l'));
      const messages = session.messages;
      for (const id of inDoubt) {
        if (!id.startsWith('b')) continue;
        const answer = messages.find((m) => m.role === 'tool' && m.toolCallId === id);
        expect(JSON.parse(messageText(answer!))).toEqual({ ok: false, error: INTERRUPTED_ERROR });
      }
      // The history is whole: every call answered once, the answer last.
      const calls = messages.flatMap((m) => m.toolCalls ?? []).map((c) => c.id);
      const answers = messages.filter((m) => m.role === 'tool').map((m) => m.toolCallId);
      expect([...answers].sort()).toEqual([...calls].sort());
      expect(messages.at(-1)).toMatchObject({ role: 'assistant', content: 'done' });
      expect(session.inFlight).toEqual([]);
    }
  });

  it('closes an interrupted turn with errors, running nothing, when the next run brings new input', async () => {
    const { client, server } = await model((request) => fourRoundModel(request));
    const full = new MemoryJournal();
    await drain(agentWith(client, []).run('count', { session: new AgentSession('s'), journal: full }));
    // Crash right after the first calls started.
    const session = AgentSession.fromJSON(folded('s', full.entries.slice(0, 3)));
    expect(session.inFlight).toEqual(['b0', 'l0']);
    const log: string[] = [];
    const before = server.requests.length;
    await drain(agentWith(client, log).run('something else', { session }));
    expect(log.filter((l) => l === 'b0' || l === 'look:l0')).toEqual([]);
    const sent = server.requests[before]!.body!.messages as { role: string; content: string | null }[];
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'user']);
    expect(sent[2]!.content).toContain('Interrupted');
  });

  it('clears the answered batch before its calls run: a crash then never runs an approved call twice', async () => {
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
      { text: 'asked' },
      { text: 'deployed' },
      { text: 'after the crash' },
    ]);
    const agent = new AgentBuilder('deployer').chatClient(client).withTool(deploy).build();
    const first = new MemoryJournal();
    const session = new AgentSession('d');
    const paused = await drain(agent.run('deploy', { session, journal: first }));
    expect(paused.at(-1)).toMatchObject({ reason: 'awaitingApproval' });
    expect(first.entries.at(-1)).toMatchObject({
      type: 'pending',
      pendingApproval: { gatedCallIds: ['d1'] },
    });

    const second = new MemoryJournal();
    await drain(
      agent.run(undefined, { session, journal: second, approvals: [{ callId: 'd1', approved: true }] }),
    );
    expect(deployed).toBe(1);
    expect(second.entries.slice(0, 2)).toEqual([
      { type: 'pending', pendingApproval: null },
      { type: 'calls-started', callIds: ['d1'] },
    ]);
    // The process died right after the approved call started: the batch is gone, the call in doubt.
    const crashed = AgentSession.fromJSON(folded('d', [...first.entries, ...second.entries.slice(0, 2)]));
    expect(crashed.pendingApproval).toBeUndefined();
    const again = await drain(agent.resume({ session: crashed }));
    expect(deployed).toBe(1);
    expect(again.find((u) => u.type === 'tool-approval-request')).toBeUndefined();
    expect(again.find((u) => u.type === 'tool-called')).toMatchObject({
      callId: 'd1',
      result: { ok: false, error: INTERRUPTED_ERROR },
    });
  });
});
