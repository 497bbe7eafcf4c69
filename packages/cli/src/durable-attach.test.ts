import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { type PgCluster, postgresSkipReason, startPgCluster } from '@raf/postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcess, jsonLines, killRafProcesses, raf, until } from './test-support/durable-cli.js';

/**
 * `raf run --durable --attach FILE`: the parts are the run's recorded input (SPEC §15 with §14.2),
 * so the model gets them from the process that started the run and, after a `kill -9` of it, from
 * a `raf worker` in another folder where the file does not exist. Skipped without PostgreSQL.
 */
const PDF = Buffer.from('%PDF-1.4\n%%EOF\n');
const FILE_PART = {
  type: 'file',
  file: { filename: 'report.pdf', file_data: `data:application/pdf;base64,${PDF.toString('base64')}` },
};
let cluster: PgCluster | undefined;
let server: MockModelServer;
let store: string;
let root: string;
const hosts: string[] = [];

type Body = { messages: { role: string; content: unknown }[] };
const lastUser = (body: unknown) => (body as Body).messages.filter((m) => m.role === 'user').at(-1);

describe.skipIf(postgresSkipReason !== undefined)('raf run --durable --attach', () => {
  beforeAll(async () => {
    cluster = await startPgCluster();
    store = cluster.createDatabase('durable_attach');
    root = await mkdtemp(join(tmpdir(), 'raf-cli-durable-attach-'));
    server = await startMockModelServer({
      turns: (request) => {
        const content = lastUser(request.body)?.content;
        const parts = Array.isArray(content)
          ? content.map((p: { type: string }) => p.type).join('+')
          : 'text';
        // `slow`: long enough to kill the process while the model call is on its way.
        const slow = JSON.stringify(content).includes('slow');
        return { ...(slow && server.requests.length === 1 && { delayMs: 30_000 }), text: `saw ${parts}` };
      },
    });
    for (let i = 0; i < 2; i++) {
      const folder = join(root, `host${i}`);
      await mkdir(folder);
      await writeFile(
        join(folder, 'agent.yaml'),
        `name: reader\nmodel:\n  id: m\n  provider: custom\n  connection: { endpoint: "${server.baseURL}" }\n  capabilities: { files: true }\n`,
      );
      hosts.push(folder);
    }
    // Only the first host has the file: a worker elsewhere must send the recorded parts.
    await writeFile(join(hosts[0]!, 'report.pdf'), PDF);
  }, 120_000);

  afterAll(async () => {
    killRafProcesses();
    await server?.close();
    cluster?.stop();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('sends the text and the PDF as parts; the run finishes with the answer to them', async () => {
    const run = raf(
      [
        'run',
        'agent.yaml',
        '--durable',
        '--store',
        store,
        '-i',
        'Read it.',
        '--attach',
        'report.pdf',
        '--json',
      ],
      hosts[0]!,
    );
    expect(await run.exited, run.output().stderr).toBe(0);
    const lines = jsonLines(run.output().stdout);
    expect(lines[0]).toMatchObject({ type: 'run-started' });
    expect(lines.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
    expect(lastUser(server.requests.at(-1)?.body)).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'Read it.' }, FILE_PART],
    });
  }, 120_000);

  it('after kill -9 of raf run, a worker in a folder without the file sends the same parts', async () => {
    server.requests.length = 0;
    const run = raf(
      ['run', 'agent.yaml', '--durable', '--store', store, '-i', 'slow', '--attach', 'report.pdf', '--json'],
      hosts[0]!,
    );
    await until('the model call of raf run', async () => server.requests.length > 0);
    const runId = jsonLines(run.output().stdout)[0]?.runId ?? '';
    expect(runId).not.toBe('');
    run.child.kill('SIGKILL');
    await run.exited;
    const worker = raf(['worker', '--store', store], hosts[1]!);
    try {
      await until(
        'the worker to finish the run',
        async () => {
          const { out } = await inProcess(hosts[1]!, ['runs', 'show', runId, '--store', store, '--json']);
          return (JSON.parse(out) as { status: string }).status === 'finished';
        },
        60_000,
      );
    } finally {
      worker.child.kill('SIGKILL');
    }
    expect(server.requests.length).toBe(2);
    for (const request of server.requests)
      expect(lastUser(request.body)).toEqual({
        role: 'user',
        content: [{ type: 'text', text: 'slow' }, FILE_PART],
      });
    const { out } = await inProcess(hosts[1]!, ['runs', 'show', runId, '--store', store, '--json']);
    expect(JSON.parse(out)).toMatchObject({ status: 'finished', text: 'saw text+file' });
  }, 180_000);

  it('a workflow refuses --attach (exit 2) instead of dropping the file', async () => {
    await writeFile(
      join(hosts[0]!, 'flow.yaml'),
      'kind: workflow\nname: flow\ntrigger:\n  actions:\n    - kind: SendActivity\n      activity: { text: hi }\n',
    );
    for (const durable of [['--durable', '--store', store], []]) {
      const { code, err } = await inProcess(hosts[0]!, [
        'run',
        'flow.yaml',
        ...durable,
        '-i',
        'x',
        '--attach',
        'report.pdf',
      ]);
      expect({ code, err }).toMatchObject({
        code: 2,
        err: expect.stringContaining('--attach goes to chat agents'),
      });
    }
  }, 60_000);
});
