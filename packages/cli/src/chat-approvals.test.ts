import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliIO } from './io.js';
import { main } from './main.js';
import { createMemoryIO } from './memory-io.js';

// Issue 29 item 8: approvals one can judge and escape.

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const built = join(repo, 'packages/cli/dist/bin.js');
let dir: string;
let server: MockModelServer;

const touch = (id: string, name: string) => ({
  toolCalls: [{ id, name: 'run_command', arguments: { command: `touch ${name}` } }],
});

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-chat-approve-')));
});
afterEach(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

async function agentFor(url: string) {
  await writeFile(
    join(dir, 'agent.yaml'),
    `name: toucher\nmodel: { id: m, provider: custom, connection: { endpoint: "${url}" } }\ncontexts:\n  - kind: workspace\n    name: here\n    config: { root: ., policy: approve }\ntools:\n  - kind: shell\n`,
  );
}

/** A terminal whose lines the test types one at a time, and whose Ctrl-C it presses. */
function typedIO() {
  const stdin = Object.assign(new PassThrough({ encoding: 'utf8' }), { isTTY: false });
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  const io: CliIO = {
    stdout: { write: (t: string) => (out += t) },
    stderr: { write: (t: string) => (err += t) },
    stdin,
    env: {},
    cwd: dir,
    onInterrupt(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  const until = async (pattern: RegExp, where: () => string = () => out + err) => {
    for (let i = 0; i < 400 && !pattern.test(where()); i++) await new Promise((r) => setTimeout(r, 25));
    expect(where()).toMatch(pattern);
  };
  return {
    io,
    type: (line: string) => stdin.write(`${line}\n`),
    ctrlC: () => {
      for (const l of listeners) l();
    },
    end: () => stdin.end(),
    until,
    out: () => out,
    err: () => err,
  };
}

describe('approvals in raf chat and raf run', () => {
  it('a non-interactive pause (exit 3) says which tool waits, on what target', async () => {
    server = await startMockModelServer({ turns: [touch('c1', 'made.txt')] });
    await agentFor(server.baseURL);
    const run = createMemoryIO({ cwd: dir });
    expect(await main(['run', 'agent.yaml', '-i', 'go', '--session', 's1'], run.io)).toBe(3);
    expect(run.err()).toContain(
      `waiting for approval: run_command ${dir}$ touch made.txt {"command":"touch made.txt"}\n`,
    );
    // Asked again without an answer: the same words.
    const again = createMemoryIO({ cwd: dir });
    expect(await main(['run', 'agent.yaml', '--session', 's1'], again.io)).toBe(3);
    expect(again.err()).toContain(`waiting for approval: run_command ${dir}$ touch made.txt`);
  });

  it('/help and other /commands are the chat’s, never the model’s', async () => {
    server = await startMockModelServer({ turns: [{ text: 'hello' }] });
    await agentFor(server.baseURL);
    const chat = createMemoryIO({ cwd: dir, stdin: ['/help\n/session\n/nope\n//slash\n/exit\n'] });
    expect(await main(['chat', 'agent.yaml'], chat.io)).toBe(0);
    expect(chat.err()).toContain('/always    the tools approved for this session');
    expect(chat.err()).toMatch(/session [0-9a-f-]{36}\n/);
    expect(chat.err()).toContain('unknown command /nope');
    expect(server.requests).toHaveLength(1);
    const messages = server.requests[0]?.body?.messages as { role: string; content: string }[];
    expect(messages.at(-1)).toEqual({ role: 'user', content: '/slash' });
  });

  it('`a` approves the tool for the rest of the session', async () => {
    server = await startMockModelServer({
      turns: [touch('c1', 'one.txt'), { text: 'made one' }, touch('c2', 'two.txt'), { text: 'made two' }],
    });
    await agentFor(server.baseURL);
    const chat = createMemoryIO({ cwd: dir, stdin: ['first\na\nsecond\n/always\n/exit\n'] });
    expect(await main(['chat', 'agent.yaml'], chat.io)).toBe(0);
    expect(chat.out()).toContain('[y/N/a(lways this session)] ');
    expect(chat.err()).toContain(`✓ approved (always this session): run_command ${dir}$ touch two.txt`);
    expect(chat.err()).toContain('approved for this session: run_command');
    expect(existsSync(join(dir, 'one.txt')) && existsSync(join(dir, 'two.txt'))).toBe(true);
  });

  it('Ctrl-C at the [y/N] prompt ends the turn (nothing runs), not the chat', async () => {
    server = await startMockModelServer({ turns: [touch('c1', 'never.txt'), { text: 'after' }] });
    await agentFor(server.baseURL);
    const t = typedIO();
    const exited = main(['chat', 'agent.yaml'], t.io);
    await t.until(/› $/, t.out);
    t.type('touch it');
    await t.until(/\[y\/N\/a\(lways this session\)\] $/, t.out);
    t.ctrlC();
    await t.until(/\(turn cancelled\)\n/, t.err);
    t.type('and now?');
    await t.until(/after/, t.out);
    t.type('/exit');
    t.end();
    expect(await exited).toBe(0);
    expect(existsSync(join(dir, 'never.txt'))).toBe(false);
    // Two model calls: the one asking, and the next message; the denial was not sent on its own.
    expect(server.requests).toHaveLength(2);
    const messages = server.requests[1]?.body?.messages as { role: string; content: string }[];
    expect(JSON.stringify(messages)).toContain('Cancelled by the user (Ctrl-C at the approval prompt)');
  });

  const python = existsSync('/usr/bin/python3');
  it.runIf(python && existsSync(built))(
    'in a pseudo-terminal: Ctrl-C at the prompt of the built raf chat ends the turn only',
    async () => {
      server = await startMockModelServer({ turns: [touch('c1', 'never.txt'), { text: 'still here' }] });
      await agentFor(server.baseURL);
      // python3's pty module: a real terminal, where Ctrl-C is the byte 0x03 the line discipline turns into SIGINT.
      const driver = `
import os, pty, sys, time, select
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1], sys.argv[2], 'chat', 'agent.yaml'])
seen = b''
def until(pattern, timeout=20):
    global seen
    end = time.time() + timeout
    while pattern not in seen:
        if time.time() > end:
            sys.stdout.write('TIMEOUT waiting for %r in %r' % (pattern, seen)); sys.exit(1)
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try: seen += os.read(fd, 4096)
            except OSError:
                sys.stdout.write('EOF waiting for %r in %r' % (pattern, seen)); sys.exit(1)
until(b'\\xe2\\x80\\xba ')
os.write(fd, b'touch it\\r')
until(b'[y/N')
os.write(fd, b'\\x03')
until(b'(turn cancelled)')
os.write(fd, b'hello again\\r')
until(b'still here')
os.write(fd, b'/exit\\r')
until(b'session saved')
_, status = os.waitpid(pid, 0)
sys.stdout.write('EXIT %d' % os.waitstatus_to_exitcode(status))
`;
      const { stdout } = await promisify(execFile)('python3', ['-c', driver, process.execPath, built], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', HOME: dir, TERM: 'dumb' },
        timeout: 60_000,
      });
      expect(stdout).toBe('EXIT 0');
      expect(existsSync(join(dir, 'never.txt'))).toBe(false);
      expect(server.requests).toHaveLength(2);
    },
    70_000,
  );
});
