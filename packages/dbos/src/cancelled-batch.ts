import { SessionConflictError, type ToolResult, toolFailure, toolResultMessage } from '@raf/core';
import type { PostgresStore } from '@raf/postgres';

export const CANCELLED_CALL_ERROR =
  'Not run: the run was cancelled while this call waited for approval. Call it again if it is still needed.';

/**
 * Closes the approval batch a cancelled parked run left in its session, so the session takes a
 * new turn (else it answers "paused waiting for approval"): each call of the batch gets its
 * result (one that ran before the pause keeps its own, the others are answered as not run) and
 * the batch goes. Saved compare-and-set on the session's revision; a concurrent save is read
 * again, a few times. `false`: the session has no pending batch.
 */
export async function closeCancelledBatch(store: PostgresStore, sessionId: string): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    const snapshot = await store.sessions.load(sessionId);
    const batch = snapshot?.pendingApproval;
    if (!snapshot || !batch) return false;
    const results = batch.toolCalls.map((call) => {
      const result: ToolResult = batch.results?.[call.id] ?? toolFailure(CANCELLED_CALL_ERROR);
      return toolResultMessage(result, call.id);
    });
    const { pendingApproval: _closed, inFlight: _none, revision, ...rest } = snapshot;
    try {
      await store.sessions.save(
        { ...rest, messages: [...snapshot.messages, ...results], updatedAt: new Date().toISOString() },
        { expectedRevision: revision ?? 0 },
      );
      return true;
    } catch (error) {
      if (!SessionConflictError.isInstance(error) || attempt >= 4) throw error;
    }
  }
}
