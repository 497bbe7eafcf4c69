import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { createMemoryIO } from './memory-io.js';

let dir: string;
let server: MockModelServer | undefined;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-cli-safety-')));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

// Anything a terminal would act on: C0 (but newline and tab), DEL, C1, bidi and invisible format marks.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069]/;

async function agentFile(endpoint: string): Promise<string> {
  const yaml = `name: t\nmodel: { id: m, provider: custom, connection: { endpoint: "${endpoint}" } }\ncontexts:\n  - kind: workspace\n    name: w\n    config: { root: ., policy: approve }\ntools:\n  - kind: file\n`;
  await writeFile(join(dir, 'agent.yaml'), yaml);
  return 'agent.yaml';
}

describe('what the model controls is printed with control characters escaped', () => {
  it('an approval decision line cannot be redrawn to show another command', async () => {
    const command = 'touch pwned\u001b[2K\r\u001b[1Aecho harmless';
    server = await startMockModelServer({
      turns: [
        { toolCalls: [{ id: 'c1', name: 'run_command', arguments: { command } }] },
        { text: 'done \u001b]0;title\u0007\u009b2K\u202eevil' },
      ],
    });
    const run = createMemoryIO({ cwd: dir });
    expect(await main(['run', await agentFile(server.baseURL), '-i', 'go', '--approve', 'all'], run.io)).toBe(
      0,
    );
    expect(run.err()).toContain('✓ approved (--approve all): run_command');
    expect(run.err()).toContain('touch pwned\\e[2K\\r\\e[1Aecho harmless');
    expect(run.err()).not.toMatch(RAW_CONTROL);
    expect(run.out()).toBe('done \\e]0;title\\u{7}\\u{9b}2K\\u{202e}evil\n');
  });

  it('the interactive prompt shows the escaped target and still asks', async () => {
    server = await startMockModelServer({
      turns: [
        {
          toolCalls: [
            {
              id: 'c1',
              name: 'write_file',
              arguments: { path: '../x\u001b[2K\rinside.txt', content: 'a\u001b[1Ab\n' },
            },
          ],
        },
        { text: 'ok' },
      ],
    });
    const chat = createMemoryIO({ cwd: dir, stdin: ['write\n', 'n\n', '/exit\n'] });
    expect(await main(['chat', await agentFile(server.baseURL)], chat.io)).toBe(0);
    expect(chat.err()).toContain('approve write_file?\n  target: ');
    expect(chat.err()).toContain('x\\e[2K\\rinside.txt');
    expect(chat.err()).not.toMatch(RAW_CONTROL);
  });

  it('--json output stays valid JSON with C1 and bidi characters escaped', async () => {
    server = await startMockModelServer({ turns: [{ text: 'a\u009bb\u202ec' }] });
    const run = createMemoryIO({ cwd: dir });
    expect(await main(['run', await agentFile(server.baseURL), '-i', 'x', '--json'], run.io)).toBe(0);
    expect(run.out()).not.toMatch(/[\u007f-\u009f\u202e]/);
    const text = run
      .lines()
      .filter((l) => l.type === 'text-delta')
      .map((l) => l.delta)
      .join('');
    expect(text).toBe('a\u009bb\u202ec');
  });
});

describe('raf --version and --help', () => {
  it('prints the package version with --version and -V', async () => {
    const { version } = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    for (const flag of ['--version', '-V']) {
      const run = createMemoryIO({ cwd: dir });
      expect(await main([flag], run.io)).toBe(0);
      expect(run.out()).toBe(`raf ${version}\n`);
    }
  });

  it('--help lists every command with one line each', async () => {
    const run = createMemoryIO({ cwd: dir });
    expect(await main(['--help'], run.io)).toBe(0);
    // Every command `main` dispatches, read from its source: a new command fails this until listed.
    const source = await readFile(new URL('./main.ts', import.meta.url), 'utf8');
    const commands = [...source.matchAll(/^ {8}case '([a-z-]+)':/gm)].map((m) => m[1]);
    expect(commands.length).toBeGreaterThanOrEqual(9);
    const listed = run.out().split('\nUsage:')[0] ?? '';
    for (const command of commands) expect(listed).toMatch(new RegExp(`^  ${command} .*\\S.*$`, 'm'));
  });
});
