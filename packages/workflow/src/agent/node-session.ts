import {
  type ChatMessage,
  type ISession,
  type JSONValue,
  type PendingApprovalBatch,
  providerStateKey,
  type SessionSnapshot,
} from '@raf/core';

/**
 * The session an agent node keeps between its runs, saved in each checkpoint as plain data so a
 * paused approval survives a restart.
 */
export class NodeSession implements ISession {
  readonly id: string;
  readonly metadata: Record<string, JSONValue>;
  pendingApproval: PendingApprovalBatch | undefined;
  private readonly list: ChatMessage[];
  private readonly state: Record<string, JSONValue>;
  private readonly createdAt: string;

  constructor(id: string, snapshot?: SessionSnapshot) {
    this.id = snapshot?.id ?? id;
    this.list = snapshot ? [...snapshot.messages] : [];
    this.state = snapshot ? { ...snapshot.state } : {};
    this.metadata = snapshot ? { ...snapshot.metadata } : {};
    this.pendingApproval = snapshot?.pendingApproval;
    this.createdAt = snapshot?.createdAt ?? new Date().toISOString();
  }

  get messages(): readonly ChatMessage[] {
    return this.list;
  }

  addMessages(messages: readonly ChatMessage[]): void {
    this.list.push(...messages);
  }

  getProviderState<T extends JSONValue = JSONValue>(providerName: string): T | undefined {
    return this.state[providerStateKey(providerName)] as T | undefined;
  }

  setProviderState(providerName: string, value: JSONValue | undefined): void {
    const key = providerStateKey(providerName);
    if (value === undefined) delete this.state[key];
    else this.state[key] = value;
  }

  toJSON(): SessionSnapshot {
    return {
      version: 1,
      id: this.id,
      messages: [...this.list],
      state: { ...this.state },
      metadata: { ...this.metadata },
      ...(this.pendingApproval && { pendingApproval: this.pendingApproval }),
      createdAt: this.createdAt,
      updatedAt: new Date().toISOString(),
    };
  }
}
