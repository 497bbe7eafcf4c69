import type { FinishReason, InputAnswer, InputRequestUpdate } from '@raf/core';
import type { RunEvent } from '@raf/framework';
import type { RunChange } from './local-watchers.js';

export type { RunChange };

export type RunStatus = 'running' | 'paused' | 'finished' | 'failed' | 'cancelled';

export const RUN_STATUSES: readonly RunStatus[] = ['running', 'paused', 'finished', 'failed', 'cancelled'];

/** A served run as the store keeps it (`GET /v1/runs/{id}`, minus `tenant`). */
export interface RunRecord {
  runId: string;
  agent: string;
  /** The session id the client sees (the store's id is namespaced by tenant). */
  sessionId: string;
  tenant: string;
  status: RunStatus;
  /** The reason of the last `finish` (absent while the first turn runs). */
  finishReason?: FinishReason;
  /** The sequence number of the last event stored (0: none yet). */
  lastSeq: number;
  /** A cancel was asked for (by any replica); the replica running it stops it. */
  cancelRequested: boolean;
  createdAt: string;
  updatedAt: string;
}

/** One event of a run with its sequence number (1, 2, …; the SSE `id:`). */
export interface SequencedEvent {
  seq: number;
  event: RunEvent;
}

/**
 * A question a running call of the run asks (an MCP elicitation, SPEC §14.4), kept in the store
 * until answered so that any replica answers it. `questionId` is `<callId>.<n>` (the call's n-th; `<callId>.<epoch>-<n>` once the run resumed).
 */
export interface StoredQuestion {
  questionId: string;
  request: InputRequestUpdate;
}

export interface RunStoreOptions {
  signal?: AbortSignal;
}

export type RunPatch = Partial<Pick<RunRecord, 'status' | 'finishReason' | 'cancelRequested'>>;

/**
 * Where served runs and their events live, so any replica on the same store serves any run's
 * events (SPEC §14.3). Only the replica running a run appends to it (it holds the session's lease),
 * in order, without gaps; readers page with `read(after)` and wait with `watch`.
 */
export interface RunStore {
  create(record: RunRecord, options?: RunStoreOptions): Promise<void>;
  get(runId: string, options?: RunStoreOptions): Promise<RunRecord | undefined>;
  /** Changes the record (and `updatedAt`); `undefined` when there is no such run. Wakes watchers. */
  update(runId: string, patch: RunPatch, options?: RunStoreOptions): Promise<RunRecord | undefined>;
  /** Appends events (their `seq` continue `lastSeq` by one each) and moves `lastSeq`. Wakes watchers. */
  append(runId: string, events: readonly SequencedEvent[], options?: RunStoreOptions): Promise<void>;
  /** Events with `seq > after`, in order, at most `limit`. */
  read(runId: string, after: number, limit: number, options?: RunStoreOptions): Promise<SequencedEvent[]>;
  /**
   * Calls `listener` when the run gets events or its record changes: in this process always, and
   * from other replicas where the backend can tell (Postgres `LISTEN/NOTIFY`; SQLite: polling).
   * Returns the unsubscribe function.
   */
  watch(runId: string, listener: (change: RunChange) => void): () => void;
  /** Keeps a question of the run (the replica running it asks; a second ask of one id is a no-op). */
  ask(runId: string, question: StoredQuestion): Promise<void>;
  /** The run's questions still waiting for an answer, in the order asked. */
  questions(runId: string): Promise<StoredQuestion[]>;
  /** Answers a question: the first answer wins (`false`: answered already, or no such question). Wakes watchers. */
  answer(runId: string, questionId: string, answer: InputAnswer): Promise<boolean>;
  /** The answer given, if any. */
  answerOf(runId: string, questionId: string): Promise<InputAnswer | undefined>;
  /** The tenant's newest run on the session (its client id), if any: `useChat`'s stream resume. */
  latestRun(tenant: string, sessionId: string): Promise<RunRecord | undefined>;
  /** Keeps an A2A task (its JSON) of a tenant, so that any replica answers `tasks/get`. */
  saveTask(tenant: string, taskId: string, task: string): Promise<void>;
  /** The tenant's A2A task as saved, or `undefined`. */
  loadTask(tenant: string, taskId: string): Promise<string | undefined>;
  close(): Promise<void>;
}
