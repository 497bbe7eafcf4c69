import type { JSONValue } from '@raf/core';

/** The limits a run can hit; each error names one, as the YAML spells its setting. */
export type LimitName =
  | 'timeout_secs'
  | 'memory_limit'
  | 'stack_limit'
  | 'pids_limit'
  | 'file_size_limit'
  | 'output_limit';

/** What a backend reports for one run, before the tool shapes it for the model. */
export interface CodeRun {
  stdout: string;
  stderr: string;
  /** JavaScript: the last expression's value; Python: the `repr` of the last expression. */
  result?: JSONValue;
  exitCode?: number;
  /** An uncaught exception (JavaScript) or why the process failed to start. */
  error?: string;
  /** The limit the run hit, with what happened. */
  limit?: { name: LimitName; detail: string };
  timedOut?: boolean;
  /** The persisted state was dropped (after a crash or a memory limit). */
  stateReset?: boolean;
}

/** Collects a stream up to a byte budget shared by stdout and stderr. */
export class OutputBudget {
  private readonly chunks: { stream: 'stdout' | 'stderr'; text: string }[] = [];
  private used = 0;
  exceeded = false;

  constructor(readonly limit: number) {}

  /** Keeps what fits; returns false once the budget is spent (the caller stops the code). */
  push(stream: 'stdout' | 'stderr', text: string): boolean {
    if (this.exceeded) return false;
    const bytes = Buffer.byteLength(text);
    if (this.used + bytes > this.limit) {
      const room = this.limit - this.used;
      if (room > 0) this.chunks.push({ stream, text: Buffer.from(text).subarray(0, room).toString() });
      this.used = this.limit;
      this.exceeded = true;
      return false;
    }
    this.used += bytes;
    this.chunks.push({ stream, text });
    return true;
  }

  text(stream: 'stdout' | 'stderr'): string {
    return this.chunks
      .filter((c) => c.stream === stream)
      .map((c) => c.text)
      .join('');
  }
}
