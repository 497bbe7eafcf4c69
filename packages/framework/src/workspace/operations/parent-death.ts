import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * Children must not outlive `raf` (SPEC §9): after `kill -9` of raf, nothing it started may run
 * on. Two helpers, for two kinds of child:
 *
 * - `groupWatchdog(command)` for a shell command in its own process group (`run_command`
 *   unconfined): a parent-death signal reaches only the direct child, not the `sleep` the shell
 *   forked, so the shell runs a watchdog beside the command that waits for end-of-file on fd 3,
 *   a pipe whose other end only raf holds, and then kills the whole group. Plain POSIX `sh`, no
 *   extra binary. (Confined commands have bubblewrap's `--die-with-parent`, which kills the
 *   sandbox's PID namespace.)
 * - `withParentDeathSignal(file, args)` for a long-lived server whose stdio is its protocol (a
 *   stdio MCP server): `setpriv --pdeathsig KILL` (util-linux) when installed, so a server that
 *   ignores end-of-file on stdin still dies with raf.
 */

/** The watchdog script: `$1` is the command; fd 3 is the pipe from raf. */
const WATCHDOG = [
  // Reads until raf's end closes (raf exited, however it died), then kills the process group.
  '{ read -r _ <&3; kill -KILL 0; } &',
  'w=$!',
  // The command must not hold the pipe: it runs in the foreground, with its usual signals.
  'exec 3<&-',
  'sh -c "$1"',
  's=$?',
  'kill -KILL "$w" 2>/dev/null',
  'exit "$s"',
].join('\n');

/** `sh` arguments that run `command` under the group watchdog; spawn with fd 3 a pipe (`stdio[3] = 'pipe'`). */
export function groupWatchdog(command: string): { file: 'sh'; args: string[] } {
  return { file: 'sh', args: ['-c', WATCHDOG, 'raf-watchdog', command] };
}

let setprivPath: string | null | undefined;

/** `setpriv` on PATH (looked up once per process), or null. */
function setpriv(): string | null {
  if (setprivPath !== undefined) return setprivPath;
  setprivPath = null;
  if (process.platform !== 'linux') return setprivPath;
  for (const folder of (process.env.PATH ?? '/usr/bin:/bin').split(delimiter)) {
    if (!folder) continue;
    const candidate = join(folder, 'setpriv');
    try {
      accessSync(candidate, constants.X_OK);
      setprivPath = candidate;
      break;
    } catch {}
  }
  return setprivPath;
}

/**
 * `file args` started so that it receives SIGKILL when raf dies (`setpriv --pdeathsig KILL --`),
 * or unchanged where `setpriv` is not installed (then only end-of-file on its stdin tells it).
 */
export function withParentDeathSignal(
  file: string,
  args: readonly string[],
): { file: string; args: string[] } {
  const path = setpriv();
  if (!path) return { file, args: [...args] };
  return { file: path, args: ['--pdeathsig', 'KILL', '--', file, ...args] };
}
