import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { type PgCluster, postgresSkipReason, startPgCluster } from '@raf/postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasScript, inProcess, jsonLines, killRafProcesses, raf, until } from './test-support/durable-cli.js';

/**
 * A `kind: workflow` (and an orchestration) that pauses under `raf run --durable` parks like an
 * agent's durable run (SPEC §14.2, §14.4): exit 3, `paused` in the store with what it waits for,
 * answered by `raf approve RUN_ID --answer TEXT` (a question) or `--all` (an approval) from
 * another folder, one claim of two concurrent answers, a `raf worker` in a third folder goes on
 * from the newest checkpoint. Each process in its own folder; skipped without PostgreSQL.
 */
let cluster: PgCluster | undefined;
let server: MockModelServer;
let store: string;
let root: string;
const hosts: string[] = [];
let doerCalls = 0;

interface Shown {
  status: string;
  text?: string;
  requests?: { callId: string; name: string }[];
  questions?: { nodeId: string; prompt: string }[];
}

const show = async (runId: string, json = true) => {
  const { code, out, err } = await inProcess(hosts[2] ?? '', [
    'runs',
    'show',
    runId,
    '--store',
    store,
    ...(json ? ['--json'] : []),
  ]);
  if (code !== 0) throw new Error(`raf runs show ${runId}: exit ${code}: ${err}`);
  return json ? (JSON.parse(out) as Shown) : out;
};
const shown = async (runId: string) => (await show(runId)) as Shown;

// Says hello (an output before the question: its node must not run again), asks, answers.
const QUESTION = `kind: workflow
name: age-check
trigger:
  actions:
    - kind: SendActivity
      activity: { text: '=Concat("Hello ", System.LastMessage.Text)' }
    - kind: Question
      id: ask_age
      question: { text: '=Concat("Hi ", System.LastMessage.Text, ", how old are you?")' }
      variable: Local.age
    - kind: If
      condition: =Local.age >= 18
      then:
        - kind: SendActivity
          activity: { text: adult }
      else:
        - kind: SendActivity
          activity: { text: minor }
`;

describe.skipIf(postgresSkipReason !== undefined)('a durable workflow that pauses parks', () => {
  beforeAll(async () => {
    cluster = await startPgCluster();
    store = cluster.createDatabase('durable_workflow_pause');
    root = await mkdtemp(join(tmpdir(), 'raf-cli-durable-flow-'));
    server = await startMockModelServer({
      turns: (request) => {
        const { messages } = request.body as { messages: { role: string; content: string }[] };
        const last = messages.at(-1);
        doerCalls++;
        return last?.role === 'tool'
          ? { text: 'done' }
          : { toolCalls: [{ id: 'c1', name: 'run_command', arguments: { command: 'echo x >> count.txt' } }] };
      },
    });
    for (let i = 0; i < 3; i++) {
      const folder = join(root, `host${i}`);
      await mkdir(folder);
      await writeFile(join(folder, 'q.yaml'), QUESTION);
      const model = `{ id: m, provider: custom, connection: { endpoint: "${server.baseURL}" } }`;
      await writeFile(
        join(folder, 'team.yaml'),
        `name: team\nmodel: ${model}\nmetadata: { orchestration: sequential }\nsubAgents:\n  - name: doer\n    model: ${model}\n    contexts: [{ kind: workspace, name: w, config: { root: ., policy: approve } }]\n    tools: [{ kind: shell }]\n`,
      );
      hosts.push(folder);
    }
  }, 120_000);

  afterAll(async () => {
    killRafProcesses();
    await server?.close();
    cluster?.stop();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('a question: exit 3 saying how to answer; --all is refused (exit 2, nothing claimed); two --answer at once: one wins; a worker finishes it', async () => {
    const run = raf(['run', 'q.yaml', '--durable', '--store', store, '-i', 'Bo', '--json'], hosts[0] ?? '');
    expect(await run.exited, run.output().stderr).toBe(3);
    const lines = jsonLines<{ type: string; runId?: string; reason?: string; rawReason?: string }>(
      run.output().stdout,
    );
    const runId = lines[0]?.runId ?? '';
    expect(lines[0]?.type).toBe('run-started');
    // The same ending as a plain run's pause for input.
    expect(lines.at(-1)).toMatchObject({ type: 'finish', reason: 'other' });
    expect(run.output().stderr).toContain('waiting for an answer: Hi Bo, how old are you?');
    expect(run.output().stderr).toContain(`raf approve ${runId} --answer "…"`);
    expect(await shown(runId)).toMatchObject({
      status: 'paused',
      questions: [{ nodeId: 'ask_age', prompt: 'Hi Bo, how old are you?' }],
      requests: [],
    });
    expect(await show(runId, false)).toContain('  waiting for an answer: ask_age Hi Bo, how old are you?\n');

    // The wrong kind of answer: a clear error, exit 2, and the pause is still there to answer.
    const wrong = await inProcess(hosts[1] ?? '', ['approve', runId, '--all', '--store', store]);
    expect(wrong.code).toBe(2);
    expect(wrong.err).toContain('waits for an answer to "Hi Bo, how old are you?", not an approval');
    expect((await shown(runId)).status).toBe('paused');

    const worker = raf(['worker', '--store', store], hosts[1] ?? '');
    const answers = await Promise.all(
      [hosts[1] ?? '', hosts[2] ?? ''].map((f) =>
        inProcess(f, ['approve', runId, '--answer', '42', '--store', store, '--json']),
      ),
    );
    expect(answers.map((a) => a.code).sort(), JSON.stringify(answers)).toEqual([0, 5]);
    expect(answers.find((a) => a.code === 5)?.err).toMatch(/already answered/);
    expect(JSON.parse(answers.find((a) => a.code === 0)?.out ?? '{}')).toEqual({
      runId,
      approvals: [],
      answers: [{ nodeId: 'ask_age', prompt: 'Hi Bo, how old are you?', answer: '42' }],
    });
    await until('the worker to finish the run', async () => (await shown(runId)).status === 'finished');
    // Each output once: the hello before the question did not run again, the answer went on once.
    expect(await shown(runId)).toMatchObject({ status: 'finished', text: 'Hello Bo\nadult' });
    worker.child.kill('SIGTERM');
    expect(await worker.exited, worker.output().stderr).toBe(0);
  }, 180_000);

  it.runIf(hasScript)(
    'a question on a terminal is asked there; the answer goes on in the same process, and the run is not left paused',
    async () => {
      const run = raf(['run', 'q.yaml', '--durable', '--store', store, '-i', 'Ann'], hosts[0] ?? '', {
        terminal: true,
      });
      await until(
        'the question on the terminal',
        async () => run.output().stdout.includes('Hi Ann, how old are you?'),
        60_000,
        async () => run.output().stdout,
      );
      run.child.stdin?.write('12\n');
      expect(await run.exited, run.output().stdout).toBe(0);
      const screen = run.output().stdout;
      expect(screen).toContain('Hello Ann');
      expect(screen).toContain('minor');
      expect(screen).not.toContain('raf approve');
      const runId = /run ([0-9a-f-]{36})/.exec(screen)?.[1] ?? '';
      expect(runId, screen).not.toBe('');
      expect(await shown(runId)).toMatchObject({ status: 'finished', text: 'Hello Ann\nminor' });
    },
    120_000,
  );

  it('an approval inside an orchestration: --answer is refused (exit 2); two --all at once: one wins; the call runs once where the file lives', async () => {
    doerCalls = 0;
    const run = raf(
      ['run', 'team.yaml', '--durable', '--store', store, '-i', 'go', '--json'],
      hosts[0] ?? '',
    );
    expect(await run.exited, run.output().stderr).toBe(3);
    const lines = jsonLines(run.output().stdout);
    const runId = lines[0]?.runId ?? '';
    expect(lines.find((l) => l.type === 'tool-approval-request')).toMatchObject({ callId: 'c1' });
    expect(lines.at(-1)).toMatchObject({ type: 'finish', reason: 'awaitingApproval' });
    expect(run.output().stderr).toContain('waiting for approval: run_command');
    expect(run.output().stderr).toContain(`raf approve ${runId} --all|--none|--call ID`);
    expect(await shown(runId)).toMatchObject({
      status: 'paused',
      requests: [{ callId: 'c1', name: 'run_command' }],
    });
    expect(await show(runId, false)).toContain('  waiting for approval: c1 run_command');

    const wrong = await inProcess(hosts[1] ?? '', ['approve', runId, '--answer', 'yes', '--store', store]);
    expect(wrong.code).toBe(2);
    expect(wrong.err).toContain('waits for approval of run_command, not an answer');
    // A call named twice: refused, naming it, before anything is claimed.
    const twice = await inProcess(hosts[1] ?? '', [
      'approve',
      runId,
      '--call',
      'c1',
      '--call',
      'c1',
      '--store',
      store,
    ]);
    expect(twice.code).toBe(2);
    expect(twice.err).toContain(`run ${runId}: call c1 is named more than once`);
    expect((await shown(runId)).status).toBe('paused');
    expect(await readFile(join(hosts[0] ?? '', 'count.txt'), 'utf8').catch(() => '')).toBe('');

    const worker = raf(['worker', '--store', store], hosts[1] ?? '');
    const approvals = await Promise.all(
      [hosts[1] ?? '', hosts[2] ?? ''].map((f) =>
        inProcess(f, ['approve', runId, '--all', '--store', store]),
      ),
    );
    expect(approvals.map((a) => a.code).sort(), JSON.stringify(approvals)).toEqual([0, 5]);
    await until('the worker to finish the run', async () => (await shown(runId)).status === 'finished');
    expect(await shown(runId)).toMatchObject({ status: 'finished', text: 'done' });
    // One execution: the command ran once, in the agent's folder; the doer's model was asked
    // twice in all (the call, then its result), not again for the turn before the pause.
    expect(await readFile(join(hosts[0] ?? '', 'count.txt'), 'utf8')).toBe('x\n');
    for (const other of [hosts[1], hosts[2]])
      expect(await readFile(join(other ?? '', 'count.txt'), 'utf8').catch(() => '')).toBe('');
    expect(doerCalls).toBe(2);
    worker.child.kill('SIGTERM');
    expect(await worker.exited, worker.output().stderr).toBe(0);
  }, 180_000);

  it.runIf(hasScript)(
    'an approval on a terminal: asked there with its preview, y runs the call once, in this folder',
    async () => {
      doerCalls = 0;
      const run = raf(['run', 'team.yaml', '--durable', '--store', store, '-i', 'go'], hosts[2] ?? '', {
        terminal: true,
      });
      await until(
        'the approval prompt on the terminal',
        async () => run.output().stdout.includes('[y/N'),
        60_000,
        async () => run.output().stdout,
      );
      expect(run.output().stdout).toContain('run_command');
      run.child.stdin?.write('y\n');
      expect(await run.exited, run.output().stdout).toBe(0);
      expect(run.output().stdout).toContain('done');
      expect(await readFile(join(hosts[2] ?? '', 'count.txt'), 'utf8')).toBe('x\n');
      expect(doerCalls).toBe(2);
    },
    120_000,
  );

  it('raf runs cancel: a workflow parked at a question ends cancelled; answering it then is refused (exit 5)', async () => {
    const run = raf(['run', 'q.yaml', '--durable', '--store', store, '-i', 'Cy'], hosts[0] ?? '');
    expect(await run.exited, run.output().stderr).toBe(3);
    const runId = /^run (\S+)$/m.exec(run.output().stdout)?.[1] ?? '';
    expect(run.output().stdout).toContain('Hello Cy');
    expect(run.output().stderr).toContain(
      `paused for input; answer from any folder with: raf approve ${runId} --answer "…"`,
    );
    const cancelled = await inProcess(hosts[1] ?? '', ['runs', 'cancel', runId, '--store', store, '--json']);
    expect(cancelled.code, cancelled.err).toBe(0);
    expect(JSON.parse(cancelled.out)).toMatchObject({ runId, status: 'cancelled' });
    const late = await inProcess(hosts[2] ?? '', ['approve', runId, '--answer', '7', '--store', store]);
    expect(late.code).toBe(5);
    expect(late.err).toContain('is not waiting for an answer (cancelled)');
  }, 120_000);
});
