import { parseJournalEntry } from '../sessions/session-snapshot-schema.js';
import {
  holderAlive,
  LEASE_TTL_MS,
  leaseLost,
  leaseTtl,
  newHolder,
  renewEvery,
  waitForLease,
} from './lease-holder.js';
import { processAlive, processStart } from './process-start.js';
import { checkRevision, emptySnapshot } from './store-common.js';

export type { LeaseHolder } from './lease-holder.js';

/**
 * The parts every session store backend shares (the memory, file and SQLite ones here,
 * `@raf/postgres`), so each keeps the same lease, revision and journal rules; and the one rule
 * for whether a process recorded on this host is still the one that wrote (`@raf/dbos` too).
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
  leaseTtl,
  leaseLost,
  processAlive,
  processStart,
} as const;
