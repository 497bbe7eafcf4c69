import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Fixture,
  type Replicas,
  type Served,
  sqliteReplicas,
  TOKEN_A,
} from '../test-support/served-fixture.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers read loosely in assertions
type Loose = any;

const deployer = (url: string, method: string, params: unknown) =>
  fetch(`${url}/a2a/deployer`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN_A}`, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  }).then((r) => r.json() as Promise<Loose>);

const message = (messageId: string, parts: unknown[], task?: { taskId?: string; contextId: string }) => ({
  message: { kind: 'message', messageId, role: 'user', parts, ...task },
});

/** A paused `deployer` task on `served`: its ids and the call it waits on. */
async function paused(served: Served, messageId: string) {
  const started = await deployer(
    served.url,
    'message/send',
    message(messageId, [{ kind: 'text', text: 'ship' }]),
  );
  expect(started.result?.status.state).toBe('input-required');
  const requests = started.result.status.message.parts.find((p: Loose) => p.kind === 'data').data
    .approvalRequests;
  return {
    taskId: started.result.id as string,
    contextId: started.result.contextId as string,
    callId: requests[0].callId,
  };
}

const approve = (callId: string) => [{ kind: 'data', data: { approvals: [{ callId, approved: true }] } }];

describe('A2A approvals across two replicas on one SQLite file', () => {
  let replicas: Replicas;
  let fixture: Fixture;
  let one: Served;
  let two: Served;
  beforeAll(async () => {
    replicas = await sqliteReplicas({}, 'raf-a2a-approvals-');
    ({ fixture, one, two } = replicas);
  });
  afterAll(() => replicas?.close());

  it('a task paused on one replica is approved through the other and completes', async () => {
    const task = await paused(one, 'approve-elsewhere');
    const answered = await deployer(
      two.url,
      'message/send',
      message('approve-elsewhere-2', approve(task.callId), task),
    );
    expect(answered.error).toBeUndefined();
    expect(answered.result?.status.state).toBe('completed');
    expect(fixture.calls.filter((c) => c.startsWith('deploy'))).toHaveLength(1);
    expect((await one.runs.latestRun('a', task.contextId))?.status).toBe('finished');
    for (const url of [one.url, two.url])
      expect((await deployer(url, 'tasks/get', { id: task.taskId })).result?.status.state).toBe('completed');
    // The context is free again: a new message starts a new turn.
    const next = await deployer(
      two.url,
      'message/send',
      message('approve-elsewhere-3', [{ kind: 'text', text: 'ship' }], {
        taskId: undefined as never,
        contextId: task.contextId,
      }),
    );
    expect(next.result?.status.state).toBe('input-required');
  });

  it('two answers at once to one paused task both end completed, and the call runs once', async () => {
    const before = fixture.calls.length;
    const task = await paused(one, 'approve-twice');
    const answers = await Promise.all([
      deployer(one.url, 'message/send', message('approve-twice-a', approve(task.callId), task)),
      deployer(one.url, 'message/send', message('approve-twice-b', approve(task.callId), task)),
    ]);
    for (const a of answers) expect(a.result?.status.state).toBe('completed');
    expect(fixture.calls.slice(before).filter((c) => c.startsWith('deploy'))).toHaveLength(1);
    expect((await deployer(one.url, 'tasks/get', { id: task.taskId })).result?.status.state).toBe(
      'completed',
    );
  });

  it('two answers at once through both replicas: the call runs once and the task ends completed', async () => {
    const before = fixture.calls.length;
    const task = await paused(one, 'approve-both');
    const answers = await Promise.all([
      deployer(one.url, 'message/send', message('approve-both-a', approve(task.callId), task)),
      deployer(two.url, 'message/send', message('approve-both-b', approve(task.callId), task)),
    ]);
    // One runs the call; the other, on the replica that does not run it, says the task runs (a
    // message) or, when it read the task still paused, that its call was answered already.
    const states = answers.map((a) => a.result?.status?.state ?? a.result?.kind ?? a.error?.code);
    expect(states).toContain('completed');
    expect(states).not.toContain('failed');
    expect(fixture.calls.slice(before).filter((c) => c.startsWith('deploy'))).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 300));
    for (const url of [one.url, two.url])
      expect((await deployer(url, 'tasks/get', { id: task.taskId })).result?.status.state).toBe('completed');
  });
});
