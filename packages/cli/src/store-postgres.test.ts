import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { type PgCluster, postgresSkipReason, startPgCluster } from '@raf/postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { createMemoryIO as memoryIO } from './memory-io.js';

/**
 * Two hosts' worth of `raf run` on one Postgres store: each turn in its own working folder (so
 * nothing but the database is shared), `--store postgres://…`. Skipped without PostgreSQL binaries.
 */
let cluster: PgCluster | undefined;
let server: MockModelServer;
let root: string;
const folders: string[] = [];
beforeAll(async () => {
  if (postgresSkipReason) return;
  cluster = await startPgCluster();
  root = await mkdtemp(join(tmpdir(), 'raf-cli-pg-'));
  server = await startMockModelServer({
    turns: (request) => {
      const messages = (request.body as { messages: { role: string; content: string }[] }).messages;
      const last = [...messages].reverse().find((m) => m.role === 'user' || m.role === 'tool');
      if (last?.role === 'user' && last.content === 'count')
        return {
          toolCalls: [{ id: 'p1', name: 'run_command', arguments: { command: 'echo x >> count.txt' } }],
        };
      return { text: `answer to ${last?.content ?? ''}` };
    },
  });
  for (let i = 0; i < 4; i++) {
    const folder = join(root, `host${i}`);
    await (await import('node:fs/promises')).mkdir(folder);
    await writeFile(
      join(folder, 'agent.yaml'),
      `name: pg-test\nmodel: { id: m, provider: custom, connection: { endpoint: "${server.baseURL}" } }\ncontexts:\n  - kind: workspace\n    name: here\n    config: { root: ., policy: approve }\ntools:\n  - kind: file\n`,
    );
    folders.push(folder);
  }
}, 60_000);
afterAll(async () => {
  await server?.close();
  cluster?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

const run = async (folder: string, argv: string[]) => {
  const io = memoryIO({ cwd: folder });
  const code = await main(['run', 'agent.yaml', '--store', cluster?.url ?? '', ...argv], io.io);
  return { code, out: io.out(), err: io.err() };
};

describe.skipIf(postgresSkipReason !== undefined)('raf run --store postgres:// from separate folders', () => {
  it('4 concurrent turns on one session: all 4 kept, each answer after its question', async () => {
    const runs = await Promise.all(folders.map((f, i) => run(f, ['-i', `turn ${i}`, '--session', 'shared'])));
    expect(
      runs.map((r) => r.code),
      runs.map((r) => r.err).join(''),
    ).toEqual([0, 0, 0, 0]);
    expect((await run(folders[0] ?? '', ['-i', 'last', '--session', 'shared'])).code).toBe(0);
    const sent = server.requests.at(-1)?.body as { messages: { role: string; content: string }[] };
    const turns = sent.messages.filter((m) => m.role !== 'system');
    expect(turns.filter((m) => m.role === 'user')).toHaveLength(5);
    for (let i = 0; i < 8; i += 2) expect(turns[i + 1]?.content).toBe(`answer to ${turns[i]?.content}`);
  });

  it('2 concurrent approval resumes from two folders: at most one execution, the other exits 5', async () => {
    expect((await run(folders[1] ?? '', ['-i', 'count', '--session', 'paused'])).code).toBe(3);
    const resumes = await Promise.all(
      [folders[1] ?? '', folders[2] ?? ''].map((f) => run(f, ['--session', 'paused', '--approve', 'all'])),
    );
    expect(resumes.map((r) => r.code).sort(), JSON.stringify(resumes)).toEqual([0, 5]);
    expect(resumes.find((r) => r.code === 5)?.err).toMatch(/^raf: session paused .*resumed/);
    // The winner runs it if it resumed in the folder the call was approved for (host1); from
    // another folder the call is refused, its target changed. Never twice.
    const lines = await Promise.all(
      folders.map((f) => readFile(join(f, 'count.txt'), 'utf8').catch(() => '')),
    );
    const winner = resumes.findIndex((r) => r.code === 0);
    expect(lines.join('')).toBe(winner === 0 ? 'x\n' : '');
  });
});
