import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MockModelServer, type MockTurn, startMockModelServer } from '@raf/client/testing';
import { type PgCluster, postgresSkipReason, startPgCluster } from '@raf/postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { showRun, spawnRaf, startWorker, until } from './test-support/durable-cli.js';

/**
 * Sub-agents in a durable run (SPEC §14.2), through the CLI, each process in its own folder
 * standing in for a host: the coordinator's `delegate_parallel` of 6 tasks enqueues 6 child
 * workflows; two `raf worker`s run them (both take part); one is killed with SIGKILL mid-task and
 * the other finishes its delegations; the sub-agents' `write_file` calls are proxied to the
 * coordinator's process and land in its workspace only, under its `deny` policy (a path outside
 * is refused). Skipped without PostgreSQL binaries.
 */
const TASKS = 6;
let cluster: PgCluster | undefined;
let server: MockModelServer;
let store: string;
let root: string;
const children: ChildProcess[] = [];

const raf = (argv: string[], cwd: string) => spawnRaf(argv, cwd, children);
const show = (folder: string, runId: string) => showRun(store, folder, runId);

type Message = { role: string; content: string | null };
/** The writers' model calls, by task: a delegation run twice would call its model again. */
const writerCalls = new Map<string, number>();
/** Whether the writers' delays are staggered by task (the coordinator-kill test). */
let stagger = false;

/** The coordinator fans out; each sub-agent writes one file (task 5 tries outside the workspace). */
function turn(body: { model: string; messages: Message[] }): MockTurn {
  const last = body.messages.at(-1);
  if (body.model === 'coordinator') {
    if (last?.role === 'tool') return { text: `all done: ${last.content}` };
    const tasks = Array.from({ length: TASKS }, (_, i) => ({
      agent: 'writer',
      task: i === TASKS - 1 ? `escape ${i}` : `write ${i}`,
    }));
    return { toolCalls: [{ id: 'fan', name: 'delegate_parallel', arguments: { tasks } }] };
  }
  const task = body.messages.find((m) => m.role === 'user')?.content ?? '';
  writerCalls.set(task, (writerCalls.get(task) ?? 0) + 1);
  const n = task.split(' ')[1] ?? 'x';
  // Slow enough that a worker is killed while it holds delegations. Staggered, the first task
  // ends long before the others, so "one finished, others running" lasts long enough to be seen
  // under load (with equal delays the six end together and a slow probe can miss the moment);
  // tasks 3-5 make their proxied write after the coordinator is killed, 1-2 before it.
  const i = Number(n);
  const [writeMs, answerMs] = !stagger
    ? [4000, 4000]
    : i === 0
      ? [500, 500]
      : i < 3
        ? [4000, 15_000]
        : [15_000, 4000];
  if (last?.role === 'tool') return { delayMs: answerMs, text: `${task} -> ${last.content}` };
  const path = task.startsWith('escape') ? '../escaped.txt' : `out/${n}.txt`;
  return {
    delayMs: writeMs,
    toolCalls: [{ id: `w${n}`, name: 'write_file', arguments: { path, content: `written by task ${n}\n` } }],
  };
}

describe.skipIf(postgresSkipReason !== undefined)('durable sub-agents on the delegation queue', () => {
  beforeAll(async () => {
    cluster = await startPgCluster();
    store = cluster.createDatabase('durable_delegation');
    root = await mkdtemp(join(tmpdir(), 'raf-cli-delegation-'));
    server = await startMockModelServer({
      turns: (request) => turn(request.body as { model: string; messages: Message[] }),
    });
    for (const host of ['coordinator', 'worker-a', 'worker-b']) await mkdir(join(root, host));
    await mkdir(join(root, 'coordinator', 'ws'));
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
        '    config: { root: ./ws, policy: deny }',
        'subAgents:',
        '  - kind: prompt',
        '    name: writer',
        '    description: writes the file it is asked for',
        `    model: ${model('writer')}`,
        '    tools:',
        '      - { kind: file, name: write_file }',
        '      - { kind: file, name: read_file }',
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

  it('delegate_parallel of 6 with 2 workers: both take part, one is killed mid-task, all 6 finish; proxied writes land in the coordinator workspace only', async () => {
    // One after the other: the first launch on a fresh database creates DBOS's schema.
    const workers: ReturnType<typeof raf>[] = [];
    const ids: string[] = [];
    for (const host of ['worker-a', 'worker-b']) {
      const { worker, id } = await startWorker({ store, concurrency: 3 }, join(root, host), children);
      workers.push(worker);
      ids.push(id);
    }
    const coordinator = join(root, 'coordinator');
    const run = raf(
      ['run', 'agent.yaml', '--durable', '--store', store, '-i', 'fan out', '--json'],
      coordinator,
    );
    const runId = await until('run-started', async () => {
      const first = run.output().stdout.split('\n')[0];
      return first ? (JSON.parse(first) as { runId: string }).runId : undefined;
    });
    // Both workers take delegations (each holds at most 3 at once); the first is killed while it
    // holds some.
    const seen = new Set<string | undefined>();
    const holding = await until('both workers to hold delegations', async () => {
      const shown = await show(coordinator, runId);
      const running = (shown?.delegations ?? []).filter((d) => d.status === 'running');
      for (const d of running) seen.add(d.executor);
      const first = running.some((d) => d.executor === ids[0]);
      return first && ids.every((id) => seen.has(id)) ? shown : undefined;
    });
    // All six were enqueued at once (the queue, not the tool, bounds how many run).
    expect(holding.delegations).toHaveLength(TASKS);
    workers[0]?.child.kill('SIGKILL');

    expect(await run.exited, run.output().stderr).toBe(0);
    const shown = await show(coordinator, runId);
    expect(shown?.status).toBe('finished');
    expect(shown?.delegations?.map((d) => d.status)).toEqual(Array(TASKS).fill('finished'));
    // The killed worker's delegations were taken over by the other one.
    expect(shown?.delegations?.every((d) => d.executor === ids[1])).toBe(true);
    const lines = run
      .output()
      .stdout.trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as { type: string; name?: string; result?: { ok: boolean; data?: unknown } },
      );
    const fan = lines.find((l) => l.type === 'tool-result' && l.name === 'delegate_parallel');
    const { results } = (fan?.result?.data ?? { results: [] }) as {
      results: { ok: boolean; answer?: string }[];
    };
    expect(results.map((r) => r.ok)).toEqual(Array(TASKS).fill(true));
    // The sub-agents' calls are reported as a plain run reports them, once each (a child taken
    // over from the killed worker included): the same stream as without --durable.
    const progress = lines
      .filter((l) => l.type === 'tool-progress')
      .map((l) => (l as { message?: string }).message)
      .sort();
    expect(progress).toEqual([...Array(TASKS - 1).fill('writer → write_file ✓'), 'writer → write_file ✗']);
    for (let i = 0; i < TASKS - 1; i++) {
      expect(results[i]?.answer).toContain(`write ${i} ->`);
      expect(await readFile(join(coordinator, 'ws', 'out', `${i}.txt`), 'utf8')).toBe(
        `written by task ${i}\n`,
      );
    }
    // The write outside the coordinator's workspace was refused by its policy (deny).
    expect(results[TASKS - 1]?.answer).toMatch(/escape 5 -> .*"ok":false.*outside workspace/s);
    expect(await readFile(join(coordinator, 'escaped.txt'), 'utf8').catch(() => 'absent')).toBe('absent');
    // Nothing landed where the workers run.
    for (const host of ['worker-a', 'worker-b']) expect(await readdir(join(root, host))).toEqual([]);
    workers[1]?.child.kill('SIGTERM');
    expect(await workers[1]?.exited).toBe(0);
  }, 480_000);

  it('the coordinator killed mid-delegation: a worker takes the run over, finished delegations are not run again', async () => {
    const coordinator = join(root, 'coordinator');
    await rm(join(coordinator, 'ws', 'out'), { recursive: true, force: true });
    writerCalls.clear();
    stagger = true;
    const { worker } = await startWorker({ store, concurrency: 6 }, join(root, 'worker-a'), children);
    const run = raf(['run', 'agent.yaml', '--durable', '--store', store, '-i', 'fan out again'], coordinator);
    const runId = await until('the run to start', async () => /^run (\S+)$/m.exec(run.output().stdout)?.[1]);
    // The delegations' statuses as the probe saw them, in order (each change once).
    const snapshots: string[] = [];
    await until(
      'a delegation to finish while others run',
      async () => {
        const children = (await show(coordinator, runId))?.delegations ?? [];
        const now = children.map((d) => d.status).join(',');
        if (snapshots.at(-1) !== now) snapshots.push(now);
        return children.some((d) => d.status === 'finished') && children.some((d) => d.status === 'running')
          ? true
          : undefined;
      },
      120_000,
      async () =>
        `delegation statuses seen: ${JSON.stringify(snapshots)}\nworker stderr:\n${worker.output().stderr.slice(-3000)}`,
    );
    run.child.kill('SIGKILL');
    await run.exited;
    const shown = await until(
      'the worker to finish the run',
      async () => {
        const info = await show(coordinator, runId);
        return info?.status === 'finished' ? info : undefined;
      },
      120_000,
      async () =>
        [
          `run: ${JSON.stringify(await show(coordinator, runId), null, 1)}`,
          `writer calls: ${JSON.stringify([...writerCalls])}`,
          `worker stderr:\n${worker.output().stderr.slice(-4000)}`,
          `coordinator stderr:\n${run.output().stderr.slice(-2000)}`,
        ].join('\n'),
    );
    expect(shown.text).toMatch(/^all done: /);
    // Still the same six children, each run once (two model calls: the write, then the answer).
    expect(shown.delegations?.map((d) => d.status)).toEqual(Array(TASKS).fill('finished'));
    expect([...writerCalls.values()]).toEqual(Array(TASKS).fill(2));
    for (let i = 0; i < TASKS - 1; i++)
      expect(await readFile(join(coordinator, 'ws', 'out', `${i}.txt`), 'utf8')).toBe(
        `written by task ${i}\n`,
      );
    for (const host of ['worker-a', 'worker-b']) expect(await readdir(join(root, host))).toEqual([]);
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  }, 480_000);
});
