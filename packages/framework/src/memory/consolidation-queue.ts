import { resolve } from 'node:path';
import { CancelledError, getErrorMessage, type IChatClient } from '@raf/core';
import type { MemoryLanguage } from './memory-notice.js';
import type { TranscriptSegment } from './transcript.js';

/** One request to fold conversation into a bundle. */
export interface ConsolidationJob {
  directory: string;
  client: IChatClient;
  transcript: TranscriptSegment[];
  language?: MemoryLanguage;
}

export interface ConsolidationStats {
  completed: number;
  failed: number;
  /** Jobs waiting (0 or 1: a newer job replaces the pending one). */
  queued: number;
  /** Pending jobs replaced by a newer one (their transcript travels with it). */
  coalesced: number;
}

export interface ConsolidationOutcome {
  status: 'ok' | 'updated' | 'index_gap' | 'skipped' | 'error';
  updatedFiles: string[];
  error?: string;
}

export type ConsolidationRunner = (
  job: ConsolidationJob,
  signal: AbortSignal,
) => Promise<ConsolidationOutcome>;

const queues = new Map<string, ConsolidationQueue>();

/**
 * The consolidation jobs of one bundle, run one at a time in the background. A job that arrives
 * while another waits replaces it (latest wins), carrying the older job's transcript along, so
 * nothing said is skipped and no two curators of this process write one bundle at once.
 */
export class ConsolidationQueue {
  private pending: ConsolidationJob | undefined;
  private running: Promise<void> | undefined;
  private readonly counts = { completed: 0, failed: 0, coalesced: 0 };
  // Jobs run to the end: a curator stopped midway would only leave less consolidated memory.
  private readonly controller = new AbortController();
  private idle: Array<() => void> = [];
  /** The last finished job's outcome. */
  last: ConsolidationOutcome | undefined;

  constructor(private readonly runner: ConsolidationRunner) {}

  /** The queue of a bundle folder in this process (one per folder, whoever asks). */
  static forDirectory(directory: string, runner: ConsolidationRunner): ConsolidationQueue {
    const key = resolve(directory);
    let queue = queues.get(key);
    if (!queue) {
      queue = new ConsolidationQueue(runner);
      queues.set(key, queue);
    }
    return queue;
  }

  get stats(): ConsolidationStats {
    return { ...this.counts, queued: this.pending ? 1 : 0 };
  }

  get busy(): boolean {
    return this.running !== undefined || this.pending !== undefined;
  }

  enqueue(job: ConsolidationJob): void {
    if (this.pending) {
      this.counts.coalesced++;
      job = { ...job, transcript: [...this.pending.transcript, ...job.transcript] };
    }
    this.pending = job;
    this.running ??= this.drain();
  }

  /** Resolves when no job runs or waits; a signal stops the waiting (the jobs go on). */
  whenIdle(signal?: AbortSignal): Promise<void> {
    if (!this.busy) return Promise.resolve();
    return new Promise<void>((resolvePromise, reject) => {
      const done = () => {
        signal?.removeEventListener('abort', abort);
        resolvePromise();
      };
      const abort = () => {
        this.idle = this.idle.filter((f) => f !== done);
        reject(new CancelledError('stopped waiting for memory consolidation', { cause: signal?.reason }));
      };
      if (signal?.aborted) return abort();
      signal?.addEventListener('abort', abort, { once: true });
      this.idle.push(done);
    });
  }

  private async drain(): Promise<void> {
    while (this.pending) {
      const job = this.pending;
      this.pending = undefined;
      try {
        const outcome = await this.runner(job, this.controller.signal);
        this.last = outcome;
        if (outcome.status === 'error') this.counts.failed++;
        else this.counts.completed++;
      } catch (error) {
        this.last = { status: 'error', updatedFiles: [], error: getErrorMessage(error) };
        this.counts.failed++;
      }
    }
    this.running = undefined;
    const waiting = this.idle;
    this.idle = [];
    for (const done of waiting) done();
  }
}
