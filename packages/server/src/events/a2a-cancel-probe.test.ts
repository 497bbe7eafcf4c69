import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Fixture,
  type Replicas,
  type Served,
  serve,
  sqliteReplicas,
  startFixture,
  TOKEN_A,
  TOKEN_B,
  until,
} from '../test-support/served-fixture.js';
import { openRunStore } from './open-run-store.js';
import type { RunStore } from './run-store.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers read loosely in assertions
type Loose = any;

const rpc = async (url: string, method: string, params: unknown, token = TOKEN_A) =>
  (await (
    await fetch(`${url}/a2a/noter`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    })
  ).json()) as Loose;

const send = (url: string, messageId: string) =>
  rpc(url, 'message/send', {
    message: { kind: 'message', messageId, role: 'user', parts: [{ kind: 'text', text: 'long' }] },
    configuration: { blocking: false },
  });

const deployer = (url: string, method: string, params: unknown) =>
  fetch(`${url}/a2a/deployer`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN_A}`, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  }).then((r) => r.json() as Promise<Loose>);

const shipMessage = (messageId: string) => ({
  message: { kind: 'message', messageId, role: 'user', parts: [{ kind: 'text', text: 'ship' }] },
});

describe('A2A tasks/cancel across two replicas on one SQLite file', () => {
  let replicas: Replicas;
  let fixture: Fixture;
  let one: Served;
  let two: Served;
  beforeAll(async () => {
    replicas = await sqliteReplicas({ rounds: 6, chunkDelayMs: 20 }, 'raf-a2a-probe-');
    ({ fixture, one, two } = replicas);
  });
  afterAll(() => replicas?.close());

  it('another tenant cannot cancel or read the task, and its run goes on', async () => {
    const started = await send(one.url, 'probe-tenant');
    const { id: taskId, contextId } = started.result;
    await until(async () => (await one.runs.latestRun('a', contextId))?.status === 'running', 'the run');
    const other = await rpc(two.url, 'tasks/cancel', { id: taskId }, TOKEN_B);
    expect(other.result).toBeUndefined();
    expect(other.error).toMatchObject({ code: -32001 });
    const got = await rpc(two.url, 'tasks/get', { id: taskId }, TOKEN_B);
    expect(got.error).toMatchObject({ code: -32001 });
    await until(
      async () => (await one.runs.latestRun('a', contextId))?.status === 'finished',
      'the run',
      20_000,
    );
  });

  it('a damaged stored task reads as no task on either replica (not an internal error)', async () => {
    await one.runs.saveTask('a', 'noter/damaged-task', '{"id": "damaged-task", ');
    for (const url of [one.url, two.url]) {
      const got = await rpc(url, 'tasks/get', { id: 'damaged-task' });
      expect(got.result).toBeUndefined();
      expect(got.error).toMatchObject({ code: -32001 });
    }
  });

  it('a cancel right after a non-blocking message/send, through the other replica, stops the run', async () => {
    const started = await send(one.url, 'probe-early');
    const { id: taskId, contextId } = started.result;
    const cancelled = await rpc(two.url, 'tasks/cancel', { id: taskId });
    expect(cancelled.error).toBeUndefined();
    expect(cancelled.result.status.state).toBe('canceled');
    await until(
      async () => {
        const run = await one.runs.latestRun('a', contextId);
        return run !== undefined && run.status !== 'running';
      },
      'the run to end',
      20_000,
    );
    expect((await one.runs.latestRun('a', contextId))?.status).toBe('cancelled');
    for (const url of [one.url, two.url])
      expect((await rpc(url, 'tasks/get', { id: taskId })).result?.status.state).toBe('canceled');
  });

  it('two cancels at once, through both replicas, both answer and the run stops', async () => {
    const started = await send(one.url, 'probe-both');
    const { id: taskId, contextId } = started.result;
    await until(async () => (await one.runs.latestRun('a', contextId))?.status === 'running', 'the run');
    const answers = await Promise.all([
      rpc(one.url, 'tasks/cancel', { id: taskId }),
      rpc(two.url, 'tasks/cancel', { id: taskId }),
      rpc(two.url, 'tasks/cancel', { id: taskId }),
    ]);
    for (const a of answers)
      expect(a.error?.code === -32002 || a.result?.status.state === 'canceled').toBe(true);
    await until(async () => (await one.runs.latestRun('a', contextId))?.status === 'cancelled', 'the cancel');
    for (const url of [one.url, two.url])
      expect((await rpc(url, 'tasks/get', { id: taskId })).result?.status.state).toBe('canceled');
  });

  it('a task paused for approval, cancelled through the other replica, frees its session', async () => {
    const call = deployer;
    const started = await call(one.url, 'message/send', shipMessage('probe-paused'));
    expect(started.result?.status.state).toBe('input-required');
    const { id: taskId, contextId } = started.result;
    const cancelled = await call(two.url, 'tasks/cancel', { id: taskId });
    expect(cancelled.error).toBeUndefined();
    expect(cancelled.result.status.state).toBe('canceled');
    await until(async () => (await one.runs.latestRun('a', contextId))?.status === 'cancelled', 'the cancel');
    expect(fixture.calls.filter((c) => c.startsWith('deploy'))).toEqual([]);
    const again = await call(two.url, 'message/send', {
      message: {
        kind: 'message',
        messageId: 'probe-paused-2',
        role: 'user',
        contextId,
        parts: [{ kind: 'text', text: 'ship' }],
      },
    });
    expect(again.error).toBeUndefined();
    expect(again.result?.status.state).toBe('input-required');
    for (const url of [one.url, two.url])
      expect([
        url === one.url ? 'one' : 'two',
        (await call(url, 'tasks/get', { id: taskId })).result?.status.state,
      ]).toEqual([url === one.url ? 'one' : 'two', 'canceled']);
  });

  it('a task cancelled through the other replica cannot be approved through the one that paused it', async () => {
    const started = await deployer(one.url, 'message/send', shipMessage('probe-approve-late'));
    expect(started.result?.status.state).toBe('input-required');
    const { id: taskId, contextId } = started.result;
    const cancelled = await deployer(two.url, 'tasks/cancel', { id: taskId });
    expect(cancelled.result?.status.state).toBe('canceled');
    await until(async () => (await one.runs.latestRun('a', contextId))?.status === 'cancelled', 'the cancel');
    // The pausing replica still holds the paused run in its memory; the stored task says cancelled.
    const approved = await deployer(one.url, 'message/send', {
      message: {
        kind: 'message',
        messageId: 'probe-approve-late-2',
        role: 'user',
        taskId,
        contextId,
        parts: [{ kind: 'data', data: { approvals: [{ callId: 'c0u1', approved: true }] } }],
      },
    });
    expect(approved.result?.status?.state).not.toBe('completed');
    expect(approved.error ?? approved.result?.status.state === 'canceled').toBeTruthy();
    expect(fixture.calls.filter((c) => c.startsWith('deploy'))).toEqual([]);
    expect((await one.runs.latestRun('a', contextId))?.status).toBe('cancelled');
    for (const url of [one.url, two.url])
      expect((await deployer(url, 'tasks/get', { id: taskId })).result?.status.state).toBe('canceled');
  });

  it('message/stream on one replica, tasks/cancel on the other: the stream ends canceled', async () => {
    const res = await fetch(`${one.url}/a2a/noter`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN_A}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/stream',
        params: {
          message: {
            kind: 'message',
            messageId: 'probe-stream',
            role: 'user',
            parts: [{ kind: 'text', text: 'long' }],
          },
        },
      }),
    });
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    let taskId: string | undefined;
    const done = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        text += value;
        taskId ??= /"taskId":"([^"]+)"/.exec(text)?.[1] ?? /"kind":"task","id":"([^"]+)"/.exec(text)?.[1];
      }
    })();
    await until(async () => taskId !== undefined && text.includes('working'), 'the task');
    const cancelled = await rpc(two.url, 'tasks/cancel', { id: taskId });
    expect(cancelled.error).toBeUndefined();
    await Promise.race([
      done,
      new Promise((_, reject) => setTimeout(() => reject(new Error('stream hangs')), 15_000)),
    ]);
    const states = [...text.matchAll(/"state":"([a-z-]+)"/g)].map((m) => m[1]);
    expect(states.at(-1)).toBe('canceled');
    expect(states).not.toContain('completed');
  });
});

describe('A2A: a task whose run id cannot be saved', () => {
  it('fails, and its run is cancelled rather than left going on', async () => {
    const fixture = await startFixture({ rounds: 6, chunkDelayMs: 20 });
    let failing = true;
    let runs: RunStore | undefined;
    const served = await serve(fixture, 'memory:', {
      // The store refuses the task's run id (the key `run:…`), as a full disk would; tasks save.
      runs: await (async () => {
        const { createStore } = await import('@raf/framework');
        const store = await createStore('memory:');
        const base = await openRunStore(store);
        runs = base;
        return new Proxy(base, {
          get(target, key) {
            if (key === 'saveTask')
              return async (tenant: string, name: string, text: string) => {
                if (failing && name.startsWith('run:')) throw new Error('no space left on device');
                return target.saveTask(tenant, name, text);
              };
            const value = Reflect.get(target, key, target);
            return typeof value === 'function' ? value.bind(target) : value;
          },
        });
      })(),
    });
    try {
      const answer = await rpc(served.url, 'message/send', {
        message: {
          kind: 'message',
          messageId: 'unsaved',
          role: 'user',
          parts: [{ kind: 'text', text: 'long' }],
        },
      });
      const state = answer.result?.status?.state;
      expect(answer.error !== undefined || state === 'failed').toBe(true);
      const contextId = answer.result?.contextId;
      if (contextId)
        await until(
          async () => (await runs!.latestRun('a', contextId))?.status !== 'running',
          'the run to stop',
        );
      const notes = fixture.calls.length;
      await new Promise((r) => setTimeout(r, 300));
      // No more tool rounds after the failure: the run was stopped.
      expect(fixture.calls.length).toBe(notes);
      expect(notes).toBeLessThan(6);
      failing = false;
    } finally {
      await served.close();
      await fixture.close();
    }
  });
});
