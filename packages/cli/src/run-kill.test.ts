import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { createMemoryIO as memoryIO } from './memory-io.js';

// SPEC §14.1: a `raf run` killed before its turn's first step completed keeps the user's message
// (the resume asks the model again), and one killed while approvals are asked resumes as a paused
// approval; exit 5 "resumed already" only when a claim was taken, never for a session that
// simply has nothing paused.

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const bin = join(repo, 'packages/cli/src/bin.ts');
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const built = join(dirname(bin), '../dist/bin.js');
const RAF_PROCESS = existsSync(built) ? [built] : ['--conditions=@raf/source', '--import', tsx, bin];

let dir: string;
let server: MockModelServer;
/** Called when the model is asked, with the user messages it was sent; a value: hang that long. */
let onAsk: ((users: string[]) => number | undefined) | undefined;
const asked: string[][] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'raf-run-kill-'));
  server = await startMockModelServer({
    turns: (request) => {
      const messages = (request.body as { messages: { role: string; content: string }[] }).messages;
      const users = messages.filter((m) => m.role === 'user').map((m) => m.content);
      asked.push(users);
      const hang = onAsk?.(users);
      if (hang !== undefined) return { text: 'never sent', delayMs: hang };
      const last = messages.at(-1);
      if (last?.role === 'user' && last.content.startsWith('count'))
        return {
          toolCalls: [{ id: 'c1', name: 'run_command', arguments: { command: 'echo x >> count.txt' } }],
        };
      return { text: `answer to ${last?.content ?? ''}` };
    },
  });
  await writeFile(
    join(dir, 'agent.yaml'),
    `name: kill-test\nmodel: { id: m, provider: custom, connection: { endpoint: "${server.baseURL}" } }\ncontexts:\n  - kind: workspace\n    name: here\n    config: { root: ., policy: approve }\ntools:\n  - kind: file\n`,
  );
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const store = () => `sqlite:${join(dir, 'state.db')}`;

async function raf(args: string[]) {
  const io = memoryIO({ cwd: dir });
  const code = await main(['run', 'agent.yaml', '--store', store(), ...args], io.io);
  return { code, out: io.out(), err: io.err() };
}

describe('raf run killed before its first step completed', () => {
  it("kill -9 while the model answers: the user's message is kept and the resume asks the model again", async () => {
    let child: ChildProcess | undefined;
    const killed = new Promise<void>((resolve) => {
      onAsk = () => {
        onAsk = undefined;
        child?.kill('SIGKILL');
        resolve();
        return 30_000;
      };
    });
    child = spawn(
      process.execPath,
      [
        ...RAF_PROCESS,
        'run',
        'agent.yaml',
        '--store',
        store(),
        '--session',
        'k1',
        '--json',
        '-i',
        'remember: 42',
      ],
      { cwd: dir, stdio: 'ignore' },
    );
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child?.on('exit', (_c, s) => resolve(s)));
    await killed;
    expect(await exited).toBe('SIGKILL');
    const before = asked.length;
    const resumed = await raf(['--session', 'k1']);
    expect(resumed.err).toContain('resuming the interrupted turn of session k1');
    expect(resumed.code).toBe(0);
    expect(asked[before]).toEqual(['remember: 42']);
    expect(resumed.out).toBe('answer to remember: 42\n');
    // The message is in the history once: the next turn sends it with its answer.
    await raf(['--session', 'k1', '-i', 'what was it?']);
    expect(asked.at(-1)).toEqual(['remember: 42', 'what was it?']);
  }, 60_000);

  it('a paused batch only in the journal (killed while approvals were asked) resumes with --approve all', async () => {
    const { createStore } = await import('@raf/framework');
    const state = await createStore(store(), { cwd: dir });
    const lease = await state.sessions.acquireLease('k2');
    const journal = await state.sessions.openJournal(lease);
    const call = {
      id: 'c1',
      name: 'run_command',
      arguments: JSON.stringify({ command: 'echo x >> count.txt' }),
    };
    await journal.append([
      { type: 'messages', messages: [{ role: 'user', content: 'count' }] },
      { type: 'messages', messages: [{ role: 'assistant', content: '', toolCalls: [call] }] },
      { type: 'pending', pendingApproval: { toolCalls: [call], gatedCallIds: ['c1'], round: 0 } },
    ]);
    await lease.release();
    await state.close();
    const resumed = await raf(['--session', 'k2', '--approve', 'all']);
    expect(resumed.err).not.toContain('another process');
    expect(resumed.code).toBe(0);
    expect(await readFile(join(dir, 'count.txt'), 'utf8')).toBe('x\n');
  });
});

describe('raf run --approve all|none on a session with no paused approval', () => {
  it('never paused: exit 2 saying so, not a conflict', async () => {
    expect((await raf(['--session', 'n1', '-i', 'hello'])).code).toBe(0);
    const again = await raf(['--session', 'n1', '--approve', 'none']);
    expect(again.code).toBe(2);
    expect(again.err).toMatch(/^raf: session n1 has no paused approval to resume: --approve none answers/);
    expect(again.err).not.toContain('another process');
  });

  it('resumed already: exit 5 naming the session; after a new turn, exit 2', async () => {
    await rm(join(dir, 'count.txt'), { force: true });
    expect((await raf(['--session', 'n2', '-i', 'count'])).code).toBe(3);
    expect((await raf(['--session', 'n2', '--approve', 'all'])).code).toBe(0);
    const late = await raf(['--session', 'n2', '--approve', 'all']);
    expect(late.code).toBe(5);
    expect(late.err).toMatch(
      /^raf: session n2 has no paused approval to resume: another process resumed it already/,
    );
    expect(await readFile(join(dir, 'count.txt'), 'utf8')).toBe('x\n');
    expect((await raf(['--session', 'n2', '-i', 'hello'])).code).toBe(0);
    expect((await raf(['--session', 'n2', '--approve', 'all'])).code).toBe(2);
  });
});
