import { constants, existsSync } from 'node:fs';
import { access, mkdtemp, readdir, readFile, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { ToolResult } from '@raf/core';
import type { CodeInterpreterTool } from '../tool/code-interpreter.js';

/** Whether a program is on PATH (tests that need one use `it.runIf(has(…))`). */
export function has(program: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    const path = join(dir, program);
    return existsSync(path);
  });
}

export const isRoot = process.getuid?.() === 0;

/** Calls the tool the way the tool loop does (arguments validated first). */
export async function call(
  tool: CodeInterpreterTool,
  args: { language?: string; code: string },
  options: { sessionId?: string; signal?: AbortSignal } = {},
): Promise<ToolResult & { data: Record<string, unknown> }> {
  const checked = tool.validateArguments?.(args);
  if (checked && !checked.ok) throw new Error(checked.error);
  const result = await tool.execute(checked?.ok ? checked.args : args, {
    signal: options.signal ?? new AbortController().signal,
    callId: 'call_1',
    argumentsValidated: true,
    ...(options.sessionId !== undefined && { sessionId: options.sessionId }),
  });
  return result as ToolResult & { data: Record<string, unknown> };
}

/** A PATH of links to every program in /usr/bin except those named: a machine without them. */
export async function pathWithout(...programs: string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'raf-path-'));
  for (const name of await readdir('/usr/bin')) {
    if (programs.includes(name)) continue;
    try {
      await access(join('/usr/bin', name), constants.X_OK);
      await symlink(join('/usr/bin', name), join(dir, name));
    } catch {
      // not a program
    }
  }
  return dir;
}

/** Samples this process's RSS while `work` runs; returns the peak growth in MiB. */
export async function peakRssGrowth<T>(work: () => Promise<T>): Promise<{ value: T; growthMiB: number }> {
  const before = process.memoryUsage.rss();
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 10);
  try {
    const value = await work();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { value, growthMiB: (peak - before) / 1024 / 1024 };
  } finally {
    clearInterval(timer);
  }
}

/**
 * How many live processes the user owns now (to check that nothing outlived a run). Zombies do
 * not count: bubblewrap's namespace init is reparented to PID 1 when bwrap exits, and waits
 * there (briefly) to be reaped.
 */
export async function processesOf(uid: number): Promise<number> {
  let count = 0;
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if ((await stat(`/proc/${name}`)).uid !== uid) continue;
      const status = await readFile(`/proc/${name}/stat`, 'utf8');
      if (status.slice(status.lastIndexOf(')') + 2, status.lastIndexOf(')') + 3) !== 'Z') count++;
    } catch {
      // exited meanwhile
    }
  }
  return count;
}
