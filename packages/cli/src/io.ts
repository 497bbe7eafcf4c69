/** What the CLI touches of the outside world, so tests can run it in-process. */
export interface CliIO {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Fires on Ctrl-C (SIGINT); the CLI cancels the current turn. */
  onInterrupt(listener: () => void): () => void;
}

export function processIO(): CliIO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    // A getter: opening stdin costs a stream (and a TTY probe) that most commands never read.
    get stdin() {
      return process.stdin;
    },
    env: process.env,
    cwd: process.cwd(),
    onInterrupt(listener) {
      process.on('SIGINT', listener);
      return () => process.off('SIGINT', listener);
    },
  };
}

/** Exit codes of SPEC §11. */
export const EXIT = { ok: 0, usage: 2, config: 2, paused: 3, model: 4, interrupted: 130 } as const;

/** A problem the CLI reports as one line (no stack trace) with its exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.usage,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
