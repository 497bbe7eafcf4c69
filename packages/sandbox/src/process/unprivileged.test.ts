import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { has, isRoot } from '../test-support/harness.js';

const script = fileURLToPath(new URL('../test-support/hostile-run.ts', import.meta.url));
const repo = fileURLToPath(new URL('../../../..', import.meta.url));

/** The hostile cases in a Node process running as nobody (not root): the whole backend unprivileged. */
async function runAsNobody(...flags: string[]) {
  const { stdout } = await promisify(execFile)(
    'setpriv',
    [
      '--reuid=65534',
      '--regid=65534',
      '--clear-groups',
      '--',
      process.execPath,
      '--conditions=@raf/source',
      '--import',
      'tsx',
      script,
      ...flags,
    ],
    {
      cwd: repo,
      env: { PATH: process.env.PATH ?? '', HOME: '/tmp', RAF_TEST_API_KEY: 'sk-unprivileged-secret' },
      timeout: 120_000,
    },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1) as string) as {
    uid: number;
    connections: number;
    notes: string[];
    results: Record<
      string,
      { ok: boolean; error?: string; result?: string; stdout: string; confinement: string }
    >;
  };
}

describe.runIf(isRoot && has('setpriv') && has('bwrap') && has('python3'))('as an unprivileged user', () => {
  it('contains the same hostile code in bubblewrap (user namespaces, no root)', async () => {
    const { uid, connections, notes, results } = await runAsNobody();
    expect(uid).toBe(65534);
    expect(notes).toEqual([]);
    expect(results.uid).toMatchObject({ ok: true, result: '65534', confinement: 'bubblewrap' });
    expect(results.loop?.error).toMatch(/^timeout_secs exceeded/);
    expect(results.memory?.error).toMatch(/^memory_limit exceeded/);
    expect(results.recursion?.error).toMatch(/^stack_limit exceeded/);
    expect(results.forks?.error).toMatch(/^pids_limit exceeded/);
    expect(results.etc?.ok).toBe(false);
    expect(results.outside?.ok).toBe(false);
    expect(results.socket?.ok).toBe(false);
    expect(connections).toBe(0);
    expect(results.env?.stdout).not.toContain('sk-unprivileged-secret');
    expect(results.print?.error).toMatch(/^output_limit exceeded/);
    expect(results.js?.error).toMatch(/^stack_limit exceeded/);
  }, 120_000);
});
