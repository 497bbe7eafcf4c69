import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type MockModelServer, type MockTurn, startMockModelServer } from '@raf/client/testing';
import { type PgCluster, postgresSkipReason, startPgCluster } from '@raf/postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcess, showRun, spawnRaf, startWorker, until } from './test-support/durable-cli.js';

/**
 * A durable delegation's clock after an answered pause survives a crash (SPEC §14: a replay gives
 * the same result), through the CLI: a sub-agent's worker-local `run_command` asks (the child
 * parks itself, the run parks, exit 3); `raf approve` answers it; the child runs the command and
 * its model hangs; the worker holding both the coordinator's run and the child is killed with
 * `kill -9`, and a second worker takes both over: the coordinator's resumed step runs again and
 * the child is replayed. The answer comes after the child's first deadline (a human slower than
 * `timeoutSecs`): the replay of the segment before the pause gives its recorded pause, and the
 * delegation still times out at the deadline decided when the answer was first sent (not
 * `timeoutSecs` after the takeover), on both clocks: the coordinator's (its
 * model reads the timeout then) and the child's (its replayed model call is closed then). The
 * approved command ran once. Skipped without PostgreSQL binaries.
 */
const TIMEOUT_SECS = 6;
// After the child's resumed model call started: the kill is well past the moment the deadline was decided.
const KILL_AFTER_MS = 1500;
let cluster: PgCluster | undefined;
let server: MockModelServer;
let store: string;
let root: string;
const children: ChildProcess[] = [];

type Message = { role: string; content: string | null };
/** When the coordinator's model asked to delegate (the child's first deadline counts from then). */
let askedAt = 0;
/** What the coordinator's model read for its delegation, and when. */
let delegated: { text: string; at: number } | undefined;

function turn(body: { model: string; messages: Message[] }): MockTurn {
  const last = body.messages.at(-1);
  if (body.model === 'coordinator') {
    if (last?.role === 'tool') {
      delegated = { text: last.content ?? '', at: Date.now() };
      return { text: `done: ${last.content}` };
    }
    askedAt = Date.now();
    return {
      toolCalls: [{ id: 'dk', name: 'delegate_task', arguments: { agent: 'runner', task: 'run k' } }],
    };
  }
  // After its approved command: one event, then silence with the connection open (only an abort ends it).
  if (last?.role === 'tool') return { text: 'thinking about it', stallAfterChunks: 1 };
  return { toolCalls: [{ id: 'rk', name: 'run_command', arguments: { command: 'echo k >> count.txt' } }] };
}

const runnerCalls = () => server.requests.filter((r) => r.body?.model === 'runner');

describe.skipIf(postgresSkipReason !== undefined)('a durable delegation resumed after a crash', () => {
  beforeAll(async () => {
    cluster = await startPgCluster();
    store = cluster.createDatabase('durable_clock');
    root = await mkdtemp(join(tmpdir(), 'raf-cli-clock-'));
    server = await startMockModelServer({
      turns: (request) => turn(request.body as { model: string; messages: Message[] }),
    });
    for (const host of ['coordinator/ws', 'a', 'b', 'other'])
      await mkdir(join(root, host), { recursive: true });
    const model = (id: string) =>
      `{ id: ${id}, provider: custom, connection: { endpoint: "${server.baseURL}" } }`;
    await writeFile(
      join(root, 'coordinator', 'agent.yaml'),
      [
        'name: coordinator',
        `model: ${model('coordinator')}`,
        'contexts:',
        '  - kind: workspace',
        '    name: project',
        '    config: { root: ./ws, policy: approve }',
        'subAgents:',
        '  - kind: prompt',
        '    name: runner',
        '    description: runs the command it is asked for',
        `    model: ${model('runner')}`,
        `    timeoutSecs: ${TIMEOUT_SECS}`,
        '    tools:',
        '      - { kind: shell, name: run_command }',
        '',
      ].join('\n'),
    );
  }, 120_000);

  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await server?.close();
    cluster?.stop();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('killed after the answer, a second worker keeps the resumed deadline: the coordinator and the replayed child both time out at it', async () => {
    const a = await startWorker({ store, concurrency: 2 }, join(root, 'a'), children);
    const run = spawnRaf(
      ['run', 'agent.yaml', '--durable', '--store', store, '-i', 'go'],
      join(root, 'coordinator'),
      children,
    );
    expect(await run.exited, `${run.output().stdout}\n${run.output().stderr}`).toBe(3);
    const runId = /^run (\S+)$/m.exec(run.output().stdout)?.[1] ?? '';
    const show = () => showRun(store, join(root, 'other'), runId);
    // Worker A holds both: the parked run (taken over from the `raf run` that exited) and its child.
    await until(
      'worker A to hold the parked run and its child',
      async () => {
        const info = await show();
        return info?.executor === a.id && info.delegations?.[0]?.executor === a.id ? info : undefined;
      },
      60_000,
      async () => JSON.stringify(await show()),
    );
    const b = await startWorker({ store, concurrency: 2 }, join(root, 'b'), children);

    // The human answers after the first deadline: the replay goes through a segment recorded
    // before it (the pause), which must replay as recorded, not as timed out.
    await sleep(Math.max(0, askedAt + TIMEOUT_SECS * 1000 + 500 - Date.now()));
    const approvedAt = Date.now();
    const approve = await inProcess(join(root, 'other'), ['approve', runId, '--all', '--store', store]);
    expect(approve.code, approve.err).toBe(0);
    await until(
      'the child to call its model after the command',
      async () => runnerCalls().length >= 2,
      60_000,
      async () => a.worker.output().stderr.slice(-3000),
    );
    await sleep(KILL_AFTER_MS);
    a.worker.child.kill('SIGKILL');
    await a.worker.exited;
    const killedAt = Date.now();

    // The replayed child's model call (worker B's): when its own timeout signal closed it.
    let closedAt: number | undefined;
    const watch = setInterval(() => {
      if (closedAt === undefined && runnerCalls()[2]?.closedEarly) closedAt = Date.now();
    }, 20);
    try {
      const shown = await until(
        'worker B to finish the run',
        async () => {
          const info = await show();
          return info?.status === 'finished' ? info : undefined;
        },
        60_000,
        async () => `${JSON.stringify(await show())}\nworker B:\n${b.worker.output().stderr.slice(-3000)}`,
      );
      await until(
        'the replayed child model call to be closed',
        async () => closedAt,
        15_000,
        async () =>
          `runner calls (closed early): ${JSON.stringify(runnerCalls().map((r) => r.closedEarly))}, killed after ${killedAt - approvedAt} ms, the coordinator read ${JSON.stringify(delegated)} at ${(delegated?.at ?? 0) - approvedAt} ms\n${JSON.stringify(await show())}\nworker B:\n${b.worker.output().stderr.slice(-3000)}`,
      );
      expect(shown.executor).toBe(b.id);
      expect(shown.delegations?.map((d) => d.executor)).toEqual([b.id]);
    } finally {
      clearInterval(watch);
    }
    const deadlineMs = TIMEOUT_SECS * 1000;
    const timing = {
      killedMs: killedAt - approvedAt,
      coordinatorMs: (delegated?.at ?? 0) - approvedAt,
      childModelMs: (closedAt ?? 0) - approvedAt,
    };
    console.log(
      `resumed delegation, after the answer (deadline ${deadlineMs} ms): ${JSON.stringify(timing)}`,
    );
    expect(delegated?.text).toContain(`timed out after ${TIMEOUT_SECS} s`);
    // At the first resumed deadline: one decided again at the takeover would come after the kill + the timeout.
    for (const ms of [timing.coordinatorMs, timing.childModelMs]) {
      expect(ms).toBeGreaterThanOrEqual(deadlineMs);
      expect(ms).toBeLessThan(timing.killedMs + deadlineMs);
    }
    // The approved command ran once: the replay read its recorded result; the child asked its model
    // once before the pause, once after, and once more in the replay.
    expect(await readFile(join(root, 'coordinator', 'ws', 'count.txt'), 'utf8')).toBe('k\n');
    expect(runnerCalls()).toHaveLength(3);
    b.worker.child.kill('SIGTERM');
    expect(await b.worker.exited, b.worker.output().stderr).toBe(0);
  }, 300_000);
});
