import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { createMemoryIO } from './memory-io.js';
import { sampleOf } from './mock/mock-answers.js';

// Issue 29 item 4: `raf mock`, an offline model for one's own agent file, without writing code.

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const built = join(repo, 'packages/cli/dist/bin.js');
let dir: string;
const AGENT = `name: notes
model: { id: any-model, provider: openai }
contexts:
  - kind: workspace
    name: here
    config: { root: ., policy: approve }
tools:
  - kind: file
`;

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-mock-')));
  await writeFile(join(dir, 'agent.yaml'), AGENT);
  await writeFile(join(dir, 'todo.md'), '- [ ] write the mock\n');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** Starts `raf mock` in-process; resolves with its base URL once it listens. */
async function startMock(argv: string[]) {
  const mock = createMemoryIO({ cwd: dir });
  const exited = main(['mock', ...argv], mock.io);
  for (let i = 0; i < 200 && !/http:\/\/\S+\/v1/.test(mock.out()); i++) {
    const early = await Promise.race([exited, new Promise((r) => setTimeout(() => r(undefined), 25))]);
    if (early !== undefined) throw new Error(`raf mock exited ${early}: ${mock.err()}`);
  }
  const url = /(http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(mock.out())?.[1];
  if (!url) throw new Error(`raf mock printed no URL: ${mock.out()}`);
  return { url, mock, exited };
}

const run = async (url: string, input: string, extra: string[] = []) => {
  const io = createMemoryIO({ cwd: dir, env: { OPENAI_API_KEY: 'unused' } });
  const code = await main(['run', 'agent.yaml', '-i', input, '--base-url', url, ...extra], io.io);
  return { code, out: io.out(), err: io.err() };
};

describe('raf mock', () => {
  it('echoes by default, prints its URL and the --base-url line, stops on Ctrl-C', async () => {
    const { url, mock, exited } = await startMock([]);
    expect(mock.out()).toContain(`raf run agent.yaml --base-url ${url} -i "hello"`);
    const first = await run(url, 'ping');
    expect(first.code, first.err).toBe(0);
    expect(first.out).toBe('You said: ping\n');
    mock.interrupt();
    expect(await exited).toBe(0);
    expect(mock.err()).toContain('raf mock: stopped after 1 answer');
  });

  it('plays a script of turns, from its first turn for each new conversation', async () => {
    await writeFile(
      join(dir, 'script.yaml'),
      `- text: Let me read it.\n  toolCalls:\n    - name: read_file\n      arguments: { path: todo.md }\n- text: One thing to do, write the mock.\n`,
    );
    const { url, mock, exited } = await startMock(['script.yaml']);
    expect(mock.out()).toContain('(script.yaml, 2 turns)');
    for (let i = 0; i < 2; i++) {
      const result = await run(url, 'what is left?');
      expect(result.code, result.err).toBe(0);
      expect(result.err).toContain('→ read_file {"path":"todo.md"} ✓ 1 line');
      expect(result.out).toBe('Let me read it.\nOne thing to do, write the mock.\n');
    }
    mock.interrupt();
    expect(await exited).toBe(0);
  });

  it('--mode tools calls each offered tool once, then says so', async () => {
    const { url, mock, exited } = await startMock(['--mode', 'tools']);
    const result = await run(url, 'go', ['--approve', 'none']);
    expect(result.code, result.err).toBe(0);
    for (const tool of ['read_file', 'list_files', 'write_file', 'remove_path'])
      expect(result.err).toContain(`→ ${tool} `);
    expect(result.out).toMatch(/^Called each of the \d+ offered tools once: read_file, /);
    // The sampled path is one no project holds: written, then removed again by remove_path.
    expect(existsSync(join(dir, 'raf-mock-example.txt'))).toBe(false);
    mock.interrupt();
    await exited;
  });

  it('a broken script is a config error with file:line:col, before listening', async () => {
    await writeFile(join(dir, 'bad.yaml'), '- text: hi\n- toolCalls:\n    - arguments: {}\n');
    const io = createMemoryIO({ cwd: dir });
    expect(await main(['mock', 'bad.yaml'], io.io)).toBe(2);
    expect(io.err()).toMatch(/^error: bad\.yaml:3:7 \[1\]\.toolCalls\[0\]\.name: /);
    expect(io.out()).toBe('');
    const both = createMemoryIO({ cwd: dir });
    expect(await main(['mock', 'bad.yaml', '--mode', 'echo'], both.io)).toBe(2);
  });

  it('samples arguments from a JSON schema: required properties only', () => {
    expect(
      sampleOf({
        type: 'object',
        properties: { path: { type: 'string' }, n: { type: 'integer' }, mode: { enum: ['a', 'b'] } },
        required: ['path', 'mode'],
      }),
    ).toEqual({ path: 'raf-mock-example.txt', mode: 'a' });
  });

  it.runIf(existsSync(built))(
    'the built raf mock serves the built raf run and stops on SIGTERM',
    async () => {
      await writeFile(join(dir, 'script.yaml'), 'turns:\n  - text: offline and fine\n');
      let child: ChildProcess | undefined;
      try {
        child = spawn(process.execPath, [built, 'mock', 'script.yaml', '--port', '0'], { cwd: dir });
        let out = '';
        let err = '';
        child.stderr?.on('data', (d) => (err += d));
        const url = await new Promise<string>((resolveUrl, reject) => {
          child?.stdout?.on('data', (d) => {
            out += d;
            const found = /(http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(out)?.[1];
            if (found) resolveUrl(found);
          });
          child?.once('exit', (code) => reject(new Error(`raf mock exited ${code}: ${err}`)));
        });
        const { stdout } = await promisify(execFile)(
          process.execPath,
          [built, 'run', 'agent.yaml', '-i', 'hi', '--base-url', url],
          { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir } },
        );
        expect(stdout).toBe('offline and fine\n');
        const exit = new Promise<number | null>((r) => child?.once('exit', (code) => r(code)));
        child.kill('SIGTERM');
        expect(await exit).toBe(0);
        expect(err).toContain('raf mock: stopped after 1 answer');
        expect(await readFile(join(dir, 'todo.md'), 'utf8')).toBe('- [ ] write the mock\n');
      } finally {
        if (child?.exitCode === null) child.kill('SIGKILL');
      }
    },
  );
});
