import { rm } from 'node:fs/promises';
import { ConfigError } from '@raf/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, has, isRoot, pathWithout } from '../test-support/harness.js';
import { type CodeInterpreterTool, createCodeInterpreterTool } from '../tool/code-interpreter.js';

// A machine without bubblewrap: PATH is a folder of links to /usr/bin's programs except bwrap.
describe.runIf(has('python3') && has('prlimit'))('without bubblewrap', () => {
  let pathEnv: string;
  beforeAll(async () => {
    pathEnv = await pathWithout('bwrap');
  });
  afterAll(() => rm(pathEnv, { recursive: true, force: true }));

  it('disables Python and shell, and says so in the description and the notes', async () => {
    const tool = await createCodeInterpreterTool({}, { pathEnv });
    expect(tool.languages).toEqual(['javascript']);
    expect(tool.defaultLanguage).toBe('javascript');
    expect(tool.notes).toEqual([
      'python is disabled: bubblewrap (bwrap) is not installed; set unconfined: true to run it without isolation',
      'shell is disabled: bubblewrap (bwrap) is not installed; set unconfined: true to run it without isolation',
    ]);
    expect(tool.description).toContain('Note: python is disabled: bubblewrap (bwrap) is not installed');
    expect(tool.validateArguments?.({ language: 'python', code: 'print(1)' })).toMatchObject({ ok: false });
    await tool.dispose();
  });

  it('refuses a config whose languages all need bubblewrap', async () => {
    const built = createCodeInterpreterTool({ languages: ['python'] }, { pathEnv });
    await expect(built).rejects.toThrow(ConfigError);
    await expect(built).rejects.toThrow(/can run none of its languages here: python is disabled: bubblewrap/);
  });

  describe('unconfined: true', () => {
    let tool: CodeInterpreterTool;
    beforeAll(async () => {
      process.env.RAF_TEST_SECRET_TOKEN = 'tok-unconfined-secret';
      tool = await createCodeInterpreterTool(
        { unconfined: true, timeout_secs: 3, pids_limit: 8, memory_limit: '256m' },
        { pathEnv },
      );
    });
    afterAll(async () => {
      delete process.env.RAF_TEST_SECRET_TOKEN;
      await tool.dispose();
    });

    it('runs Python without isolation, under the limits, and says so', async () => {
      expect(tool.languages).toEqual(['javascript', 'python', 'shell']);
      expect(tool.notes).toContain(
        'python/shell run unconfined (unconfined: true and no bubblewrap): no filesystem or network isolation',
      );
      expect(tool.description).toContain('Python/shell run UNCONFINED');
      const result = await call(tool, { language: 'python', code: 'import os\nprint("hi")\nos.getcwd()' });
      expect(result).toMatchObject({ ok: true, data: { stdout: 'hi\n' } });
      expect(String(result.data.result)).toMatch(/raf-sandbox-/);
      expect(result.data.limits).toMatchObject({ confinement: 'none', network: false });
    });

    it('still enforces time, memory and process limits and scrubs the environment', async () => {
      const spin = await call(tool, { language: 'python', code: 'while True: pass' });
      expect(spin.error).toMatch(/^timeout_secs exceeded/);
      const big = await call(tool, { language: 'python', code: 'x = bytearray(1 << 30)' });
      expect(big.error).toMatch(/^memory_limit exceeded/);
      const forks = await call(tool, { language: 'python', code: 'import os\nwhile True:\n    os.fork()' });
      expect(forks.error).toMatch(/^pids_limit exceeded/);
      const env = await call(tool, { language: 'shell', code: 'env' });
      expect(env.data.stdout).not.toContain('tok-unconfined-secret');
      expect(env.data.stdout).not.toMatch(/TOKEN|KEY/);
    });

    it.runIf(isRoot && has('setpriv'))('runs the code as nobody when the host is root', async () => {
      const result = await call(tool, { language: 'python', code: 'import os\nos.getuid()' });
      expect(result.data.result).toBe('65534');
      const write = await call(tool, { language: 'shell', code: 'touch /etc/raf-sandbox-test' });
      expect(write.ok).toBe(false);
      expect(write.data.stderr).toMatch(/Permission denied/);
    });
  });
});
