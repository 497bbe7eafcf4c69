import { Readable } from 'node:stream';
import type { CliIO } from './io.js';

/**
 * An in-memory terminal: run `main(argv, io)` in-process (tests, embedding) and read what it
 * printed. `lines()` parses `--json` output; `interrupt()` acts like Ctrl-C.
 */
export function createMemoryIO(options: {
  cwd: string;
  env?: Record<string, string>;
  stdin?: string[];
  tty?: boolean;
}) {
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  const stdin = Object.assign(Readable.from(options.stdin ?? []), { isTTY: options.tty ?? false });
  const io: CliIO = {
    stdout: { write: (t: string) => (out += t), isTTY: false },
    stderr: { write: (t: string) => (err += t), isTTY: false },
    stdin,
    env: options.env ?? {},
    cwd: options.cwd,
    onInterrupt(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return {
    io,
    out: () => out,
    err: () => err,
    lines: () =>
      out
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    interrupt: () => {
      for (const l of listeners) l();
    },
  };
}
