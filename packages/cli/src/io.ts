/** What the CLI touches of the outside world, so tests can run it in-process. */
export interface CliIO {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Fires on Ctrl-C (SIGINT); the CLI cancels the current turn. */
  onInterrupt(listener: () => void): () => void;
  /** Fires on SIGTERM: for the commands that serve until stopped (`raf mock`). */
  onTerminate?(listener: () => void): () => void;
}

/**
 * A reader that goes away (`raf schema | head -1`) closes the pipe: what is left to print has
 * nobody to read it. Without a listener, the next write's EPIPE would crash with a stack trace.
 */
function ignoreClosedPipe(stream: NodeJS.WriteStream): NodeJS.WriteStream {
  if (!stream.listeners('error').includes(onPipeError)) stream.on('error', onPipeError);
  return stream;
}

function onPipeError(error: NodeJS.ErrnoException): void {
  if (error.code !== 'EPIPE') throw error;
}

export function processIO(): CliIO {
  ignoreClosedPipe(process.stdout);
  ignoreClosedPipe(process.stderr);
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
    onTerminate(listener) {
      process.on('SIGTERM', listener);
      return () => process.off('SIGTERM', listener);
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
