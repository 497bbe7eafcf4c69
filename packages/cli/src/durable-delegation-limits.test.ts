import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type MockModelServer, type MockTurn, startMockModelServer } from '@raf/client/testing';
import { type PgCluster, postgresSkipReason, startPgCluster } from '@raf/postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { createMemoryIO as memoryIO } from './memory-io.js';
import {
  type RafProcess,
  type ShownRun,
  showRun,
  spawnRaf,
  startWorker,
  until,
} from './test-support/durable-cli.js';

/**
 * A sub-agent's limits in a durable run (SPEC §14.2, "as in a plain run"), through the CLI: the
 * coordinator's `raf run --durable` in its folder, one `raf worker` in another running the child
 * workflows, each checked against a plain `raf run` of the same file.
 * - `timeoutSecs`: a sub-agent whose model hangs is timed out at its deadline; the coordinator's
 *   model reads the same result as in a plain run, the child workflow is cancelled and its model
 *   call is closed.
 * - `maxToolRounds`: a sub-agent that always calls a tool stops after as many rounds as in a
 *   plain run, with the same answer.
 * - `raf runs cancel` of the coordinator cancels its running child, whose model sees no further
 *   request.
 * Skipped without PostgreSQL binaries.
 */
const TIMEOUT_SECS = 3;
// The sub-agent of the recovery test: long enough that its coordinator is killed and taken over first.
const LONG_TIMEOUT_SECS = 6;
const KILL_AFTER_MS = 2500;
let cluster: PgCluster | undefined;
let server: MockModelServer;
let store: string;
let root: string;
let coordinator: string;
let worker: RafProcess;
const children: ChildProcess[] = [];

type Message = { role: string; content: string | null };
/** The tool result the coordinator's model read for its delegation, by the run's input. */
const delegated = new Map<string, string>();
/** When the coordinator's model asked to delegate (its first call), and read the result, by input. */
const asked = new Map<string, number>();
const answered = new Map<string, number>();
/** A sub-agent's model calls, by its task. */
const subCalls = new Map<string, number>();

const inputOf = (messages: Message[]) => messages.find((m) => m.role === 'user')?.content ?? '';

function turn(body: { model: string; messages: Message[] }): MockTurn {
  const last = body.messages.at(-1);
  const input = inputOf(body.messages);
  if (body.model === 'coordinator') {
    if (last?.role === 'tool') {
      delegated.set(input, last.content ?? '');
      answered.set(input, Date.now());
      return { text: `done: ${last.content}` };
    }
    asked.set(input, Date.now());
    const [what, mode] = input.split(' ');
    const call = (agent: string, task: string) => ({
      toolCalls: [{ id: `d-${mode}`, name: 'delegate_task', arguments: { agent, task } }],
    });
    if (what === 'timeout') return call('slow', `hang ${mode}`);
    if (what === 'recovered') return call('slowlong', `hang ${mode}`);
    if (what === 'rounds') return call('looper', `loop ${mode}`);
    return call('busy', `keep going ${mode}`);
  }
  const calls = (subCalls.get(input) ?? 0) + 1;
  subCalls.set(input, calls);
  // One event, then silence with the connection open: only an abort ends this call.
  if (body.model === 'slow' || body.model === 'slowlong')
    return { text: 'thinking about it', stallAfterChunks: 1 };
  const read = { toolCalls: [{ id: `r${calls}`, name: 'read_file', arguments: { path: 'notes.txt' } }] };
  if (body.model === 'looper') return read;
  return { delayMs: 1000, ...read };
}

/** A plain `raf run` (no --durable) of the same agent file, in this process. */
async function plainRun(input: string): Promise<void> {
  const io = memoryIO({ cwd: coordinator });
  const code = await main(['run', 'agent.yaml', '-i', input], io.io);
  expect(code, io.err()).toBe(0);
}

function durableRun(input: string) {
  return spawnRaf(
    ['run', 'agent.yaml', '--durable', '--store', store, '-i', input, '--json'],
    coordinator,
    children,
  );
}

/**
 * The child workflow of a timed-out delegation ended at its deadline: cancelled by the coordinator,
 * or (both clocks strike together) ended by its own timeout signal a moment before the cancel.
 */
function expectTimedOutChild(shown: ShownRun | undefined, subAgent: string, secs: number): void {
  const [child, ...others] = shown?.delegations ?? [];
  expect(others).toEqual([]);
  expect(child?.subAgent).toBe(subAgent);
  if (child?.status !== 'cancelled')
    expect(child).toMatchObject({ status: 'failed', error: `timed out after ${secs} s` });
}

async function runIdOf(run: RafProcess): Promise<string> {
  return until('run-started', async () => {
    const first = run.output().stdout.split('\n')[0];
    return first ? (JSON.parse(first) as { runId: string }).runId : undefined;
  });
}

describe.skipIf(postgresSkipReason !== undefined)(
  'durable sub-agents: timeouts, maxToolRounds, cancel',
  () => {
    beforeAll(async () => {
      cluster = await startPgCluster();
      store = cluster.createDatabase('durable_limits');
      root = await mkdtemp(join(tmpdir(), 'raf-cli-limits-'));
      server = await startMockModelServer({
        turns: (request) => turn(request.body as { model: string; messages: Message[] }),
      });
      coordinator = join(root, 'coordinator');
      await mkdir(join(coordinator, 'ws'), { recursive: true });
      await mkdir(join(root, 'worker'));
      await writeFile(join(coordinator, 'ws', 'notes.txt'), 'some notes\n');
      const model = (id: string) =>
        `{ id: ${id}, provider: custom, connection: { endpoint: "${server.baseURL}" } }`;
      // `runtime: inline` for the plain runs (a durable run has no worker processes: its children
      // are workflows); the timeout wording is the same for both.
      const sub = (name: string, extra: string[]) => [
        '  - kind: prompt',
        `    name: ${name}`,
        `    description: the ${name} one`,
        `    model: ${model(name)}`,
        '    runtime: inline',
        '    tools:',
        '      - { kind: file, name: read_file }',
        ...extra.map((line) => `    ${line}`),
      ];
      await writeFile(
        join(coordinator, 'agent.yaml'),
        [
          'name: coordinator',
          `model: ${model('coordinator')}`,
          'contexts:',
          '  - kind: workspace',
          '    name: project',
          '    config: { root: ./ws, policy: deny }',
          'subAgents:',
          ...sub('slow', [`timeoutSecs: ${TIMEOUT_SECS}`]),
          ...sub('slowlong', [`timeoutSecs: ${LONG_TIMEOUT_SECS}`]),
          ...sub('looper', ['maxToolRounds: 2']),
          ...sub('busy', ['maxToolRounds: 200']),
          '',
        ].join('\n'),
      );
      ({ worker } = await startWorker({ store, concurrency: 4 }, join(root, 'worker'), children));
    }, 240_000);

    afterAll(async () => {
      for (const child of children) child.kill('SIGKILL');
      await server?.close();
      cluster?.stop();
      if (root) await rm(root, { recursive: true, force: true });
    });

    it('timeoutSecs: the hanging sub-agent is timed out at its deadline, as in a plain run; its child workflow ends at the deadline and its model call is closed', async () => {
      await plainRun('timeout plain');
      expect(delegated.get('timeout plain')).toContain(`timed out after ${TIMEOUT_SECS} s`);

      const run = durableRun('timeout durable');
      const runId = await runIdOf(run);
      // When the durable child's model connection was closed (its own timeout signal).
      let closedAt: number | undefined;
      const watch = setInterval(() => {
        const request = server.requests.find(
          (r) => r.body?.model === 'slow' && JSON.stringify(r.body.messages).includes('hang durable'),
        );
        if (request?.closedEarly && closedAt === undefined) closedAt = Date.now();
      }, 20);
      try {
        expect(await run.exited, run.output().stderr).toBe(0);
        await until('the child model call to be closed', async () => closedAt, 10_000);
      } finally {
        clearInterval(watch);
      }
      const endedAt = Date.now();
      // The model reads exactly what it reads after a plain run's timeout.
      expect(delegated.get('timeout durable')).toBe(delegated.get('timeout plain'));
      const shown = await showRun(store, join(root, 'worker'), runId);
      expect(shown?.status).toBe('finished');
      expectTimedOutChild(shown, 'slow', TIMEOUT_SECS);
      // The deadline was set after the coordinator's first model call answered: measured from there.
      const start = asked.get('timeout durable') ?? 0;
      const late = {
        coordinatorMs: (answered.get('timeout durable') ?? 0) - start - TIMEOUT_SECS * 1000,
        childModelMs: (closedAt ?? 0) - start - TIMEOUT_SECS * 1000,
        runExitMs: endedAt - start - TIMEOUT_SECS * 1000,
      };
      console.log(`durable delegation past its deadline: ${JSON.stringify(late)}`);
      expect(late.coordinatorMs).toBeGreaterThanOrEqual(0);
      expect(late.coordinatorMs).toBeLessThan(3000);
      expect(late.childModelMs).toBeLessThan(3000);
      // The slow sub-agent's model was called once per run: nothing ran it again.
      expect(subCalls.get('hang durable')).toBe(1);
    }, 240_000);

    it('timeoutSecs survives recovery: the coordinator killed mid-delegation, a worker takes it over and keeps the first deadline', async () => {
      const run = spawnRaf(
        ['run', 'agent.yaml', '--durable', '--store', store, '-i', 'recovered kill'],
        coordinator,
        children,
      );
      const runId = await until(
        'the run to start',
        async () => /^run (\S+)$/m.exec(run.output().stdout)?.[1],
      );
      await until('the child to call its model', async () => (subCalls.get('hang kill') ? true : undefined));
      const start = asked.get('recovered kill') ?? 0;
      await sleep(Math.max(0, start + KILL_AFTER_MS - Date.now()));
      run.child.kill('SIGKILL');
      await run.exited;
      const killedAt = Date.now();
      const shown = await until(
        'the worker to finish the run',
        async () => {
          const info = await showRun(store, join(root, 'worker'), runId);
          return info?.status === 'finished' ? info : undefined;
        },
        60_000,
        async () => worker.output().stderr.slice(-3000),
      );
      const answeredAfter = (answered.get('recovered kill') ?? 0) - start;
      console.log(
        `recovered coordinator: killed after ${killedAt - start} ms, timed out after ${answeredAfter} ms (deadline ${LONG_TIMEOUT_SECS * 1000} ms)`,
      );
      expect(delegated.get('recovered kill')).toContain(`timed out after ${LONG_TIMEOUT_SECS} s`);
      expectTimedOutChild(shown, 'slowlong', LONG_TIMEOUT_SECS);
      // At the first deadline: one counted again from the recovery would end after the kill + the timeout.
      expect(answeredAfter).toBeGreaterThanOrEqual(LONG_TIMEOUT_SECS * 1000);
      expect(answeredAfter).toBeLessThan(killedAt - start + LONG_TIMEOUT_SECS * 1000);
      // The coordinator's first model call was replayed from its record, the child not run again.
      expect(subCalls.get('hang kill')).toBe(1);
    }, 240_000);

    it('maxToolRounds: a sub-agent that always calls a tool stops after as many rounds as in a plain run, with the same answer', async () => {
      await plainRun('rounds plain');
      const run = durableRun('rounds durable');
      expect(await run.exited, run.output().stderr).toBe(0);
      const plain = subCalls.get('loop plain');
      // Two tool rounds, then the loop stops (not 200, not for ever).
      expect(plain).toBeGreaterThanOrEqual(2);
      expect(plain).toBeLessThanOrEqual(3);
      expect(subCalls.get('loop durable')).toBe(plain);
      expect(delegated.get('rounds durable')).toBe(delegated.get('rounds plain'));
      expect(delegated.get('rounds durable')).toContain('stopped early');
    }, 240_000);

    it('raf runs cancel of the coordinator cancels its running child, whose model sees no further request', async () => {
      const run = durableRun('cancel durable');
      const runId = await runIdOf(run);
      const task = 'keep going durable';
      await until(
        'the busy sub-agent to be running',
        async () => ((subCalls.get(task) ?? 0) >= 2 ? true : undefined),
        120_000,
        async () => worker.output().stderr.slice(-2000),
      );
      const io = memoryIO({ cwd: join(root, 'worker') });
      const code = await main(['runs', 'cancel', runId, '--store', store, '--json'], io.io);
      expect(code, io.err()).toBe(0);
      expect(JSON.parse(io.out())).toMatchObject({ runId, status: 'cancelled' });
      const atCancel = subCalls.get(task) ?? 0;
      // A model call already sent when the cancel landed may still arrive; nothing after it.
      await sleep(1500);
      const settled = subCalls.get(task) ?? 0;
      expect(settled).toBeLessThanOrEqual(atCancel + 1);
      await sleep(8000);
      expect(subCalls.get(task)).toBe(settled);
      const shown = await showRun(store, join(root, 'worker'), runId);
      expect(shown?.status).toBe('cancelled');
      expect(shown?.delegations?.map((d) => [d.subAgent, d.status])).toEqual([['busy', 'cancelled']]);
      console.log(`busy sub-agent model calls: ${atCancel} at the cancel, ${settled} after it`);
      await run.exited;
      // The worker is still there (a cancelled child does not take it down).
      expect(worker.child.exitCode).toBeNull();
    }, 240_000);
    it('timeoutSecs with no worker free: the coordinator times out at the deadline by itself and cancels the queued child', async () => {
      // The only worker goes: nothing dequeues the child, so only the coordinator's clock can end it.
      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
      const run = durableRun('timeout queued');
      const runId = await runIdOf(run);
      expect(await run.exited, run.output().stderr).toBe(0);
      const late =
        (answered.get('timeout queued') ?? 0) - (asked.get('timeout queued') ?? 0) - TIMEOUT_SECS * 1000;
      console.log(`queued child: the coordinator went on ${late} ms past the deadline`);
      expect(late).toBeGreaterThanOrEqual(0);
      expect(late).toBeLessThan(3000);
      expect(delegated.get('timeout queued')).toBe(delegated.get('timeout plain'));
      const shown = await showRun(store, coordinator, runId);
      expect(shown?.delegations?.map((d) => [d.subAgent, d.status])).toEqual([['slow', 'cancelled']]);
      // It never ran.
      expect(subCalls.get('hang queued')).toBeUndefined();
    }, 240_000);
  },
);
