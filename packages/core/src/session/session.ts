import type { JSONValue } from '../json/json.js';
import type { ChatMessage, ToolCall } from '../messages/chat-message.js';
import type { ToolResult } from '../tool/tool-result.js';
import type { ToolApprovalRequestUpdate } from '../updates/agent-response-update.js';

/**
 * A call of a paused batch that suspended itself (a delegation whose sub-agent waits for
 * approval): what it asked and the state it resumes from. Plain JSON, like the rest of the batch.
 */
export interface SuspendedCall {
  /** The approval requests it raised; their call ids are among the batch's `gatedCallIds`. */
  requests: ToolApprovalRequestUpdate[];
  /** Opaque to the loop; handed back to the tool on resume. */
  state: JSONValue;
}

/** A batch of tool calls paused for approval; plain data, so it survives a restart. */
export interface PendingApprovalBatch {
  /** The assistant message that asked for the calls (already in the history). */
  toolCalls: ToolCall[];
  /** Ids of the calls that need an answer. */
  gatedCallIds: string[];
  /** The resolved target each gated call was approved against. */
  resolvedTargets?: Record<string, string>;
  round: number;
  /** Results of calls that already ran before the batch paused (kept, not run again). */
  results?: Record<string, ToolResult>;
  /** Calls that suspended, by call id: they run again on resume with the answers to their requests. */
  suspended?: Record<string, SuspendedCall>;
}

/** The serialized form of a session (`toJSON()`); versioned so old files keep loading. */
export interface SessionSnapshot {
  version: 1;
  id: string;
  messages: ChatMessage[];
  /** Keys are `provider_state::<ProviderName>`. */
  state: Record<string, JSONValue>;
  metadata: Record<string, JSONValue>;
  pendingApproval?: PendingApprovalBatch;
  /**
   * Calls journaled as started that have no tool result yet (`foldJournal`): after a crash they
   * are *in doubt* (SPEC §14.1). Absent when none.
   */
  inFlight?: string[];
  createdAt: string;
  updatedAt: string;
}

export interface ISession {
  readonly id: string;
  readonly messages: readonly ChatMessage[];
  readonly metadata: Record<string, JSONValue>;
  pendingApproval: PendingApprovalBatch | undefined;
  /**
   * Calls started and without a result yet (`SessionSnapshot.inFlight`): the loop keeps it while
   * tools run. A session that leaves it `undefined` tells nothing, so on resume every call of an
   * interrupted turn without a result counts as *in doubt*.
   */
  inFlight?: string[] | undefined;
  addMessages(messages: readonly ChatMessage[]): void;
  getProviderState<T extends JSONValue = JSONValue>(providerName: string): T | undefined;
  setProviderState(providerName: string, value: JSONValue | undefined): void;
  toJSON(): SessionSnapshot;
}

export interface SessionStoreOptions {
  signal?: AbortSignal;
}

export interface ISessionStore {
  load(id: string, options?: SessionStoreOptions): Promise<SessionSnapshot | undefined>;
  save(snapshot: SessionSnapshot, options?: SessionStoreOptions): Promise<void>;
  delete(id: string, options?: SessionStoreOptions): Promise<void>;
  list(options?: SessionStoreOptions): Promise<string[]>;
}

export function providerStateKey(providerName: string): string {
  return `provider_state::${providerName}`;
}
