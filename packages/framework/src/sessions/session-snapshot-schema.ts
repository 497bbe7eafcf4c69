// The session snapshot's schema lives in `@raf/core` (workflow nodes read sessions back too).
export {
  describeIssues,
  parseJournalEntry,
  parseSessionSnapshot,
  type SafeParseSessionResult,
  safeParseSessionSnapshot,
  sessionSchemaParts,
  sessionSnapshotJSON,
  sessionSnapshotSchema,
} from '@raf/core/internal';
