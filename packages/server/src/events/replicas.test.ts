import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type PgCluster, postgresSkipReason, startPgCluster } from '@raf/postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { questionAsker } from '../runs/run-questions.js';
import {
  type Fixture,
  readEvents,
  type Served,
  serve,
  startFixture,
  TOKEN_A,
  TOKEN_B,
  until,
} from '../test-support/served-fixture.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers read loosely in assertions
type Loose = any;

const post = (url: string, body: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN_A}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const get = async (url: string) =>
  (await fetch(url, { headers: { authorization: `Bearer ${TOKEN_A}` } })).json() as Loose;

interface Backend {
  name: string;
  skip?: string | undefined;
  url(): Promise<string>;
}

let cluster: PgCluster | undefined;
let dir: string;
let databases = 0;

const BACKENDS: Backend[] = [
  { name: 'sqlite', url: async () => `sqlite:${join(dir, `state-${++databases}.db`)}` },
  {
    name: 'postgres',
    skip: postgresSkipReason,
    url: async () => {
      cluster ??= await startPgCluster();
      return cluster.createDatabase(`serve${++databases}`);
    },
  },
];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'raf-serve-replicas-'));
});
afterAll(async () => {
  cluster?.stop();
  await rm(dir, { recursive: true, force: true });
});

for (const backend of BACKENDS) {
  describe.skipIf(backend.skip !== undefined)(`run events in the ${backend.name} store`, () => {
    let fixture: Fixture;
    let one: Served;
    let two: Served;

    beforeAll(async () => {
      // Slow chunks: the run is still going while the clients disconnect and come back.
      fixture = await startFixture({ rounds: 4, chunkDelayMs: 15 });
      const url = await backend.url();
      one = await serve(fixture, url);
      two = await serve(fixture, url);
    });
    afterAll(async () => {
      await one?.close();
      await two?.close();
      await fixture?.close();
    });

    it('a client reads half, disconnects, and gets exactly the rest with Last-Event-ID, from either replica', async () => {
      const { runId } = (await (
        await post(`${one.url}/v1/agents/noter/runs`, { input: 'go' })
      ).json()) as Loose;
      const head = await readEvents(`${one.url}/v1/runs/${runId}/events`, TOKEN_A, { stopAfter: 3 });
      expect(head.map((e) => e.id)).toEqual([1, 2, 3]);
      // Replica two tails the run replica one is running: through the store alone.
      const middle = await readEvents(`${two.url}/v1/runs/${runId}/events`, TOKEN_A, {
        lastEventId: 3,
        stopAfter: 3,
      });
      expect(middle.map((e) => e.id)).toEqual([4, 5, 6]);
      const tail = await readEvents(`${one.url}/v1/runs/${runId}/events`, TOKEN_A, { lastEventId: 6 });
      const all = [...head, ...middle, ...tail];
      expect(all.map((e) => e.id)).toEqual(all.map((_, i) => i + 1));
      expect(all.at(-1)?.data).toMatchObject({ type: 'finish', reason: 'stop' });
      expect(all.filter((e) => e.data.type === 'tool-result')).toHaveLength(4);
      // The finished run replays in full from both replicas, the same events.
      expect(await readEvents(`${two.url}/v1/runs/${runId}/events`, TOKEN_A)).toEqual(all);
      expect(await readEvents(`${one.url}/v1/runs/${runId}/events`, TOKEN_A)).toEqual(all);
      expect((await get(`${two.url}/v1/runs/${runId}`)).status).toBe('finished');
    });

    it('a run paused on one replica is approved and finished through the other', async () => {
      const { runId, sessionId } = (await (
        await post(`${one.url}/v1/agents/deployer/runs`, { input: 'ship' })
      ).json()) as Loose;
      const first = await readEvents(`${two.url}/v1/runs/${runId}/events`, TOKEN_A);
      expect(first.at(-1)?.data).toMatchObject({ type: 'finish', reason: 'awaitingApproval' });
      const approvals = { approvals: [{ callId: 'c0u1', approved: true }] };
      const [a, b] = await Promise.all([
        post(`${two.url}/v1/runs/${runId}/approvals`, approvals),
        post(`${one.url}/v1/runs/${runId}/approvals`, approvals),
      ]);
      // Exactly one answer resumes the batch.
      expect([a.status, b.status].sort()).toEqual([202, 409]);
      const rest = await readEvents(`${one.url}/v1/runs/${runId}/events`, TOKEN_A, {
        lastEventId: first.length,
      });
      expect(rest.at(-1)?.data).toMatchObject({ type: 'finish', reason: 'stop', sessionId });
      expect(fixture.calls.filter((c) => c.startsWith('deploy'))).toEqual(['deploy:round 0']);
    });

    it('a cancel through one replica stops the run the other is running', async () => {
      const { runId } = (await (
        await post(`${one.url}/v1/agents/noter/runs`, { input: 'long' })
      ).json()) as Loose;
      await readEvents(`${one.url}/v1/runs/${runId}/events`, TOKEN_A, { stopAfter: 1 });
      const cancelled = await post(`${two.url}/v1/runs/${runId}/cancel`, {});
      expect(cancelled.status).toBe(200);
      await until(
        async () => (await get(`${one.url}/v1/runs/${runId}`)).status === 'cancelled',
        'the cancel',
      );
      const events = await readEvents(`${two.url}/v1/runs/${runId}/events`, TOKEN_A);
      expect(events.at(-1)?.data).toMatchObject({ type: 'finish', reason: 'cancelled' });
      expect(events.filter((e) => e.data.type === 'finish')).toHaveLength(1);
    });

    it('a question asked through one replica store waits for the answer given through the other', async () => {
      const now = new Date().toISOString();
      const runId = `q-${backend.name}-${Date.now()}`;
      await one.runs.create({
        runId,
        agent: 'noter',
        sessionId: 's',
        tenant: 'a',
        status: 'running',
        lastSeq: 0,
        cancelRequested: false,
        createdAt: now,
        updatedAt: now,
      });
      const asker = questionAsker(one.runs, runId);
      const request = {
        type: 'input-request' as const,
        callId: 'k1',
        source: 'mcp:people',
        message: 'Name?',
        mode: 'form' as const,
        schema: { type: 'object', properties: { name: { type: 'string' } } },
      };
      const waiting = asker.handler(request, { signal: new AbortController().signal });
      await until(async () => (await two.runs.questions(runId)).length === 1, 'the question');
      expect(await two.runs.questions(runId)).toEqual([{ questionId: 'k1.0', request }]);
      expect(await two.runs.answer(runId, 'k1.0', { action: 'accept', content: { name: 'Ada' } })).toBe(true);
      // The first answer wins.
      expect(await one.runs.answer(runId, 'k1.0', { action: 'decline' })).toBe(false);
      expect(await waiting).toEqual({ action: 'accept', content: { name: 'Ada' } });
      expect(await one.runs.questions(runId)).toEqual([]);
      // A call that stops waiting withdraws its question.
      const stop = new AbortController();
      const second = asker.handler({ ...request, callId: 'k2' }, { signal: stop.signal });
      await until(async () => (await two.runs.questions(runId)).length === 1, 'the second question');
      stop.abort();
      await expect(second).rejects.toThrow(/stopped waiting/);
      expect(await two.runs.answerOf(runId, 'k2.0')).toEqual({ action: 'cancel' });
    });

    it('an A2A task made through one replica is answered by tasks/get on the other, for its tenant only', async () => {
      const rpc = (url: string, body: unknown, token = TOKEN_A) =>
        fetch(`${url}/a2a/noter`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const sent = (await (
        await rpc(one.url, {
          jsonrpc: '2.0',
          id: 1,
          method: 'message/send',
          params: {
            message: {
              kind: 'message',
              messageId: `m-${backend.name}`,
              role: 'user',
              parts: [{ kind: 'text', text: 'note' }],
            },
          },
        })
      ).json()) as Loose;
      expect(sent.result).toMatchObject({ kind: 'task', status: { state: 'completed' } });
      const taskId = sent.result.id as string;
      const got = (await (
        await rpc(two.url, { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { id: taskId } })
      ).json()) as Loose;
      expect(got.error).toBeUndefined();
      expect(got.result).toMatchObject({ id: taskId, kind: 'task', status: { state: 'completed' } });
      const other = (await (
        await rpc(two.url, { jsonrpc: '2.0', id: 3, method: 'tasks/get', params: { id: taskId } }, TOKEN_B)
      ).json()) as Loose;
      expect(other.result).toBeUndefined();
      expect(other.error).toMatchObject({ code: -32001 });
    });

    it('an A2A tasks/cancel through one replica stops the task the other is running', async () => {
      const rpc = async (url: string, id: number, method: string, params: unknown) =>
        (await (
          await fetch(`${url}/a2a/noter`, {
            method: 'POST',
            headers: { authorization: `Bearer ${TOKEN_A}`, 'content-type': 'application/json' },
            body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
          })
        ).json()) as Loose;
      const started = await rpc(one.url, 1, 'message/send', {
        message: {
          kind: 'message',
          messageId: `long-${backend.name}`,
          role: 'user',
          parts: [{ kind: 'text', text: 'long' }],
        },
        configuration: { blocking: false },
      });
      expect(started.error).toBeUndefined();
      const { id: taskId, contextId } = started.result;
      // The run is under way on replica one before replica two is asked.
      await until(async () => (await one.runs.latestRun('a', contextId))?.status === 'running', 'the run');
      const cancelled = await rpc(two.url, 2, 'tasks/cancel', { id: taskId });
      expect(cancelled.error).toBeUndefined();
      expect(cancelled.result.status.state).toBe('canceled');
      await until(
        async () => (await two.runs.latestRun('a', contextId))?.status === 'cancelled',
        'the run to stop',
      );
      const run = (await one.runs.latestRun('a', contextId))!;
      const events = await readEvents(`${two.url}/v1/runs/${run.runId}/events`, TOKEN_A);
      expect(events.at(-1)?.data).toMatchObject({ type: 'finish', reason: 'cancelled' });
      // Fewer than the 4 rounds ran, and the task stays cancelled on both replicas.
      expect(events.filter((e) => e.data.type === 'tool-result').length).toBeLessThan(4);
      for (const url of [one.url, two.url]) {
        await until(
          async () => (await rpc(url, 3, 'tasks/get', { id: taskId })).result?.status.state === 'canceled',
          'the task state',
        );
      }
    });
  });
}
