import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { createMemoryIO } from './memory-io.js';

// Issue 29 item 3: the quickstart README's way to try a real model (`--base-url`, `--model`) over
// its `provider: replay` file. The override must switch the provider, not read the URL as a file.

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const built = join(repo, 'packages/cli/dist/bin.js');
let dir: string;
let server: MockModelServer;

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-override-')));
  await cp(join(repo, 'examples/quickstart'), dir, {
    recursive: true,
    filter: (src) => !src.includes('node_modules'),
  });
  server = await startMockModelServer({ turns: () => ({ text: 'hello from the server' }) });
});
afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

/** The environment of a user with no provider variables but the ones given. */
const cleanEnv = (extra: Record<string, string> = {}) => {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: dir };
  return { ...env, ...extra };
};

describe('--base-url and --model over a replay agent', () => {
  it('--base-url switches a replay model to an OpenAI-compatible server (custom)', async () => {
    const run = createMemoryIO({ cwd: dir, env: cleanEnv() });
    const code = await main(['run', 'agent.yaml', '-i', 'hi', '--base-url', server.baseURL], run.io);
    expect(code, run.err()).toBe(0);
    expect(run.out()).toBe('hello from the server\n');
    expect(server.requests[0]?.body?.model).toBe('gpt-4o-mini');
  });

  it('--model alone switches it to openai, with its key and OPENAI_BASE_URL from the environment', async () => {
    const env = cleanEnv({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: server.baseURL });
    const run = createMemoryIO({ cwd: dir, env });
    const code = await main(['run', 'agent.yaml', '-i', 'hi', '--model', 'gpt-4.1'], run.io);
    expect(code, run.err()).toBe(0);
    expect(server.requests[0]?.body?.model).toBe('gpt-4.1');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-test');
  });

  it('raf inspect shows the provider the override switched to', async () => {
    const run = createMemoryIO({ cwd: dir, env: cleanEnv() });
    expect(await main(['inspect', 'agent.yaml', '--json', '--base-url', server.baseURL], run.io)).toBe(0);
    expect(run.out()).toContain('"custom"');
    expect(run.out()).not.toContain('"replay"');
  });

  it('without an override the replay file still plays (offline)', async () => {
    const run = createMemoryIO({ cwd: dir, env: cleanEnv() });
    expect(await main(['run', 'agent.yaml', '-i', 'x', '--approve', 'all'], run.io)).toBe(0);
    expect(server.requests).toHaveLength(0);
  });

  it.runIf(existsSync(built))('the built raf run --base-url reaches the server', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [built, 'run', 'agent.yaml', '-i', 'hi', '--base-url', server.baseURL],
      { cwd: dir, env: cleanEnv() },
    );
    expect(stdout).toBe('hello from the server\n');
    expect(server.requests.filter((r) => r.path === '/v1/chat/completions')).toHaveLength(1);
  });
});
