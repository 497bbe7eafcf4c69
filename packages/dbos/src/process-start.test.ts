import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { processAlive, processStart } from './process-start.js';

const hasProc = processStart(process.pid) !== undefined;

describe('a recorded process on this host', () => {
  it.runIf(hasProc)(
    'is alive while its pid runs the same process, dead once the pid is another one',
    async () => {
      // A command name with spaces and a ')' must not shift the fields.
      const child = spawn(process.execPath, ['-e', 'process.title = "raf ) x"; setTimeout(() => {}, 30000)']);
      try {
        await new Promise((r) => setTimeout(r, 200));
        const pid = child.pid!;
        const start = processStart(pid);
        expect(start).toMatch(/^\d+$/);
        expect(processAlive(pid, start)).toBe(true);
        // The same pid with another start time: what a reused pid looks like.
        expect(processAlive(pid, `${Number(start) + 1}`)).toBe(false);
        // Rows of older versions carry no start time: the pid alone decides.
        expect(processAlive(pid, null)).toBe(true);
      } finally {
        child.kill('SIGKILL');
        await once(child, 'exit');
      }
      expect(processAlive(child.pid!, null)).toBe(false);
    },
  );

  it('is this process when the pid is ours', () => {
    expect(processAlive(process.pid)).toBe(true);
    expect(processAlive(process.pid, processStart(process.pid))).toBe(true);
  });
});
