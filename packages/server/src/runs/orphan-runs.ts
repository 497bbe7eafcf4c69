import type { RafStore } from '@raf/framework';
import type { RunRecord, RunStore } from '../events/run-store.js';
import { storeSessionId } from './tenant-sessions.js';

/** How often one replica asks whether a run's owner still lives (a lease attempt each time). */
const OWNER_CHECK_MS = 5000;
/** Runs whose last check is remembered; past it the memory starts again (checks come back sooner). */
const MAX_REMEMBERED = 10_000;

/** The error a run ends with when the replica running it is gone. */
export const INTERRUPTED_CODE = 'RAF_SERVE_INTERRUPTED';

/**
 * Finds runs left `running` by a replica that died (`kill -9`, a lost machine) and ends them.
 *
 * The liveness signal is the session's lease: the replica running a (non-durable) run holds it
 * from before the record says `running` until after it says otherwise, and renews it; a dead
 * holder's lease is free at once on its own host (its pid is gone) and after the lease's expiry
 * elsewhere. So a `running` run that is not running in this replica and whose lease can be
 * taken has no owner: nothing will ever write its events again. It is ended `failed` with an
 * `error` naming the cause and the `finish` its event streams end on. Without `--durable` no
 * replica finishes it (that is what `--durable` is for); it just must not look running for ever.
 */
export class OrphanRuns {
  private readonly checked = new Map<string, number>();

  constructor(
    private readonly store: RafStore,
    private readonly runs: RunStore,
    /** Not for this check: the run executes in this replica (its owner lives), or it is durable. */
    private readonly exempt: (record: RunRecord) => boolean,
  ) {}

  /**
   * The record, ended first if its owner is gone. At most one check a run every few seconds
   * (each is a lease attempt, a write) unless `now` (a cancel, which must answer truthfully).
   */
  async settle(record: RunRecord, now = false): Promise<RunRecord> {
    if (record.status !== 'running' || this.exempt(record)) return record;
    const at = Date.now();
    const last = this.checked.get(record.runId);
    if (!now && last !== undefined && at - last < OWNER_CHECK_MS) return record;
    if (this.checked.size >= MAX_REMEMBERED) this.checked.clear();
    this.checked.set(record.runId, at);
    let lease: Awaited<ReturnType<RafStore['sessions']['acquireLease']>>;
    try {
      lease = await this.store.sessions.acquireLease(storeSessionId(record.tenant, record.sessionId), {
        waitMs: 0,
      });
    } catch {
      // Held: its owner lives (or the store is busy): the run is left as it is, looked at later.
      return record;
    }
    try {
      // Read again under the lease: the run may have stopped meanwhile (its owner released it).
      const current = await this.runs.get(record.runId);
      if (current?.status !== 'running' || this.exempt(current)) return current ?? record;
      await endInterruptedRun(this.runs, current);
      this.checked.delete(record.runId);
      return (await this.runs.get(record.runId)) ?? current;
    } finally {
      await lease.release().catch(() => undefined);
    }
  }
}

/**
 * Ends a run whose replica is gone as `failed`: an `error` event saying so, then the `finish`
 * its event streams end on. The caller holds the session's lease: the one writer.
 */
export async function endInterruptedRun(runs: RunStore, record: RunRecord): Promise<void> {
  await runs.append(record.runId, [
    {
      seq: record.lastSeq + 1,
      event: {
        type: 'error',
        code: INTERRUPTED_CODE,
        message:
          'the run was interrupted: the server process running it stopped before it finished (with raf serve --durable another replica would finish it); start a new turn on the session',
      },
    },
    { seq: record.lastSeq + 2, event: { type: 'finish', reason: 'other', sessionId: record.sessionId } },
  ]);
  await runs.update(record.runId, { status: 'failed', finishReason: 'other', cancelRequested: false });
}
