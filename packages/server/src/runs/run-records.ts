import { randomUUID } from 'node:crypto';
import type { RunRecord, RunStore } from '../events/run-store.js';

/** The record of a run that starts now. */
export function newRunRecord(agent: string, sessionId: string, tenant: string): RunRecord {
  const now = new Date().toISOString();
  return {
    runId: randomUUID(),
    agent,
    sessionId,
    tenant,
    status: 'running',
    lastSeq: 0,
    cancelRequested: false,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * Ends a paused run that nothing can resume (its session's batch is gone) as `cancelled`, with
 * the `finish` its event streams end on. The caller holds the session's lease: the one writer.
 */
export async function endOrphanedRun(runs: RunStore, record: RunRecord): Promise<void> {
  const finish = { type: 'finish', reason: 'cancelled', sessionId: record.sessionId } as const;
  await runs.append(record.runId, [{ seq: record.lastSeq + 1, event: finish }]);
  await runs.update(record.runId, { status: 'cancelled', finishReason: 'cancelled' });
}
