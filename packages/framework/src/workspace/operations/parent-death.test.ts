import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { groupWatchdog, withParentDeathSignal } from './parent-death.js';

describe('parent-death helpers', () => {
  it('the group watchdog keeps the exit code, the output and a closed stdin', async () => {
    const { file, args } = groupWatchdog('read x; echo "got:$x"; echo err >&2; exit 7');
    const child = spawn(file, args, {
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      // Its own group, as raf spawns it: the watchdog's `kill -KILL 0` must never reach the test runner.
      detached: true,
    });
    let out = '';
    let err = '';
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr?.on('data', (c: Buffer) => {
      err += c.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ code, out, err }).toEqual({ code: 7, out: 'got:\n', err: 'err\n' });
  });

  it('the command does not hold the watchdog pipe (fd 3 is closed for it)', async () => {
    const { file, args } = groupWatchdog(
      'if [ -e /proc/self/fd/3 ] || { true >&3; } 2>/dev/null; then echo open; else echo closed; fi',
    );
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'ignore', 'pipe'], detached: true });
    let out = '';
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
    });
    await new Promise((resolve) => child.on('close', resolve));
    expect(out).toBe('closed\n');
  });

  it.runIf(process.platform === 'linux')('prefixes setpriv --pdeathsig KILL when util-linux has it', () => {
    const wrapped = withParentDeathSignal('node', ['server.mjs']);
    const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].some((p) => existsSync(p));
    if (setpriv) expect(wrapped.args).toEqual(['--pdeathsig', 'KILL', '--', 'node', 'server.mjs']);
    else expect(wrapped).toEqual({ file: 'node', args: ['server.mjs'] });
  });
});
