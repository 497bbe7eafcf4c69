import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MockModelServer, type MockTurn, startMockModelServer } from '@raf/client/testing';
import { type PgCluster, postgresSkipReason, startPgCluster } from '@raf/postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcess, type RafProcess, spawnRaf, until, workerStarted } from './test-support/durable-cli.js';

/**
 * A sub-agent's approval in a durable run (SPEC §14.2), through the CLI, each process in its own
 * folder standing in for a host: the sub-agent's proxied `write_file` under the coordinator's
 * `approve` policy (a path outside its root asks) parks the coordinator's run (exit 3) with the request named as a plain run
 * names it (`<delegation call>/<call>`, `agentPath: [writer]`); `raf approve` from other folders
 * (two at once: one wins) answers it; a `raf worker` finishes the run and the file lands once, in
 * the coordinator's host, where its workspace lives. `--none` gives the sub-agent a plain run's denial. Skipped without
 * PostgreSQL binaries.
 */
let cluster: PgCluster | undefined;
let server: MockModelServer;
let store: string;
let root: string;
const children: ChildProcess[] = [];
/** The writer's model calls, by task: a delegation run twice would call its model again. */
const writerCalls = new Map<string, number>();

type Message = { role: string; content: string | null };

function turn(body: { model: string; messages: Message[] }): MockTurn {
  const last = body.messages.at(-1);
  const task = body.messages.find((m) => m.role === 'user')?.content ?? '';
  if (body.model === 'coordinator') {
    if (last?.role === 'tool') return { text: `done: ${last.content}` };
    if (task.startsWith('fan')) {
      const tasks = task
        .split(' ')
        .slice(1)
        .map((id) => ({ agent: 'writer', task: `write ${id}` }));
      return { toolCalls: [{ id: 'fan', name: 'delegate_parallel', arguments: { tasks } }] };
    }
    const id = task.split(' ')[1] ?? 'x';
    const agent = task.startsWith('run') ? 'runner' : 'writer';
    return { toolCalls: [{ id: `d${id}`, name: 'delegate_task', arguments: { agent, task } }] };
  }
  writerCalls.set(task, (writerCalls.get(task) ?? 0) + 1);
  if (last?.role === 'tool') return { text: `${task} -> ${last.content}` };
  const id = task.split(' ')[1] ?? 'x';
  // The runner's `run_command` runs on the worker (worker-local) and asks under `approve`.
  if (body.model === 'runner')
    return {
      toolCalls: [{ id: `r${id}`, name: 'run_command', arguments: { command: `echo ${id} >> count.txt` } }],
    };
  return {
    toolCalls: [
      { id: `w${id}`, name: 'write_file', arguments: { path: `../out/${id}.txt`, content: `by ${id}\n` } },
    ],
  };
}

interface Shown {
  status: string;
  text?: string;
  requests?: { callId: string; name: string; agentPath?: string[] }[];
}

async function show(runId: string): Promise<Shown> {
  const { code, out, err } = await inProcess(join(root, 'other'), [
    'runs',
    'show',
    runId,
    '--store',
    store,
    '--json',
  ]);
  if (code !== 0) throw new Error(`raf runs show ${runId}: exit ${code}: ${err}`);
  return JSON.parse(out) as Shown;
}

/** The run once it ended (finished or failed), with the worker's stderr in a timeout's message. */
function ended(runId: string, worker?: RafProcess): Promise<Shown> {
  return until(
    'the worker to finish the run',
    async () => {
      const info = await show(runId);
      return info.status === 'finished' || info.status === 'failed' ? info : undefined;
    },
    120_000,
    async () =>
      `${JSON.stringify(await show(runId))}\nworker:\n${worker?.output().stderr.slice(-3000) ?? ''}`,
  );
}

/** Two `raf approve RUN_ID --all` at once from two other folders: their exit codes, sorted. */
async function approveTwice(runId: string): Promise<number[]> {
  const approvals = await Promise.all(
    ['other', 'another'].map((host) =>
      inProcess(join(root, host), ['approve', runId, '--all', '--store', store]),
    ),
  );
  return approvals.map((a) => a.code).sort();
}

describe.skipIf(postgresSkipReason !== undefined)('a sub-agent asks for approval in a durable run', () => {
  const coordinator = () => join(root, 'coordinator');

  beforeAll(async () => {
    cluster = await startPgCluster();
    store = cluster.createDatabase('durable_sub_approval');
    root = await mkdtemp(join(tmpdir(), 'raf-cli-sub-approval-'));
    server = await startMockModelServer({
      turns: (request) => turn(request.body as { model: string; messages: Message[] }),
    });
    for (const host of ['coordinator', 'worker', 'other', 'another']) await mkdir(join(root, host));
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
        '    config: { root: ./ws, policy: approve }',
        'subAgents:',
        '  - kind: prompt',
        '    name: writer',
        '    description: writes the file it is asked for',
        `    model: ${model('writer')}`,
        '    tools:',
        '      - { kind: file, name: write_file }',
        '  - kind: prompt',
        '    name: runner',
        '    description: runs the command it is asked for',
        `    model: ${model('runner')}`,
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

  it('a proxied write_file parks the run; two concurrent raf approve --all: one wins; a worker writes the file once in the coordinator workspace', async () => {
    const worker = spawnRaf(['worker', '--store', store], join(root, 'worker'), children);
    await workerStarted(worker);
    const run = spawnRaf(
      ['run', 'agent.yaml', '--durable', '--store', store, '-i', 'write a', '--json'],
      coordinator(),
      children,
    );
    expect(await run.exited, `${run.output().stdout}\n${run.output().stderr}`).toBe(3);
    const lines = run
      .output()
      .stdout.trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; runId?: string; reason?: string });
    const runId = lines[0]?.runId ?? '';
    expect(lines[0]?.type).toBe('run-started');
    expect(lines.find((l) => l.type === 'tool-approval-request')).toMatchObject({
      callId: 'da/wa',
      name: 'write_file',
      agentPath: ['writer'],
    });
    expect(lines.at(-1)).toMatchObject({ type: 'finish', reason: 'awaitingApproval' });
    expect(await show(runId)).toMatchObject({
      status: 'paused',
      requests: [{ callId: 'da/wa', name: 'write_file', agentPath: ['writer'] }],
    });
    const text = await inProcess(join(root, 'other'), ['runs', 'show', runId, '--store', store]);
    expect(text.out).toMatch(/waiting for approval: da\/wa writer: write_file /);
    // The process is gone and nothing ran yet.
    expect(await readdir(coordinator())).toEqual(['agent.yaml', 'ws']);

    expect(await approveTwice(runId)).toEqual([0, 5]);
    const shown = await ended(runId, worker);
    expect(shown.status).toBe('finished');
    expect(shown.text).toMatch(/^done: .*write a -> .*bytes_written.*outside_workspace/s);
    expect(await readFile(join(coordinator(), 'out', 'a.txt'), 'utf8')).toBe('by a\n');
    // Ran once: the sub-agent's model was called twice (the write, then the answer), not more.
    expect(writerCalls.get('write a')).toBe(2);
    for (const host of ['worker', 'other', 'another']) expect(await readdir(join(root, host))).toEqual([]);
    // Answered once: a third answer is refused.
    expect((await inProcess(join(root, 'other'), ['approve', runId, '--none', '--store', store])).code).toBe(
      5,
    );

    // Denied (`--none`): nothing is written; the sub-agent reads a plain run's denial.
    const denied = spawnRaf(
      ['run', 'agent.yaml', '--durable', '--store', store, '-i', 'write b'],
      coordinator(),
      children,
    );
    expect(await denied.exited, denied.output().stderr).toBe(3);
    const deniedId = /^run (\S+)$/m.exec(denied.output().stdout)?.[1] ?? '';
    expect((await show(deniedId)).requests?.map((r) => r.callId)).toEqual(['db/wb']);
    const no = await inProcess(join(root, 'other'), ['approve', deniedId, '--none', '--store', store]);
    expect(no.code, no.err).toBe(0);
    const denial = await ended(deniedId, worker);
    expect(denial.status).toBe('finished');
    expect(denial.text).toMatch(/write b -> .*Rejected: User denied/s);
    expect(await readFile(join(coordinator(), 'out', 'b.txt'), 'utf8').catch(() => 'absent')).toBe('absent');
    worker.child.kill('SIGTERM');
    expect(await worker.exited, worker.output().stderr).toBe(0);
  }, 300_000);

  it('--approve all answers a sub-agent request in the process that runs the run', async () => {
    const worker = spawnRaf(['worker', '--store', store], join(root, 'worker'), children);
    await workerStarted(worker);
    const run = spawnRaf(
      ['run', 'agent.yaml', '--durable', '--store', store, '-i', 'write g', '--approve', 'all'],
      coordinator(),
      children,
    );
    expect(await run.exited, `${run.output().stdout}\n${run.output().stderr}`).toBe(0);
    expect(run.output().stdout).toMatch(/write g -> .*bytes_written/s);
    expect(await readFile(join(coordinator(), 'out', 'g.txt'), 'utf8')).toBe('by g\n');
    expect(writerCalls.get('write g')).toBe(2);
    worker.child.kill('SIGTERM');
    expect(await worker.exited, worker.output().stderr).toBe(0);
  }, 300_000);

  it('delegate_parallel: both sub-agents ask, the run parks once with both; --call approves one, the other is denied', async () => {
    const worker = spawnRaf(['worker', '--store', store], join(root, 'worker'), children);
    await workerStarted(worker);
    const run = spawnRaf(
      ['run', 'agent.yaml', '--durable', '--store', store, '-i', 'fan e f'],
      coordinator(),
      children,
    );
    expect(await run.exited, `${run.output().stdout}\n${run.output().stderr}`).toBe(3);
    const runId = /^run (\S+)$/m.exec(run.output().stdout)?.[1] ?? '';
    const paused = await show(runId);
    expect(paused.status).toBe('paused');
    expect(paused.requests?.map((r) => [r.callId, r.agentPath])).toEqual([
      ['fan/0/we', ['writer']],
      ['fan/1/wf', ['writer']],
    ]);
    const some = await inProcess(join(root, 'other'), [
      'approve',
      runId,
      '--call',
      'fan/0/we',
      '--store',
      store,
    ]);
    expect(some.code, some.err).toBe(0);
    const shown = await ended(runId, worker);
    expect(shown.status).toBe('finished');
    expect(shown.text).toMatch(/write e -> .*bytes_written/s);
    expect(shown.text).toMatch(/write f -> .*Rejected: User denied/s);
    expect(await readFile(join(coordinator(), 'out', 'e.txt'), 'utf8')).toBe('by e\n');
    expect(await readFile(join(coordinator(), 'out', 'f.txt'), 'utf8').catch(() => 'absent')).toBe('absent');
    expect([writerCalls.get('write e'), writerCalls.get('write f')]).toEqual([2, 2]);
    worker.child.kill('SIGTERM');
    expect(await worker.exited, worker.output().stderr).toBe(0);
  }, 300_000);

  it('a worker-local run_command parks the child and the run; two concurrent raf approve --all: one wins; the command runs once on the worker', async () => {
    const worker = spawnRaf(['worker', '--store', store], join(root, 'worker'), children);
    await workerStarted(worker);
    const run = spawnRaf(
      ['run', 'agent.yaml', '--durable', '--store', store, '-i', 'run c'],
      coordinator(),
      children,
    );
    expect(await run.exited, `${run.output().stdout}\n${run.output().stderr}`).toBe(3);
    const runId = /^run (\S+)$/m.exec(run.output().stdout)?.[1] ?? '';
    expect(await show(runId)).toMatchObject({
      status: 'paused',
      requests: [{ callId: 'dc/rc', name: 'run_command', agentPath: ['runner'] }],
    });
    expect(await readFile(join(coordinator(), 'ws', 'count.txt'), 'utf8').catch(() => 'absent')).toBe(
      'absent',
    );
    expect(await approveTwice(runId)).toEqual([0, 5]);
    const shown = await ended(runId, worker);
    expect(shown.status).toBe('finished');
    expect(shown.text).toMatch(/^done: .*run c -> /s);
    expect(await readFile(join(coordinator(), 'ws', 'count.txt'), 'utf8')).toBe('c\n');
    expect(writerCalls.get('run c')).toBe(2);
    for (const host of ['worker', 'other', 'another']) expect(await readdir(join(root, host))).toEqual([]);

    // Denied: the command does not run; the sub-agent reads the denial.
    const denied = spawnRaf(
      ['run', 'agent.yaml', '--durable', '--store', store, '-i', 'run d'],
      coordinator(),
      children,
    );
    expect(await denied.exited, denied.output().stderr).toBe(3);
    const deniedId = /^run (\S+)$/m.exec(denied.output().stdout)?.[1] ?? '';
    const no = await inProcess(join(root, 'other'), ['approve', deniedId, '--none', '--store', store]);
    expect(no.code, no.err).toBe(0);
    const denial = await ended(deniedId, worker);
    expect(denial.status).toBe('finished');
    expect(denial.text).toMatch(/run d -> .*denied/is);
    expect(await readFile(join(coordinator(), 'ws', 'count.txt'), 'utf8')).toBe('c\n');
    worker.child.kill('SIGTERM');
    expect(await worker.exited, worker.output().stderr).toBe(0);
  }, 300_000);
});
