import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { type PgCluster, postgresSkipReason, startPgCluster } from '@raf/postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcess, killRafProcesses, raf, until } from './test-support/durable-cli.js';

/**
 * Durable runs through the CLI (SPEC §14.2), each process in its own working folder standing in
 * for a host, one Postgres store: `raf run --durable` parks at an approval and exits 3, `raf
 * approve` from other folders (two at once: one wins), a `raf worker` finishes the run where the
 * agent's workspace is. Skipped without PostgreSQL binaries.
 */
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const mcpServer = join(repo, 'packages/mcp/src/test-support/test-server.ts');
let cluster: PgCluster | undefined;
let server: MockModelServer;
let store: string;
let root: string;
const hosts: string[] = [];

const show = async (runId: string) => {
  const { code, out, err } = await inProcess(hosts[2] ?? '', [
    'runs',
    'show',
    runId,
    '--store',
    store,
    '--json',
  ]);
  expect(code, err).toBe(0);
  return JSON.parse(out) as { runId: string; status: string; text?: string; requests?: { callId: string }[] };
};

describe.skipIf(postgresSkipReason !== undefined)(
  'raf run --durable, raf approve, raf worker, raf runs',
  () => {
    beforeAll(async () => {
      cluster = await startPgCluster();
      store = cluster.createDatabase('durable_cli');
      root = await mkdtemp(join(tmpdir(), 'raf-cli-durable-'));
      server = await startMockModelServer({
        turns: (request) => {
          const body = request.body as { model: string; messages: { role: string; content: string }[] };
          const { messages } = body;
          const last = [...messages].reverse().find((m) => m.role === 'user' || m.role === 'tool');
          if (body.model === 'asker')
            return last?.role === 'tool'
              ? { text: `asked: ${last.content}` }
              : { toolCalls: [{ id: 'c1', name: 'ask_name', arguments: {} }] };
          // Slow enough for a Ctrl-C while the model call is on its way.
          if (last?.role === 'user' && last.content.startsWith('slow'))
            return { delayMs: 3000, text: `answer to ${last.content}` };
          if (last?.role === 'user' && last.content.startsWith('count'))
            return {
              toolCalls: [{ id: 'p1', name: 'run_command', arguments: { command: 'echo x >> count.txt' } }],
            };
          return { text: `answer to ${last?.role === 'tool' ? 'the tool' : (last?.content ?? '')}` };
        },
      });
      for (let i = 0; i < 3; i++) {
        const folder = join(root, `host${i}`);
        await mkdir(folder);
        await writeFile(
          join(folder, 'agent.yaml'),
          `name: durable-test\nmodel: { id: m, provider: custom, connection: { endpoint: "${server.baseURL}" } }\ncontexts:\n  - kind: workspace\n    name: here\n    config: { root: ., policy: approve }\ntools:\n  - kind: file\n`,
        );
        hosts.push(folder);
      }
      // No DBOS schema yet: the first durable command creates it (launches take turns doing so).
    }, 120_000);

    afterAll(async () => {
      killRafProcesses();
      await server?.close();
      cluster?.stop();
      if (root) await rm(root, { recursive: true, force: true });
    });

    it('a run that needs no approval: run-started first, the same stream, finish last, exit 0', async () => {
      // A database no durable run used yet holds no runs (no DBOS schema is no error).

      const empty = await inProcess(hosts[2] ?? '', ['runs', 'list', '--store', store, '--json']);

      expect(empty, empty.err).toMatchObject({ code: 0, out: '[]\n' });
      const run = raf(
        ['run', 'agent.yaml', '--durable', '--store', store, '-i', 'hello', '--json'],
        hosts[0] ?? '',
      );
      expect(await run.exited, run.output().stderr).toBe(0);
      // DBOS is given the idle-transaction timeout in the URL: no fire-and-forget query warns.
      expect(run.output().stderr).not.toContain('DeprecationWarning');
      const lines = run
        .output()
        .stdout.trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { type: string; runId?: string; reason?: string });
      expect(lines[0]).toMatchObject({ type: 'run-started', runId: expect.any(String) });
      expect(lines.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
      expect(lines.filter((l) => l.type === 'text-delta').length).toBeGreaterThan(0);
      expect(await show(lines[0]?.runId ?? '')).toMatchObject({
        status: 'finished',
        text: 'answer to hello',
      });
    }, 60_000);

    it('runs parked by processes exiting together all stay paused (12 runs, 3 at a time)', async () => {
      // DBOS's shutdown marks its system database gone before it closes the pool; a parked run
      // whose wait polled in between was recorded failed ("The system database has been shut
      // down"): 4 of 24 under load before the fix. Several processes at once widen that window.
      const lost: string[] = [];
      for (let round = 0; round < 4; round++) {
        const runs = [0, 1, 2].map(() =>
          raf(['run', 'agent.yaml', '--durable', '--store', store, '-i', 'count', '--json'], hosts[0] ?? ''),
        );
        for (const run of runs) {
          const code = await run.exited;
          const first = JSON.parse(run.output().stdout.split('\n')[0] ?? '{}') as { runId?: string };
          const info = await show(first.runId ?? '');
          if (code !== 3 || info.status !== 'paused')
            lost.push(`${first.runId}: exit ${code}, ${info.status}: ${run.output().stderr.slice(-500)}`);
          // Cancelled after: parked runs a later test's worker took over would fill its queue slots.
          await inProcess(hosts[1] ?? '', ['runs', 'cancel', first.runId ?? '', '--store', store]);
        }
      }
      expect(lost).toEqual([]);
    }, 240_000);

    it('parks at an approval (exit 3); two concurrent raf approve from other folders: one wins; a worker runs the call once where the agent lives', async () => {
      const run = raf(
        ['run', 'agent.yaml', '--durable', '--store', store, '-i', 'count', '--json'],
        hosts[0] ?? '',
      );
      expect(await run.exited, run.output().stderr).toBe(3);
      expect(run.output().stderr).not.toContain('DeprecationWarning');
      const lines = run
        .output()
        .stdout.trim()
        .split('\n')
        .map(
          (line) => JSON.parse(line) as { type: string; runId?: string; reason?: string; callId?: string },
        );
      const runId = lines[0]?.runId ?? '';
      expect(lines[0]?.type).toBe('run-started');
      expect(lines.find((l) => l.type === 'tool-approval-request')).toMatchObject({ callId: 'p1' });
      expect(lines.at(-1)).toMatchObject({ type: 'finish', reason: 'awaitingApproval' });
      expect(run.output().stderr).toContain(`raf approve ${runId}`);
      expect(await show(runId)).toMatchObject({ status: 'paused', requests: [{ callId: 'p1' }] });
      // The process is gone: nothing ran yet.
      expect(await readFile(join(hosts[0] ?? '', 'count.txt'), 'utf8').catch(() => '')).toBe('');

      const worker = raf(['worker', '--store', store], hosts[1] ?? '');
      const approvals = await Promise.all(
        [hosts[1] ?? '', hosts[2] ?? ''].map((f) =>
          inProcess(f, ['approve', runId, '--all', '--store', store]),
        ),
      );
      expect(approvals.map((a) => a.code).sort(), JSON.stringify(approvals)).toEqual([0, 5]);
      expect(approvals.find((a) => a.code === 5)?.err).toMatch(/already answered/);
      await until('the worker to finish the run', async () => (await show(runId)).status === 'finished');
      expect(await show(runId)).toMatchObject({ status: 'finished', text: 'answer to the tool' });
      expect(await readFile(join(hosts[0] ?? '', 'count.txt'), 'utf8')).toBe('x\n');
      for (const other of [hosts[1], hosts[2]])
        expect(await readFile(join(other ?? '', 'count.txt'), 'utf8').catch(() => '')).toBe('');
      // Answered once: a third answer is refused.
      expect((await inProcess(hosts[2] ?? '', ['approve', runId, '--none', '--store', store])).code).toBe(5);

      const list = await inProcess(hosts[2] ?? '', ['runs', 'list', '--store', store, '--json']);
      expect(JSON.parse(list.out)).toContainEqual(expect.objectContaining({ runId, status: 'finished' }));
      worker.child.kill('SIGTERM');
      expect(await worker.exited, worker.output().stderr).toBe(0);
    }, 120_000);

    it('raf runs cancel: a parked run ends cancelled; approving it then is refused (exit 5)', async () => {
      const run = raf(
        ['run', 'agent.yaml', '--durable', '--store', store, '-i', 'count again'],
        hosts[0] ?? '',
      );
      expect(await run.exited, run.output().stderr).toBe(3);
      const runId = /^run (\S+)$/m.exec(run.output().stdout)?.[1] ?? '';
      expect(runId).not.toBe('');
      const cancelled = await inProcess(hosts[1] ?? '', [
        'runs',
        'cancel',
        runId,
        '--store',
        store,
        '--json',
      ]);
      expect(cancelled.code, cancelled.err).toBe(0);
      expect(JSON.parse(cancelled.out)).toMatchObject({ runId, status: 'cancelled' });
      expect((await inProcess(hosts[1] ?? '', ['approve', runId, '--all', '--store', store])).code).toBe(5);
      expect((await inProcess(hosts[1] ?? '', ['runs', 'show', 'nope', '--store', store])).code).toBe(2);
      // The session is usable again: its approval batch was closed (the call answered as not run).
      const next = raf(
        ['run', 'agent.yaml', '--durable', '--store', store, '--session', runId, '-i', 'hello again'],
        hosts[0] ?? '',
      );
      expect(await next.exited, next.output().stderr).toBe(0);
      const nextId = /^run (\S+)$/m.exec(next.output().stdout)?.[1] ?? '';
      expect(await show(nextId)).toMatchObject({ status: 'finished', text: 'answer to hello again' });
      expect(await readFile(join(hosts[0] ?? '', 'count.txt'), 'utf8')).toBe('x\n');
    }, 60_000);

    it('Ctrl-C (SIGINT) on raf run --durable detaches: exit 130, the run stays in the store, a worker finishes it', async () => {
      const run = raf(['run', 'agent.yaml', '--durable', '--store', store, '-i', 'slow one'], hosts[0] ?? '');
      let runId = '';
      await until('the run to start', async () => {
        runId = /^run (\S+)$/m.exec(run.output().stdout)?.[1] ?? '';
        return runId !== '' && (await show(runId).catch(() => undefined)) !== undefined;
      });
      run.child.kill('SIGINT');
      expect(await run.exited, run.output().stderr).toBe(130);
      expect(run.output().stderr).toContain(`run ${runId} goes on in a worker`);
      expect((await show(runId)).status).not.toBe('finished');
      const worker = raf(['worker', '--store', store], hosts[1] ?? '');
      await until(
        'a worker to finish the detached run',
        async () => (await show(runId)).status === 'finished',
      );
      expect(await show(runId)).toMatchObject({ status: 'finished', text: 'answer to slow one' });
      worker.child.kill('SIGTERM');
      expect(await worker.exited, worker.output().stderr).toBe(0);
    }, 120_000);

    it('--answer answers an MCP elicitation of a durable run (SPEC §14.4)', async () => {
      const folder = join(root, 'asker');
      await mkdir(folder);
      const log = join(folder, 'events.jsonl');
      await writeFile(
        join(folder, 'agent.yaml'),
        `name: asker\nmodel: { id: asker, provider: custom, connection: { endpoint: "${server.baseURL}" } }\ntools:\n  - kind: mcp\n    name: people\n    config:\n      command: ${JSON.stringify(process.execPath)}\n      args: [--import, tsx, ${JSON.stringify(mcpServer)}]\n      cwd: ${JSON.stringify(repo)}\n      env: { TEST_SERVER_LOG: ${JSON.stringify(log)} }\n`,
      );
      const run = raf(
        [
          'run',
          'agent.yaml',
          '--durable',
          '--store',
          store,
          '-i',
          'who am I',
          '--json',
          '--answer',
          '{"name":"Ada","age":36}',
        ],
        folder,
      );
      expect(await run.exited, run.output().stderr).toBe(0);
      const lines = run
        .output()
        .stdout.trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { type: string; source?: string });
      expect(lines.find((l) => l.type === 'input-request')).toMatchObject({ source: 'mcp:people' });
      const events = (await readFile(log, 'utf8'))
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { event: string; result?: unknown });
      expect(events.find((e) => e.event === 'elicited')?.result).toEqual({
        action: 'accept',
        content: { name: 'Ada', age: 36 },
      });
      expect(lines.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
    }, 120_000);

    it('a kind: workflow file runs durably too: its answer, finished in the store', async () => {
      const folder = join(root, 'flow');
      await mkdir(folder);
      await writeFile(
        join(folder, 'greeting.yaml'),
        'kind: workflow\nname: greeting\ntrigger:\n  kind: OnConversationStart\n  id: greet\n  actions:\n    - kind: SendActivity\n      id: send\n      activity:\n        text: =Concat("Hello, ", System.LastMessage.Text, "!")\n',
      );
      const run = raf(['run', 'greeting.yaml', '--durable', '--store', store, '-i', 'Ada'], folder);
      expect(await run.exited, run.output().stderr).toBe(0);
      const runId = /^run (\S+)$/m.exec(run.output().stdout)?.[1] ?? '';
      expect(run.output().stdout).toContain('Hello, Ada!');
      expect(await show(runId)).toMatchObject({ status: 'finished', text: 'Hello, Ada!' });
    }, 60_000);

    it('refuses what it cannot do durably: a file store (exit 2)', async () => {
      const refused = await inProcess(hosts[0] ?? '', ['run', 'agent.yaml', '--durable', '-i', 'x']);
      expect(refused.code).toBe(2);
      expect(refused.err).toMatch(/--durable needs a Postgres store/);
    });
  },
);
