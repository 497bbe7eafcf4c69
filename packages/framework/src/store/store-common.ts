import { SessionConflictError, type SessionSnapshot } from '@raf/core';

/** A compare-and-set save whose expected revision is not the stored one is refused, naming both. */
export function checkRevision(id: string, stored: number, expected: number | undefined): void {
  if (expected === undefined || expected === stored) return;
  throw new SessionConflictError(
    id,
    'revision',
    `session ${id} was saved by another turn (revision ${stored}, this turn started from ${expected}): not saved`,
  );
}

/** What a journal folds onto when no snapshot was saved yet (a first turn killed mid-way). */
export function emptySnapshot(id: string, now = new Date().toISOString()): SessionSnapshot {
  return { version: 1, id, messages: [], state: {}, metadata: {}, createdAt: now, updatedAt: now };
}
