import type { InputRequestUpdate, ToolApprovalRequestUpdate } from '@raf/core';
import type { RunRecord, RunStore, SequencedEvent } from '../events/run-store.js';

/** Events read from the store per page. */
const PAGE = 256;
/** Readers look again this often without a wake-up (a replica whose notification was lost). */
const POLL_MS = 1000;

export interface RunEventsOptions {
  /** The last sequence number the client has (`Last-Event-ID`): events after it (default 0: all). */
  after?: number;
  signal?: AbortSignal;
}

/**
 * A run the registry serves, in this replica or another: its record and its events. `events()`
 * replays from the store, then tails it until the run stops (paused, finished, failed or
 * cancelled) and every event is read: a finished run replays in full, a running one is followed.
 */
export class ServedRun {
  constructor(
    private readonly store: RunStore,
    readonly runId: string,
    readonly agent: string,
    readonly sessionId: string,
    readonly tenant: string,
    private readonly pending: () => Promise<ToolApprovalRequestUpdate[]>,
    /**
     * Asked while a stream waits on the running run: ends it if its replica is gone (the
     * registry's `OrphanRuns`, which spaces its checks out), so no stream waits for ever.
     */
    private readonly settle: (record: RunRecord) => Promise<unknown> = async () => undefined,
  ) {}

  /** The record now (from the store). */
  async record(signal?: AbortSignal): Promise<RunRecord> {
    const record = await this.store.get(this.runId, signal ? { signal } : {});
    if (!record) throw new Error(`run ${this.runId} vanished from the store`);
    return record;
  }

  /** The questions its running calls wait on (MCP elicitations), each with its `questionId`. */
  async pendingQuestions(): Promise<(InputRequestUpdate & { questionId: string })[]> {
    const record = await this.record();
    if (record.status !== 'running') return [];
    return (await this.store.questions(this.runId)).map((q) => ({ ...q.request, questionId: q.questionId }));
  }

  /**
   * The sequence number of the run's last `finish` stored so far (0: none): a run resumed after
   * approvals goes on after its pause's `finish`, and a stream of the current turn starts there.
   */
  async lastFinish(): Promise<number> {
    let last = 0;
    for (let cursor = 0; ; ) {
      const page = await this.store.read(this.runId, cursor, PAGE);
      for (const { seq, event } of page) if (event.type === 'finish') last = seq;
      if (page.length < PAGE) return last;
      cursor = page.at(-1)!.seq;
    }
  }

  /** The approvals the run waits for (empty unless `paused`). */
  pendingApprovals(): Promise<ToolApprovalRequestUpdate[]> {
    return this.pending();
  }

  async *events(options: RunEventsOptions = {}): AsyncGenerator<SequencedEvent> {
    for await (const page of this.pages(options)) yield* page;
  }

  /**
   * The same events, a page at a time (what the store returned in one read): a stream writes
   * each page in one piece.
   */
  async *pages(options: RunEventsOptions = {}): AsyncGenerator<SequencedEvent[]> {
    let cursor = options.after ?? 0;
    const signal = options.signal;
    let woken = true;
    let wake: (() => void) | undefined;
    // Subscribed before the first read: a change between a read and the wait is not missed.
    const unwatch = this.store.watch(this.runId, () => {
      woken = true;
      wake?.();
    });
    const onAbort = () => wake?.();
    signal?.addEventListener('abort', onAbort);
    try {
      for (;;) {
        if (signal?.aborted) return;
        woken = false;
        const page = (await this.store.read(this.runId, cursor, PAGE)).filter((e) => e.seq > cursor);
        if (page.length > 0) {
          cursor = page.at(-1)!.seq;
          yield page;
        }
        if (page.length === PAGE) continue;
        // Events after the last that is not a `finish` are still to come: no need to ask the record.
        const last = page.at(-1)?.event.type;
        if (last === undefined || last === 'finish') {
          const record = await this.store.get(this.runId);
          if (!record) return;
          if (record.lastSeq > cursor) continue;
          if (record.status !== 'running') return;
          // A failure of the check is no failure of the stream: it looks again later.
          await this.settle(record).catch(() => undefined);
        }
        if (woken) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, POLL_MS);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
    } finally {
      unwatch();
      signal?.removeEventListener('abort', onAbort);
    }
  }
}
