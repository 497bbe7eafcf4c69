import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { createMemoryIO } from './memory-io.js';

// Issue 29 item 9: from the quickstart to one's own agent.

let dir: string;
let server: MockModelServer | undefined;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-init-')));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

const cli = async (
  argv: string[],
  options: { stdin?: string[]; tty?: boolean; env?: Record<string, string> } = {},
) => {
  const run = createMemoryIO({ cwd: dir, ...options });
  const code = await main(argv, run.io);
  return { code, out: run.out(), err: run.err() };
};

describe('raf init', () => {
  it('--yes writes an agent with a workspace that validates and runs against raf mock', async () => {
    const init = await cli(['init', '--yes']);
    expect(init.code, init.err).toBe(0);
    expect(init.out).toContain('wrote agent.yaml, workspace/README.md');
    expect(init.out).toContain('raf mock &');
    expect((await cli(['validate', 'agent.yaml'])).code).toBe(0);
    server = await startMockModelServer({
      turns: [{ toolCalls: [{ name: 'list_files', arguments: { path: '.' } }] }, { text: 'One README.' }],
    });
    const run = await cli(['run', 'agent.yaml', '-i', 'what is here?', '--base-url', server.baseURL], {
      env: { OPENAI_API_KEY: 'unused' },
    });
    expect(run.code, run.err).toBe(0);
    expect(run.err).toContain('→ list_files');
    expect(run.out).toBe('One README.\n');
  });

  it('asks on a terminal what to include', async () => {
    const init = await cli(['init', 'bot'], {
      tty: true,
      stdin: ['helper\ndeepseek\ndeepseek-chat\ny\nls git\ny\n'],
    });
    expect(init.code, init.err).toBe(0);
    expect(init.err).toContain('A workspace folder with the file tools? [y]');
    const yaml = await readFile(join(dir, 'bot/agent.yaml'), 'utf8');
    expect(yaml).toContain('name: helper');
    expect(yaml).toContain('provider: deepseek   # the key comes from DEEPSEEK_API_KEY');
    expect(yaml).toContain('allowCommands: [ls, git]');
    expect(yaml).toContain('- kind: web');
    expect(init.out).toContain('cd bot && raf validate agent.yaml');
    expect(init.out).toContain('npm install @raf/web');
  });

  it('flags without a terminal; no workspace when asked for none', async () => {
    const init = await cli(['init', '--name', 'Plain bot: v1', '--provider', 'custom', '--model', 'llama3']);
    expect(init.code, init.err).toBe(0);
    const yaml = await readFile(join(dir, 'agent.yaml'), 'utf8');
    expect(yaml).toContain('name: "Plain bot: v1"');
    expect(yaml).toContain('endpoint: http://127.0.0.1:8765/v1');
    expect((await cli(['validate', 'agent.yaml'])).code).toBe(0);
    const none = await cli(['init', 'empty'], { tty: true, stdin: ['\n\n\nn\nn\n'] });
    expect(none.code, none.err).toBe(0);
    expect(await readFile(join(dir, 'empty/agent.yaml'), 'utf8')).not.toContain('contexts:');
  });

  it('refuses to overwrite an agent file (exit 2), and leaves it as it was', async () => {
    await writeFile(join(dir, 'agent.yaml'), 'name: mine\n');
    const init = await cli(['init', '--yes']);
    expect(init.code).toBe(2);
    expect(init.err).toContain('raf: agent.yaml exists; raf init never overwrites');
    expect(await readFile(join(dir, 'agent.yaml'), 'utf8')).toBe('name: mine\n');
    expect((await cli(['init', '--provider', 'gemini'])).err).toContain('the provider must be one of');
  });
});
