import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

let wrapper: string | null | undefined;

/**
 * util-linux's `setpriv --pdeathsig KILL`, when this machine has one that works: the kernel then
 * kills the server when `raf` dies, even by `kill -9` (no exit handler runs then). Probed once.
 */
function setpriv(): string | null {
  if (wrapper !== undefined) return wrapper;
  wrapper = null;
  if (process.platform !== 'linux') return wrapper;
  for (const candidate of ['/usr/bin/setpriv', '/bin/setpriv', '/usr/sbin/setpriv']) {
    if (!existsSync(candidate)) continue;
    const probe = spawnSync(candidate, ['--pdeathsig', 'KILL', '--', 'true'], {
      stdio: 'ignore',
      timeout: 5000,
    });
    if (probe.status === 0) {
      wrapper = candidate;
      break;
    }
  }
  return wrapper;
}

/**
 * A stdio server's command line that dies with this process: `setpriv --pdeathsig KILL -- cmd …`
 * (it execs the command, so the pid is the server's). Without setpriv (not Linux, an old
 * util-linux), the command as given: the exit handler and `close()` remain the only stops.
 */
export function dieWithParent(command: string, args: readonly string[]): { command: string; args: string[] } {
  const tool = setpriv();
  return tool
    ? { command: tool, args: ['--pdeathsig', 'KILL', '--', command, ...args] }
    : { command, args: [...args] };
}

/** Whether servers get the parent-death signal here (for the README's claim and the tests). */
export function parentDeathAvailable(): boolean {
  return setpriv() !== null;
}
