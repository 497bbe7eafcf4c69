import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OpenAICompatibleChatClient } from '@raf/client';
import { startMockModelServer } from '@raf/client/testing';
import { defineTool, SessionConflictError, toolSuccess } from '@raf/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { AgentBuilder } from '../agent/agent-builder.js';
import { AgentSession } from '../sessions/agent-session.js';
import { FileSessionStore } from '../sessions/file-session-store.js';
import { drain } from '../test-support/harness.js';
import { JournaledSession } from './turn-recorder.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const close of closers.splice(0)) await close();
});

const TTL_MS = 200;

/**
 * A turn frozen past its lease (SIGSTOP, a VM pause, a GC stall) without waiting a minute: a
 * short lease, renewals frozen (only `setInterval` is faked: the renewal timer never fires, every
 * other timer and the clock run), another store instance takes the expired session.
 */
async function frozenTurnSetup() {
  const dir = await mkdtemp(join(tmpdir(), 'raf-lease-fence-'));
  closers.push(() => rm(dir, { recursive: true, force: true }));
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  const first = new FileSessionStore(dir);
  const other = new FileSessionStore(dir);
  const lease = await first.acquireLease('s', { ttlMs: TTL_MS });
  const journal = await first.openJournal(lease);
  const takeOver = async () => {
    await new Promise((resolve) => setTimeout(resolve, TTL_MS + 50));
    const taken = await other.acquireLease('s', { waitMs: 2_000, ttlMs: 60_000 });
    closers.push(() => taken.release());
    return taken;
  };
  return { dir, first, other, lease, journal, takeOver };
}

describe('a turn whose lease was lost (SPEC §14.1)', () => {
  it('paused inside a tool while another turn takes the expired session: journals nothing more, runs no further tool, asks the model nothing more, ends with a SessionConflictError', async () => {
    const { other, journal, takeOver } = await frozenTurnSetup();
    const server = await startMockModelServer({
      turns: [
        { toolCalls: [{ id: 'call_0_0', name: 'pause', arguments: {} }] },
        { toolCalls: [{ id: 'call_3_0', name: 'write_file', arguments: {} }] },
        { text: 'done' },
      ],
    });
    const client = new OpenAICompatibleChatClient({ model: 'mock', baseURL: server.baseURL, maxRetries: 0 });
    closers.push(async () => {
      await client.close();
      await server.close();
    });
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let resume!: () => void;
    const frozen = new Promise<void>((resolve) => {
      resume = resolve;
    });
    const written: string[] = [];
    const agent = new AgentBuilder('fenced')
      .chatClient(client)
      .withTools([
        defineTool({
          name: 'pause',
          description: 'Waits for the test',
          parameters: z.object({}),
          execute: async () => {
            entered();
            await frozen;
            return toolSuccess('paused');
          },
        }),
        defineTool({
          name: 'write_file',
          description: 'A side effect',
          parameters: z.object({}),
          execute: async (_args, ctx) => {
            written.push(ctx.callId);
            return toolSuccess('written');
          },
        }),
      ])
      .build();
    const running = drain(agent.run('go', { session: new AgentSession('s'), journal }));
    await inside;
    await takeOver();
    const before = await other.load('s');
    expect(before?.inFlight).toEqual(['call_0_0']);
    resume();
    const updates = await running;

    const error = updates.find((u) => u.type === 'error');
    expect(error).toMatchObject({ code: 'RAF_SESSION_CONFLICT' });
    expect(JSON.stringify(error)).toMatch(/no longer holds the session's lease/);
    expect(updates.at(-1)).toMatchObject({ type: 'finish' });
    expect(updates.at(-1)).not.toMatchObject({ reason: 'stop' });
    // Nothing more of the stale turn: no result for call_0_0, no second model call, no write_file.
    const after = await other.load('s');
    expect(after?.messages).toEqual(before?.messages);
    expect(after?.inFlight).toEqual(['call_0_0']);
    expect(after?.revision).toBe(0);
    expect(server.requests).toHaveLength(1);
    expect(written).toEqual([]);
  });

  it('checks the lease before each model call and before calls start, even with nothing to write', async () => {
    const { dir, journal, takeOver } = await frozenTurnSetup();
    const session = new JournaledSession(new AgentSession('s'), journal);
    session.addMessages([{ role: 'user', content: 'go' }]);
    await session.flush();
    await session.flush(); // nothing queued, still held: passes
    await takeOver();
    // Before a model call (nothing queued) and before calls start: both refused.
    await expect(session.flush()).rejects.toSatisfy(
      (e: unknown) => SessionConflictError.isInstance(e) && e.kind === 'lease' && e.sessionId === 's',
    );
    await expect(session.started(['c1'])).rejects.toSatisfy(SessionConflictError.isInstance);
    const journalFile = join(dir, 's.journal-0.jsonl');
    expect((await readFile(journalFile, 'utf8')).trim().split('\n')).toHaveLength(1);
  });
});
