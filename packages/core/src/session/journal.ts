import type { JSONValue } from '../json/json.js';
import type { ChatMessage } from '../messages/chat-message.js';
import type { PendingApprovalBatch, SessionSnapshot } from './session.js';

/**
 * One step of a turn, journaled as it completes (SPEC §14.1), so that a crash loses at most the
 * step in flight. Plain JSON: a store appends entries as they come and folds them into the
 * session's snapshot on load (`foldJournal`).
 *
 * - `messages`: messages appended to the history (the turn's input, the assistant message with its
 *   tool calls, each tool result as it is produced, the final answer).
 * - `calls-started`: calls about to execute, written before their side effects. A started call
 *   with no tool result after it is *in doubt* on resume.
 * - `state`: a provider state slot set (`value: null` removes it).
 * - `pending`: the paused approval batch set or cleared (`null`).
 */
export type JournalEntry =
  | { type: 'messages'; messages: ChatMessage[] }
  | { type: 'calls-started'; callIds: string[] }
  | { type: 'state'; key: string; value: JSONValue | null }
  | { type: 'pending'; pendingApproval: PendingApprovalBatch | null };

export interface JournalAppendOptions {
  signal?: AbortSignal;
}

/** Where a running turn writes its steps; a store hands one out per session (under its lease). */
export interface SessionJournal {
  /**
   * Appends `entries` in order, atomically with a check that the journal's lease is still held
   * (SPEC §14.1): a turn whose lease was lost writes nothing more and gets a `SessionConflictError`
   * (`kind: 'lease'`). An append of no entries only checks (and renews) the lease.
   */
  append(entries: readonly JournalEntry[], options?: JournalAppendOptions): Promise<void>;
}

/**
 * Applies journal entries to a snapshot, in order, and returns the new snapshot (the input is not
 * changed). `inFlight` ends up holding the calls that started and have no tool result yet.
 */
export function foldJournal(snapshot: SessionSnapshot, entries: readonly JournalEntry[]): SessionSnapshot {
  const messages = [...snapshot.messages];
  const state = { ...snapshot.state };
  const inFlight = new Set(snapshot.inFlight ?? []);
  let pendingApproval = snapshot.pendingApproval;
  for (const entry of entries) {
    switch (entry.type) {
      case 'messages':
        for (const message of entry.messages) {
          messages.push(message);
          if (message.role === 'tool' && message.toolCallId !== undefined)
            inFlight.delete(message.toolCallId);
        }
        break;
      case 'calls-started':
        for (const id of entry.callIds) inFlight.add(id);
        break;
      case 'state':
        if (entry.value === null) delete state[entry.key];
        else state[entry.key] = entry.value;
        break;
      case 'pending':
        pendingApproval = entry.pendingApproval ?? undefined;
        break;
    }
  }
  const { inFlight: _previous, pendingApproval: _pending, ...rest } = snapshot;
  return {
    ...rest,
    messages,
    state,
    ...(pendingApproval !== undefined && { pendingApproval }),
    ...(inFlight.size > 0 && { inFlight: [...inFlight] }),
  };
}
