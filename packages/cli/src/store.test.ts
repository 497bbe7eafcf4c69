import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { createMemoryIO as memoryIO } from './memory-io.js';

/**
 * `--store URL` end to end (SPEC §14.1), in this process: each `main()` opens its own store
 * connection and takes the session's lease as a separate `raf run` would (file locks, SQLite's
 * write lock). Postgres: `packages/postgres/src/cli-store.test.ts`.
 */
let dir: string;
let server: MockModelServer;
let requests = 0;
/** Runs (synchronously) when the model is asked: a step of "another process" at a known point. */
let onRequest: (() => void) | undefined;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'raf-cli-store-'));
  // Each request answers with the text of the last user message: a turn's answer names its input.
  server = await startMockModelServer({
    turns: (request) => {
      requests += 1;
      onRequest?.();
      onRequest = undefined;
      const messages = (request.body as { messages: { role: string; content: string }[] }).messages;
      const last = [...messages].reverse().find((m) => m.role === 'user' || m.role === 'tool');
      if (last?.role === 'user' && last.content.startsWith('count'))
        return {
          toolCalls: [
            { id: `c${requests}`, name: 'run_command', arguments: { command: 'echo x >> count.txt' } },
          ],
        };
      return { text: `answer to ${last?.content ?? ''}` };
    },
  });
  await writeFile(
    join(dir, 'agent.yaml'),
    `name: store-test\nmodel: { id: m, provider: custom, connection: { endpoint: "${server.baseURL}" } }\ncontexts:\n  - kind: workspace\n    name: here\n    config: { root: ., policy: approve }\ntools:\n  - kind: file\n`,
  );
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const stores = [
  ['file', () => `file:${join(dir, 'state')}`],
  ['sqlite', () => `sqlite:${join(dir, 'state.db')}`],
] as const;

describe.each(stores)('raf run --store %s:', (name, url) => {
  it('4 concurrent turns on one session: all 4 kept, in the order they ran, each from the one before', async () => {
    const session = `four-${name}`;
    const runs = await Promise.all(
      [1, 2, 3, 4].map(async (n) => {
        const io = memoryIO({ cwd: dir });
        const code = await main(
          ['run', 'agent.yaml', '-i', `turn ${n}`, '--session', session, '--store', url()],
          io.io,
        );
        return { code, err: io.err() };
      }),
    );
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0, 0]);
    const show = memoryIO({ cwd: dir });
    expect(
      await main(
        ['run', 'agent.yaml', '-i', 'last', '--session', session, '--store', url(), '--json'],
        show.io,
      ),
    ).toBe(0);
    const sent = server.requests.at(-1)?.body as { messages: { role: string; content: string }[] };
    const users = sent.messages.filter((m) => m.role === 'user').map((m) => m.content);
    expect(users).toHaveLength(5);
    expect(new Set(users.slice(0, 4))).toEqual(new Set(['turn 1', 'turn 2', 'turn 3', 'turn 4']));
    // Each answer follows its own question: no turn was lost or interleaved.
    const pairs = sent.messages.filter((m) => m.role !== 'system');
    for (let i = 0; i < 8; i += 2) expect(pairs[i + 1]?.content).toBe(`answer to ${pairs[i]?.content}`);
  });

  it('2 concurrent approval resumes: the approved command runs once, the other exits 5 naming the session', async () => {
    const session = `approve-${name}`;
    await rm(join(dir, 'count.txt'), { force: true });
    const paused = memoryIO({ cwd: dir });
    expect(
      await main(['run', 'agent.yaml', '-i', 'count', '--session', session, '--store', url()], paused.io),
    ).toBe(3);
    const resumes = await Promise.all(
      [1, 2].map(async () => {
        const io = memoryIO({ cwd: dir });
        const code = await main(
          ['run', 'agent.yaml', '--session', session, '--approve', 'all', '--store', url()],
          io.io,
        );
        return { code, err: io.err() };
      }),
    );
    expect(resumes.map((r) => r.code).sort()).toEqual([0, 5]);
    const loser = resumes.find((r) => r.code === 5);
    expect(loser?.err).toMatch(new RegExp(`^raf: session ${session} .*resumed`));
    expect(loser?.err.trim().split('\n')).toHaveLength(1);
    expect(await readFile(join(dir, 'count.txt'), 'utf8')).toBe('x\n');
  });

  it('a turn killed after its call started resumes without input and does not run the call again', async () => {
    const session = `crashed-${name}`;
    await rm(join(dir, 'count.txt'), { force: true });
    const { createStore } = await import('@raf/framework');
    const store = await createStore(url(), { cwd: dir });
    const lease = await store.sessions.acquireLease(session);
    const journal = await store.sessions.openJournal(lease);
    const call = {
      id: 'k1',
      name: 'run_command',
      arguments: JSON.stringify({ command: 'echo x >> count.txt' }),
    };
    await journal.append([
      {
        type: 'messages',
        messages: [
          { role: 'user', content: 'count' },
          { role: 'assistant', content: '', toolCalls: [call] },
        ],
      },
      { type: 'calls-started', callIds: ['k1'] },
    ]);
    // The process died here: its lease is released by the next holder's takeover; here, by hand.
    await lease.release();
    await store.close();
    const io = memoryIO({ cwd: dir });
    expect(
      await main(['run', 'agent.yaml', '--session', session, '--store', url(), '--approve', 'all'], io.io),
    ).toBe(0);
    expect(io.err()).toContain(`resuming the interrupted turn of session ${session}`);
    expect(io.out()).toMatch(/^answer to .*Interrupted/);
    await expect(readFile(join(dir, 'count.txt'), 'utf8')).rejects.toThrow();
  });

  it('--wait 0 on a session in use exits 5 at once, one line naming the session', async () => {
    const session = `busy-${name}`;
    const { createStore } = await import('@raf/framework');
    const store = await createStore(url(), { cwd: dir });
    const lease = await store.sessions.acquireLease(session);
    try {
      const io = memoryIO({ cwd: dir });
      const before = requests;
      expect(
        await main(
          ['run', 'agent.yaml', '-i', 'hi', '--session', session, '--store', url(), '--wait', '0'],
          io.io,
        ),
      ).toBe(5);
      expect(io.err()).toMatch(new RegExp(`^raf: session ${session} is in use by another turn`));
      expect(requests).toBe(before);
    } finally {
      await lease.release();
      await store.close();
    }
  });
});

describe('raf run on a sessions folder it cannot write', () => {
  it.runIf(process.getuid?.() !== 0)(
    'fails before the model or any tool runs, naming the folder',
    async () => {
      const sessions = join(dir, 'readonly');
      await mkdir(sessions);
      await chmod(sessions, 0o555);
      const before = requests;
      const io = memoryIO({ cwd: dir });
      expect(
        await main(
          ['run', 'agent.yaml', '-i', 'count', '--session', 'ro', '--sessions-dir', sessions],
          io.io,
        ),
      ).toBe(2);
      expect(io.err()).toContain(sessions);
      expect(requests).toBe(before);
      await chmod(sessions, 0o755);
    },
  );
});

describe('raf run --json when the save fails', () => {
  it('ends the stream with an error update and then finish, exit 5 for a conflict', async () => {
    const path = join(dir, 'conflict.db');
    const url = `sqlite:${path}`;
    const { SqliteSessionStore } = await import('@raf/framework');
    const other = await SqliteSessionStore.open(path);
    // While the turn runs, another writer that ignores the lease saves the session first.
    onRequest = () => {
      const now = new Date().toISOString();
      other.database.prepare('INSERT OR REPLACE INTO raf_sessions (id, revision, data) VALUES (?, ?, ?)').run(
        'sv',
        7,
        JSON.stringify({
          version: 1,
          id: 'sv',
          messages: [],
          state: {},
          metadata: {},
          createdAt: now,
          updatedAt: now,
        }),
      );
    };
    const io = memoryIO({ cwd: dir });
    expect(
      await main(['run', 'agent.yaml', '-i', 'hello', '--session', 'sv', '--store', url, '--json'], io.io),
    ).toBe(5);
    const lines = io
      .out()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; code?: string });
    expect(lines.at(-2)).toMatchObject({ type: 'error', code: 'RAF_SESSION_CONFLICT' });
    expect(lines.at(-1)).toMatchObject({ type: 'finish' });
    expect(io.err()).toMatch(/^raf: session sv was saved by another turn/);
    other.close();
  });
});
