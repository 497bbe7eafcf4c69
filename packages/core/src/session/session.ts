import type { JSONValue } from '../json/json.js';
import type { ChatMessage, ToolCall } from '../messages/chat-message.js';
import type { ToolResult } from '../tool/tool-result.js';
import type { ToolApprovalRequestUpdate } from '../updates/agent-response-update.js';
import type { SessionJournal } from './journal.js';

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
  /**
   * How many times the store saved this session (set by the store on `load`; 0 when only its
   * journal exists). A compare-and-set save passes it back as `expectedRevision`.
   */
  revision?: number;
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

export interface SessionSaveOptions extends SessionStoreOptions {
  /**
   * Compare-and-set: the revision the caller loaded (`0`: no snapshot saved yet). A store holding
   * another revision refuses with a `SessionConflictError` (`kind: 'revision'`) and writes nothing.
   * Absent: the save is unconditional (last writer wins).
   */
  expectedRevision?: number;
  /**
   * Fences the save by the turn's lease, as every journal append is: a turn whose lease was lost
   * (expired and taken by another turn, or released) saves nothing and gets a
   * `SessionConflictError` (`kind: 'lease'`), even when no other save came first.
   */
  lease?: SessionLease;
}

/** How long a second turn waits for the session by default (SPEC §14.1). */
export const DEFAULT_LEASE_WAIT_MS = 30_000;

export interface AcquireLeaseOptions extends SessionStoreOptions {
  /** How long to wait while another live holder has the session (default 30 s; 0: not at all). */
  waitMs?: number;
  /**
   * How long the lease lasts without renewal (default 60 s; the holder renews it every third of
   * that while it runs). Short in tests that simulate a frozen holder.
   */
  ttlMs?: number;
}

/**
 * The right to run a turn on one session. A holder that died (same host: its pid is gone; any
 * host: it stopped renewing before the lease's expiry) is taken over by the next acquirer.
 */
export interface SessionLease {
  readonly sessionId: string;
  /** Unique per acquisition. */
  readonly token: string;
  /** Gives the session up (idempotent). */
  release(options?: SessionStoreOptions): Promise<void>;
}

/**
 * Where sessions live (SPEC §14.1). `load` returns the saved snapshot with its journal folded in
 * (`foldJournal`) and its `revision`; `save` replaces the snapshot and compacts the journal in one
 * step, and returns the new revision.
 */
export interface ISessionStore {
  load(id: string, options?: SessionStoreOptions): Promise<SessionSnapshot | undefined>;
  save(snapshot: SessionSnapshot, options?: SessionSaveOptions): Promise<number>;
  /** Removes the snapshot, its journal and its claims. */
  delete(id: string, options?: SessionStoreOptions): Promise<void>;
  list(options?: SessionStoreOptions): Promise<string[]>;
  /**
   * Waits for the session's lease (`waitMs`, default 30 s) and takes it; still held by a live
   * holder after the wait: `SessionConflictError` (`kind: 'lease'`).
   */
  acquireLease(id: string, options?: AcquireLeaseOptions): Promise<SessionLease>;
  /**
   * The append-only journal of the leased session; entries survive a `kill -9` once appended.
   * Every append is fenced by the lease: once it is no longer held by `lease` (released, or expired
   * and taken by another turn) an append writes nothing and fails with `SessionConflictError`
   * (`kind: 'lease'`).
   */
  openJournal(lease: SessionLease, options?: SessionStoreOptions): Promise<SessionJournal>;
  /**
   * Claims a paused approval batch (`approvalBatchKey`) for resuming: `true` for exactly one
   * caller per key and session, `false` for every later one (the batch was already resumed).
   */
  claimApproval(id: string, key: string, options?: SessionStoreOptions): Promise<boolean>;
}

/** Names a paused batch for `claimApproval`: the same batch gives the same key in any process. */
export function approvalBatchKey(batch: PendingApprovalBatch): string {
  return `r${batch.round}:${[...batch.gatedCallIds].sort().join(',')}`;
}

export function providerStateKey(providerName: string): string {
  return `provider_state::${providerName}`;
}
