import type { AgentResponseUpdate, ApprovalResponse, ChatMessage, SessionLease } from '@raf/core';
import { getErrorMessage, RafError } from '@raf/core';
import { type AgentSession, type RafStore, type RunEvent, RunEventMapper } from '@raf/framework';
import type { RunRecord, RunStatus, RunStore, SequencedEvent } from '../events/run-store.js';
import { questionAsker } from './run-questions.js';
import type { ServedAgents } from './served-agents.js';

export interface ExecuteRunOptions {
  record: RunRecord;
  served: string;
  agents: ServedAgents;
  store: RafStore;
  runs: RunStore;
  session: AgentSession;
  /** The revision the session was loaded at: the save is compare-and-set on it. */
  revision: number;
  /** The session's lease, held for the whole turn and released at its end. */
  lease: SessionLease;
  /** The turn's text, or a user message with content parts (a model without the capability fails: an `error` event). */
  input?: string | ChatMessage;
  approvals?: ApprovalResponse[];
  signal?: AbortSignal | undefined;
  /** Cancel the run once these calls have their results (a paused run cancelled: its denials). */
  cancelOnceAnswered?: string[];
  controller: AbortController;
}

/**
 * Runs one turn of a served run: each update mapped to its run event (SPEC §11.1, the same
 * mapping as `raf run --json`), numbered after the run's last, and written to the run store in
 * order. Writes are batched by their own latency: while one is in flight the next events gather,
 * so a slow store costs round trips per batch, not per token. The session is saved before the
 * record says the run stopped: a reader that sees `paused` can answer the approvals at once.
 */
export async function executeRun(options: ExecuteRunOptions): Promise<void> {
  const { record, runs, controller, session } = options;
  const clientSessionId = record.sessionId;
  const writer = new EventWriter(runs, record.runId, record.lastSeq);
  const mapper = new RunEventMapper();
  // Another replica asked for a cancel: stop here.
  const unwatch = runs.watch(record.runId, (change) => {
    if (change !== 'record') return;
    void runs.get(record.runId).then((now) => {
      if (now?.cancelRequested) controller.abort(new Error('cancelled through the API'));
    });
  });
  let reason: RunStatus = 'finished';
  let finishReason: RunRecord['finishReason'] = 'other';
  let failed = false;
  let finish: RunEvent | undefined;
  try {
    try {
      const agent = await options.agents.get(options.served).agent(controller.signal);
      const journal = await options.store.sessions.openJournal(options.lease);
      // A resumed run starts after its last event: a new epoch for the ids of its questions.
      const questions = questionAsker(runs, record.runId, record.lastSeq);
      const stream = agent.run(options.input, {
        session,
        signal: controller.signal,
        journal,
        onInputRequest: questions.handler,
        ...(options.approvals && { approvals: options.approvals }),
      });
      const unanswered = options.cancelOnceAnswered && new Set(options.cancelOnceAnswered);
      for await (const update of stream as AsyncIterable<AgentResponseUpdate>) {
        if (update.type === 'error') failed = true;
        if (unanswered) {
          if (update.type === 'tool-called') unanswered.delete(update.callId);
          // Every answer is in the history (or the model already speaks): stop here.
          if (unanswered.size === 0 || update.type === 'text-delta' || update.type === 'tool-call-end')
            controller.abort(new Error('cancelled through the API'));
        }
        const mapped = mapper.map(update, clientSessionId);
        if (!mapped) continue;
        // A question carries the id its answer names (`POST /v1/runs/{id}/answers`).
        const event =
          mapped.type === 'input-request' ? { ...mapped, questionId: questions.idOf(mapped.callId) } : mapped;
        // `finish` waits for the save below: it is the run's last event.
        if (event.type === 'finish') finish = event;
        else writer.push(event);
      }
    } catch (error) {
      failed = true;
      writer.push({
        type: 'error',
        code: RafError.isInstance(error) ? error.code : 'RAF_SERVE',
        message: getErrorMessage(error),
      });
    }
    try {
      // Fenced by the lease too: a run whose lease was lost (this replica stalled past its expiry
      // and another took the session) leaves the session to the new holder.
      await options.store.sessions.save(session.toJSON(), {
        expectedRevision: options.revision,
        lease: options.lease,
      });
    } catch (error) {
      failed = true;
      writer.push({
        type: 'error',
        code: RafError.isInstance(error) ? error.code : 'RAF_SESSION',
        message: getErrorMessage(error),
      });
    }
    const end =
      finish?.type === 'finish'
        ? finish
        : ({
            type: 'finish',
            reason: controller.signal.aborted ? 'cancelled' : 'other',
            sessionId: clientSessionId,
          } as const);
    finishReason = end.reason;
    writer.push(end);
    reason =
      end.reason === 'awaitingApproval'
        ? 'paused'
        : end.reason === 'cancelled' || controller.signal.aborted
          ? 'cancelled'
          : failed
            ? 'failed'
            : 'finished';
    await writer.flushed();
  } finally {
    unwatch();
    await runs
      .update(record.runId, { status: reason, finishReason, cancelRequested: false })
      .catch(() => undefined);
    await options.lease.release().catch(() => undefined);
  }
}

/** Numbers events and writes them to the store in order, batching while a write is in flight. */
class EventWriter {
  private queue: SequencedEvent[] = [];
  private writing: Promise<void> | undefined;
  private failure: unknown;

  constructor(
    private readonly runs: RunStore,
    private readonly runId: string,
    private seq: number,
  ) {}

  push(event: RunEvent): void {
    this.seq += 1;
    this.queue.push({ seq: this.seq, event });
    this.writing ??= this.drain();
  }

  /** Every pushed event is stored (or the write failed: thrown here). */
  async flushed(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.failure !== undefined) throw this.failure;
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0 && this.failure === undefined) {
        const batch = this.queue;
        this.queue = [];
        await this.runs.append(this.runId, batch);
      }
    } catch (error) {
      this.failure = error;
    } finally {
      this.writing = undefined;
    }
  }
}
