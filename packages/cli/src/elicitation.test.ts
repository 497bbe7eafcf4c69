import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliIO } from './io.js';
import { main } from './main.js';
import { createMemoryIO } from './memory-io.js';

// SPEC §14.4: an MCP server's elicitation is a question to the user through the approval path.

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const testServer = join(repo, 'packages/mcp/src/test-support/test-server.ts');
let dir: string;
let server: MockModelServer | undefined;

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-cli-elicit-')));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

const ask = { toolCalls: [{ id: 'c1', name: 'ask_name', arguments: {} }] };

async function agentWithServer(url: string): Promise<string> {
  await writeFile(
    join(dir, 'agent.yaml'),
    `name: asker
model: { id: m, provider: custom, connection: { endpoint: "${url}" } }
tools:
  - kind: mcp
    name: people
    config:
      command: ${JSON.stringify(process.execPath)}
      args: [--import, tsx, ${JSON.stringify(testServer)}]
      cwd: ${JSON.stringify(repo)}
      env: { TEST_SERVER_LOG: ${JSON.stringify(join(dir, 'events.jsonl'))} }
`,
  );
  return 'agent.yaml';
}

async function elicited(): Promise<unknown> {
  const text = await readFile(join(dir, 'events.jsonl'), 'utf8').catch(() => '');
  const events = text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { event: string; result?: unknown });
  return events.find((e) => e.event === 'elicited')?.result;
}

describe('MCP elicitation in the CLI', { timeout: 90_000 }, () => {
  it('raf run --json prints the input-request and --answer (JSON) answers it', async () => {
    server = await startMockModelServer({ turns: [ask, { text: 'Hello Ada.' }] });
    const file = await agentWithServer(server.baseURL);
    const run = createMemoryIO({ cwd: dir });
    const code = await main(
      ['run', file, '-i', 'who am I', '--json', '--answer', '{"name":"Ada","age":36}'],
      run.io,
    );
    expect(code, run.err()).toBe(0);
    const lines = run.lines();
    expect(lines.find((l) => l.type === 'input-request')).toEqual({
      type: 'input-request',
      callId: 'c1',
      source: 'mcp:people',
      message: 'What is your name?',
      mode: 'form',
      schema: expect.objectContaining({ type: 'object', required: ['name'] }),
    });
    expect(await elicited()).toEqual({ action: 'accept', content: { name: 'Ada', age: 36 } });
    expect(lines.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
  });

  it('a --answer that does not fit the schema is declined with a warning, never sent', async () => {
    server = await startMockModelServer({ turns: [ask, { text: 'ok' }] });
    const file = await agentWithServer(server.baseURL);
    const run = createMemoryIO({ cwd: dir });
    expect(await main(['run', file, '-i', 'x', '--json', '--answer', '{"age":"old"}'], run.io)).toBe(0);
    const warning = run.lines().find((l) => l.type === 'warning');
    expect(String(warning?.message)).toMatch(/^mcp:people asked "What is your name\?": declined, --answer/);
    expect(await elicited()).toEqual({ action: 'decline' });
  });

  it('without --answer the question is declined with a warning (exit 0, the run goes on)', async () => {
    server = await startMockModelServer({ turns: [ask, { text: 'ok' }] });
    const file = await agentWithServer(server.baseURL);
    const run = createMemoryIO({ cwd: dir });
    expect(await main(['run', file, '-i', 'x'], run.io)).toBe(0);
    expect(run.err()).toContain(
      'warning: mcp:people asked "What is your name?": declined, no --answer was left',
    );
    expect(await elicited()).toEqual({ action: 'decline' });
  });

  it('--approve none declines every question, even with an --answer', async () => {
    server = await startMockModelServer({ turns: [ask, { text: 'ok' }] });
    const file = await agentWithServer(server.baseURL);
    const run = createMemoryIO({ cwd: dir });
    expect(
      await main(['run', file, '-i', 'x', '--approve', 'none', '--answer', '{"name":"Ada"}'], run.io),
    ).toBe(0);
    expect(run.err()).toContain('asked "What is your name?": declined (--approve none)');
    expect(await elicited()).toEqual({ action: 'decline' });
  });

  it('raf chat asks at its prompt: a bad line is explained and asked again, then the answer goes to the server', async () => {
    server = await startMockModelServer({ turns: [ask, { text: 'Hello Grace.' }] });
    const file = await agentWithServer(server.baseURL);
    const stdin = Object.assign(new PassThrough({ encoding: 'utf8' }), { isTTY: false });
    let out = '';
    let err = '';
    const io: CliIO = {
      stdout: { write: (t: string) => (out += t) },
      stderr: { write: (t: string) => (err += t) },
      stdin,
      env: {},
      cwd: dir,
      onInterrupt: () => () => undefined,
    };
    const until = async (pattern: RegExp) => {
      for (let i = 0; i < 1200 && !pattern.test(out + err); i++) await new Promise((r) => setTimeout(r, 25));
      expect(out + err).toMatch(pattern);
    };
    const exit = main(['chat', file], io);
    await until(/› /);
    stdin.write('who am I\n');
    await until(/mcp:people asks: What is your name\?\n {2}fields: name\* \(string\), age \(integer\)\n/);
    await until(/empty declines\): /);
    stdin.write('{"age": -3}\n');
    // Explained (the missing name, the negative age), and asked again.
    await until(/empty declines\): [\s\S]*empty declines\): /);
    expect(err).toMatch(/ {2}.*(name|age).*\n/);
    stdin.write('Grace\n');
    await until(/Hello Grace\./);
    stdin.write('/exit\n');
    expect(await exit).toBe(0);
    expect(await elicited()).toEqual({ action: 'accept', content: { name: 'Grace' } });
  });
});

// The acceptance's pseudo-terminal: `raf chat` under util-linux `script`, so stdin is a real TTY.
const scriptBinary = ['/usr/bin/script', '/bin/script'].find((p) => existsSync(p));
describe.runIf(scriptBinary !== undefined)('MCP elicitation at a real terminal', { timeout: 120_000 }, () => {
  it('raf chat on a pseudo-terminal asks the question and sends the typed answer', async () => {
    server = await startMockModelServer({ turns: [ask, { text: 'Hello Lin.' }] });
    const file = await agentWithServer(server.baseURL);
    const bin = join(repo, 'packages/cli/src/bin.ts');
    const built = join(repo, 'packages/cli/dist/bin.js');
    const command = [
      process.execPath,
      ...(existsSync(built)
        ? [built]
        : ['--conditions=@raf/source', '--import', import.meta.resolve('tsx'), bin]),
      'chat',
      file,
    ]
      .map((part) => `'${part.replaceAll("'", "'\\''")}'`)
      .join(' ');
    const child = spawn(scriptBinary!, ['-qfec', command, '/dev/null'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: dir, TERM: 'dumb' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const until = async (pattern: RegExp) => {
      for (let i = 0; i < 2400 && !pattern.test(output); i++) await new Promise((r) => setTimeout(r, 25));
      expect(output).toMatch(pattern);
    };
    try {
      await until(/› /);
      child.stdin.write('who am I\r');
      await until(/mcp:people asks: What is your name\?/);
      await until(/empty declines\): /);
      child.stdin.write('Lin\r');
      await until(/Hello Lin\./);
      child.stdin.write('/exit\r');
      await new Promise<void>((resolve) => child.once('exit', () => resolve()));
    } finally {
      child.kill('SIGKILL');
    }
    expect(await elicited()).toEqual({ action: 'accept', content: { name: 'Lin' } });
  });
});
