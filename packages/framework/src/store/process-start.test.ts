import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { processAlive, processStart } from './process-start.js';

const hasProc = processStart(process.pid) !== undefined;

describe('a recorded process on this host', () => {
  it.runIf(hasProc)(
    'is alive while its pid runs the same process, dead once the pid is another one',
    async () => {
      // The kernel names a process after its executable: a name with spaces and a ')' must not
      // shift the fields of /proc/<pid>/stat.
      const dir = mkdtempSync(join(tmpdir(), 'raf-proc-'));
      const named = join(dir, 'raf ) x');
      symlinkSync('/bin/sleep', named);
      const child = spawn(named, ['30']);
      try {
        await once(child, 'spawn');
        const pid = child.pid!;
        expect(readFileSync(`/proc/${pid}/stat`, 'latin1')).toContain('(raf ) x)');
        const start = processStart(pid);
        expect(start).toMatch(/^\d+$/);
        // The right field: the child started just now, in clock ticks since boot (100 per s on Linux).
        const uptime = Number(readFileSync('/proc/uptime', 'latin1').split(' ')[0]);
        expect(Math.abs(Number(start) / 100 - uptime)).toBeLessThan(5);
        expect(processAlive(pid, start)).toBe(true);
        // The same pid with another start time: what a reused pid looks like.
        expect(processAlive(pid, `${Number(start) + 1}`)).toBe(false);
        // Records of older versions carry no start time: the pid alone decides.
        expect(processAlive(pid, null)).toBe(true);
      } finally {
        child.kill('SIGKILL');
        await once(child, 'exit');
        rmSync(dir, { recursive: true, force: true });
      }
      expect(processAlive(child.pid!, null)).toBe(false);
    },
  );

  it('is this process when the pid is ours', () => {
    expect(processAlive(process.pid)).toBe(true);
    expect(processAlive(process.pid, processStart(process.pid))).toBe(true);
  });

  it('is never a process group: 0, negative or fractional pids read as dead', () => {
    // kill(0, sig) signals this process's whole group; a corrupt record must not reach it.
    for (const pid of [0, -1, -process.pid, 1.5, Number.NaN]) expect(processAlive(pid)).toBe(false);
  });
});
