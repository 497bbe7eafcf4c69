import { readFileSync } from 'node:fs';

/**
 * When process `pid` started, as the kernel counts it (`/proc/<pid>/stat` field 22, clock ticks
 * since boot), or `undefined` where there is no `/proc` (macOS) or the process is gone. A pid
 * with another start time is another process: the one recorded died and its pid was reused.
 */
export function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // The command name (field 2) is in parentheses and may hold spaces or ')': count from the last.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = fields[19];
    return start && /^\d+$/.test(start) ? start : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the process recorded as `pid` (started at `start`, when known) on this host is alive.
 * Without the start time a reused pid reads as alive, and its runs waited for the heartbeat's
 * long same-host expiry.
 */
export function processAlive(pid: number, start?: string | null): boolean {
  // 0 and negative numbers name process groups for kill(2): never ask about those.
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return start == null || start === processStart(pid);
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (start == null) return true;
  const now = processStart(pid);
  return now === undefined || now === start;
}
