import type { JSONValue } from '../json/json.js';
import { type ChatMessage, cloneMessage } from '../messages/chat-message.js';
import {
  type ISession,
  type PendingApprovalBatch,
  providerStateKey,
  type SessionSnapshot,
} from './session.js';

/**
 * A conversation held as plain data: its messages, each provider's state, metadata and a paused
 * approval batch. `toJSON()` is a `SessionSnapshot`, and `new PlainSession(id, snapshot)` takes one
 * back (already validated: `AgentSession.fromJSON` in `@raf/framework` parses untrusted data).
 * What comes in and goes out is copied, so a caller's object never aliases the session's state.
 */
export class PlainSession implements ISession {
  readonly id: string;
  readonly metadata: Record<string, JSONValue>;
  pendingApproval: PendingApprovalBatch | undefined;
  inFlight: string[];
  private readonly history: ChatMessage[];
  private readonly state: Record<string, JSONValue>;
  // Numbers until serialized: formatting a date per run or write costs more than the work.
  private readonly createdAt: number;
  private updatedAt: number;

  constructor(id: string, snapshot?: SessionSnapshot) {
    this.id = snapshot?.id ?? id;
    this.history = snapshot ? structuredClone(snapshot.messages) : [];
    this.state = snapshot ? structuredClone(snapshot.state) : {};
    this.metadata = snapshot ? structuredClone(snapshot.metadata) : {};
    this.pendingApproval = snapshot?.pendingApproval ? structuredClone(snapshot.pendingApproval) : undefined;
    this.inFlight = snapshot?.inFlight ? [...snapshot.inFlight] : [];
    const now = Date.now();
    // A snapshot from older or hand-written data may lack a date: now, rather than an invalid one.
    const dated = (iso: string | undefined) => (iso === undefined ? Number.NaN : Date.parse(iso));
    this.createdAt = snapshot ? dated(snapshot.createdAt) || now : now;
    this.updatedAt = snapshot ? dated(snapshot.updatedAt) || this.createdAt : now;
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
    if (this.inFlight.length > 0) snapshot.inFlight = [...this.inFlight];
    return snapshot;
  }
}
