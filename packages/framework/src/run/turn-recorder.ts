import {
  type ChatMessage,
  type ISession,
  type JournalEntry,
  type JSONValue,
  type PendingApprovalBatch,
  providerStateKey,
  type SessionJournal,
  type SessionSnapshot,
  type ToolCall,
  type ToolResult,
  toolResultMessage,
} from '@raf/core';

/**
 * What the tool loop tells as a batch runs: calls about to start (before any side effect) and each
 * result as it completes. Both are awaited, so a step is durable before the next one begins.
 */
export interface CallRecorder {
  started(callIds: readonly string[]): Promise<void> | void;
  result(call: ToolCall, result: ToolResult): Promise<void> | void;
}

/**
 * Keeps the session's `inFlight` as calls start and finish, so a session saved at any moment (or
 * a run the caller stopped reading) tells which calls are in doubt. Without a journal this is all
 * a run records between its steps.
 */
export class InFlightRecorder implements CallRecorder {
  constructor(protected readonly target: ISession) {}

  started(callIds: readonly string[]): Promise<void> | void {
    if (callIds.length > 0) this.target.inFlight = [...(this.target.inFlight ?? []), ...callIds];
  }

  result(call: ToolCall, _result: ToolResult): Promise<void> | void {
    const inFlight = this.target.inFlight;
    if (inFlight?.includes(call.id)) this.target.inFlight = inFlight.filter((id) => id !== call.id);
  }

  /** The turn's new input: without a journal, it joins the session with the first step (`RunScope`). */
  input(_messages: readonly ChatMessage[]): void {}

  /** Nothing is buffered without a journal. */
  flush(): Promise<void> | void {}
}

/**
 * The session a journaled run writes through (SPEC §14.1): every change (messages, provider state,
 * the paused batch) goes to the session and is queued as a `JournalEntry`; the queue is appended
 * before each model call, before calls start (with `calls-started`), before a paused batch's
 * requests are shown and at the end of the turn, and each tool result is appended as it completes.
 * The turn's input is queued before the first model call (`input`), although the session takes it
 * only with the first step: a crash while the model answers keeps the user's message, a turn that
 * fails keeps it out of the session (its save compacts the journal). A crash loses at most the
 * step in flight.
 *
 * Appends run one after another (a chain), never concurrently, so the journal keeps their order.
 * Each is fenced by the session's lease in the store: once the lease is lost, nothing more is
 * written and the turn fails with the store's `SessionConflictError`.
 * They take no signal: a step that already happened is written even when the run is cancelled.
 */
export class JournaledSession extends InFlightRecorder implements ISession {
  private queue: JournalEntry[] = [];
  // Results appended as they completed; the loop's later `addMessages` of them is not journaled twice.
  private readonly appended = new Set<string>();
  // The input journaled ahead of the session (`input`): the first `addMessages` carrying it skips it.
  private early: ChatMessage[] = [];
  private tail: Promise<void> = Promise.resolve();
  private broken: unknown;

  constructor(
    readonly inner: ISession,
    private readonly journal: SessionJournal,
  ) {
    super(inner);
  }

  get id(): string {
    return this.inner.id;
  }

  get messages(): readonly ChatMessage[] {
    return this.inner.messages;
  }

  get metadata(): Record<string, JSONValue> {
    return this.inner.metadata;
  }

  get pendingApproval(): PendingApprovalBatch | undefined {
    return this.inner.pendingApproval;
  }

  set pendingApproval(batch: PendingApprovalBatch | undefined) {
    this.inner.pendingApproval = batch;
    this.queue.push({ type: 'pending', pendingApproval: batch ?? null });
  }

  get inFlight(): string[] | undefined {
    return this.inner.inFlight;
  }

  set inFlight(ids: string[] | undefined) {
    this.inner.inFlight = ids;
  }

  addMessages(messages: readonly ChatMessage[]): void {
    this.inner.addMessages(messages);
    const fresh = this.skipEarly(messages).filter(
      (m) => !(m.role === 'tool' && m.toolCallId !== undefined && this.appended.has(m.toolCallId)),
    );
    if (fresh.length > 0) this.queue.push({ type: 'messages', messages: [...fresh] });
  }

  /**
   * Journals the turn's input now (appended with the next flush, before the model is called); the
   * session gets it with the first step, as without a journal, and it is not journaled twice.
   */
  override input(messages: readonly ChatMessage[]): void {
    if (messages.length === 0) return;
    this.early = [...messages];
    this.queue.push({ type: 'messages', messages: [...messages] });
  }

  /**
   * `messages` without the leading input journaled already. Compared by value: a history provider
   * may store copies of what it was given.
   */
  private skipEarly(messages: readonly ChatMessage[]): readonly ChatMessage[] {
    const early = this.early;
    let n = 0;
    while (n < early.length && n < messages.length && sameMessage(early[n]!, messages[n]!)) n++;
    if (n === 0) return messages;
    this.early = [];
    return messages.slice(n);
  }

  getProviderState<T extends JSONValue = JSONValue>(providerName: string): T | undefined {
    return this.inner.getProviderState<T>(providerName);
  }

  setProviderState(providerName: string, value: JSONValue | undefined): void {
    this.inner.setProviderState(providerName, value);
    this.queue.push({ type: 'state', key: providerStateKey(providerName), value: value ?? null });
  }

  toJSON(): SessionSnapshot {
    return this.inner.toJSON();
  }

  override started(callIds: readonly string[]): Promise<void> {
    super.started(callIds);
    if (callIds.length > 0) this.queue.push({ type: 'calls-started', callIds: [...callIds] });
    return this.flush();
  }

  override result(call: ToolCall, result: ToolResult): Promise<void> {
    super.result(call, result);
    this.appended.add(call.id);
    this.queue.push({ type: 'messages', messages: [toolResultMessage(result, call.id)] });
    return this.flush();
  }

  /**
   * Appends what is queued. Called before every model call and before calls start, so it appends
   * even when nothing is queued: the store's append is fenced by the lease (SPEC §14.1), and an
   * empty one is the check (and renewal) that this turn still holds the session. A turn whose
   * lease was lost gets a `SessionConflictError` here and asks the model nothing more, runs no
   * further tool.
   */
  override flush(): Promise<void> {
    const entries = this.queue;
    this.queue = [];
    // After a failed append nothing more is written: a journal with a hole would fold into a
    // history the run never had. The failure fails the step that wrote, and every later one.
    const write = this.tail.then(() => {
      if (this.broken !== undefined) throw this.broken;
      return this.journal.append(entries);
    });
    this.tail = write.catch((error: unknown) => {
      this.broken ??= error;
    });
    return write;
  }
}

function sameMessage(a: ChatMessage, b: ChatMessage): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
