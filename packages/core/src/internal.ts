/**
 * `@raf/core/internal`: helpers RAF's own packages share (the batch protocol of `runBatches`,
 * values built on first use).
 * Not covered by semver: anything here may change or go in any release. Build on `IChatClient`
 * and `DelegatingChatClient` (`@raf/framework`) instead.
 */
export { type AbortSubscriber, subscribeAbort, unsubscribeAbort } from './abort/abort-fanout.js';
export { flattenBatches, singletonBatches, updateBatches } from './chat-client/update-batches.js';
export { nestsDeeperThan } from './json/nests-deeper-than.js';
export { onFirstUse } from './lazy/on-first-use.js';
export { MAX_TIMER_MS, timerDelay } from './lazy/timer-delay.js';
export {
  describeIssues,
  parseJournalEntry,
  parseSessionSnapshot,
  type SafeParseSessionResult,
  safeParseSessionSnapshot,
  sessionSchemaParts,
  sessionSnapshotJSON,
  sessionSnapshotSchema,
} from './session/session-snapshot-schema.js';
