import {
  type ChatMessage,
  cloneMessage,
  type ISession,
  type JSONValue,
  type PendingApprovalBatch,
  providerStateKey,
  type SessionSnapshot,
} from '@raf/core';
import { nodeCrypto } from '../lazy-builtins.js';
import { parseSessionSnapshot } from './session-snapshot-schema.js';

/**
 * One conversation: its messages, each provider's state, metadata, and a paused approval batch.
 * Everything is plain data, so `toJSON()` → store → `AgentSession.fromJSON()` resumes it anywhere,
 * including a paused run in another process.
 */
export class AgentSession implements ISession {
  readonly id: string;
  readonly metadata: Record<string, JSONValue>;
  pendingApproval: PendingApprovalBatch | undefined;
  private readonly history: ChatMessage[];
  private readonly state: Record<string, JSONValue>;
  // Numbers until serialized: formatting a date per run or write costs more than the work.
  private readonly createdAt: number;
  private updatedAt: number;

  constructor(id: string = nodeCrypto().randomUUID(), snapshot?: SessionSnapshot) {
    this.id = snapshot?.id ?? id;
    this.history = snapshot ? structuredClone(snapshot.messages) : [];
    this.state = snapshot ? structuredClone(snapshot.state) : {};
    this.metadata = snapshot ? structuredClone(snapshot.metadata) : {};
    this.pendingApproval = snapshot?.pendingApproval ? structuredClone(snapshot.pendingApproval) : undefined;
    const now = Date.now();
    this.createdAt = snapshot ? Date.parse(snapshot.createdAt) : now;
    this.updatedAt = snapshot ? Date.parse(snapshot.updatedAt) : now;
  }

  /** Restores a session from `toJSON()` output; malformed data is a `SessionError`, not a crash. */
  static fromJSON(data: unknown, source?: string): AgentSession {
    const snapshot = parseSessionSnapshot(data, source);
    return new AgentSession(snapshot.id, snapshot);
  }

  get messages(): readonly ChatMessage[] {
    return this.history;
  }

  addMessages(messages: readonly ChatMessage[]): void {
    for (const message of messages) this.history.push(cloneMessage(message));
    this.touch();
  }

  getProviderState<T extends JSONValue = JSONValue>(providerName: string): T | undefined {
    return this.state[providerStateKey(providerName)] as T | undefined;
  }

  setProviderState(providerName: string, value: JSONValue | undefined): void {
    const key = providerStateKey(providerName);
    if (value === undefined) delete this.state[key];
    else this.state[key] = structuredClone(value);
    this.touch();
  }

  touch(): void {
    this.updatedAt = Date.now();
  }

  toJSON(): SessionSnapshot {
    const snapshot: SessionSnapshot = {
      version: 1,
      id: this.id,
      messages: structuredClone(this.history),
      state: structuredClone(this.state),
      metadata: structuredClone(this.metadata),
      createdAt: new Date(this.createdAt).toISOString(),
      updatedAt: new Date(this.updatedAt).toISOString(),
    };
    if (this.pendingApproval) snapshot.pendingApproval = structuredClone(this.pendingApproval);
    return snapshot;
  }
}
