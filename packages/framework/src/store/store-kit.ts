import { parseJournalEntry } from '../sessions/session-snapshot-schema.js';
import { holderAlive, LEASE_TTL_MS, newHolder, renewEvery, waitForLease } from './lease-holder.js';
import { checkRevision, emptySnapshot } from './store-common.js';

export type { LeaseHolder } from './lease-holder.js';

/**
 * The parts every session store backend shares (the memory, file and SQLite ones here,
 * `@raf/postgres`), so each keeps the same lease, revision and journal rules.
 */
export const sessionStoreKit = {
  newHolder,
  holderAlive,
  renewEvery,
  waitForLease,
  checkRevision,
  emptySnapshot,
  parseJournalEntry,
  LEASE_TTL_MS,
} as const;
