import type {
  AgentResponseUpdate,
  ApprovalResponse,
  ChatMessage,
  FinishReason,
  ToolApprovalRequestUpdate,
} from '@raf/core';
import { getErrorMessage, SessionConflictError } from '@raf/core';
import { type RunEvent, RunEventMapper } from '@raf/framework';
import type { RunRecord, RunStatus, RunStore, SequencedEvent } from '../events/run-store.js';
import { HttpError } from '../http/http-error.js';
import { checkAnswers } from './check-answers.js';
import type { ServedRun } from './served-run.js';

/** What the server asks of a durable runtime (`@raf/dbos` in `raf serve --durable`). */
export interface DurableRunHost {
  /** Whether the served agent's runs are durable (a workflow agent is served plainly). */
  handles(agent: string): boolean;
  /** Starts the run as a durable workflow in this replica; its updates come to `DurableEvents.observe`. */
  start(spec: {
    runId: string;
    sessionId: string;
    agent: string;
    input: string | ChatMessage;
  }): Promise<void>;
  /** Answers the parked run (from any replica); a `SessionConflictError` when it was already answered. */
  approve(runId: string, approvals: ApprovalResponse[]): Promise<void>;
  /** Cancels the workflow wherever it runs. */
  cancel(runId: string): Promise<void>;
  /** Whether the workflow was cancelled (its body stopped with an error for that reason). */
  cancelled(runId: string): Promise<boolean>;
}

/** What a durable runtime tells about one run it executes (the shape of `@raf/dbos`'s `RunListener`). */
export interface DurableRunObserver {
  update(update: AgentResponseUpdate): void;
  paused?(state: { pause: number }): void;
  stopped?(end: { outcome?: { reason: FinishReason }; error?: unknown }): void;
}

type Step =
  | { kind: 'update'; update: AgentResponseUpdate }
  | { kind: 'paused' }
  | { kind: 'stopped'; outcome?: { reason: FinishReason }; error?: unknown };

/**
 * Writes the events of the durable runs this replica executes, whether it started them or took
 * them over from a dead replica. A workflow that is taken over runs again from its start,
 * its finished steps answered from their records, so its updates come again in the same order:
 * the n-th event of an execution is event n of the run, and the events the dead replica already
 * stored (up to the record's `lastSeq`) are passed over. The client that reconnects with
 * `Last-Event-ID` reads exactly the rest. (A model call that was streaming when the replica died
 * is made again: the same events for a deterministic model; another model may answer otherwise
 * after the events already stored.) The store's append is a compare-and-set on `lastSeq`, so a
 * replica thought dead that still writes cannot interleave its events with the new writer's.
 */
export class DurableEvents {
  constructor(
    private readonly runs: RunStore,
    private readonly host: () => DurableRunHost | undefined,
    private readonly log: (line: string) => void = () => {},
  ) {}

  /** The observer of run `runId` (`DurableRuntimeOptions.observe`). */
  observe(runId: string): DurableRunObserver {
    const writer = new DurableRunWriter(this.runs, runId, this.host, this.log);
    return {
      update: (update) => writer.push({ kind: 'update', update }),
      paused: () => writer.push({ kind: 'paused' }),
      stopped: (end) => writer.push({ kind: 'stopped', ...end }),
    };
  }
}

class DurableRunWriter {
  private readonly steps: Step[] = [];
  private running = false;
  private record: RunRecord | undefined | null = null;
  /** Events of this execution so far (replayed ones included). */
  private count = 0;
  /** Events the store had when this execution began: replayed, not written again. */
  private stored = 0;
  private mapper = new RunEventMapper();
  private pending: SequencedEvent[] = [];
  private dead = false;

  constructor(
    private readonly runs: RunStore,
    private readonly runId: string,
    private readonly host: () => DurableRunHost | undefined,
    private readonly log: (line: string) => void,
  ) {}

  push(step: Step): void {
    if (this.dead) return;
    this.steps.push(step);
    if (this.running) return;
    this.running = true;
    void this.drain();
  }

  private async drain(): Promise<void> {
    try {
      if (this.record === null) {
        this.record = await this.runs.get(this.runId);
        this.stored = this.record?.lastSeq ?? 0;
      }
      // Not a served run (a `raf run --durable` run a serve replica took over), or one already
      // stopped through the API (a paused run cancelled): nothing to write.
      if (!this.record || isStopped(this.record.status)) {
        this.dead = true;
        this.steps.length = 0;
        return;
      }
      for (;;) {
        const step = this.steps.shift();
        if (!step) {
          // Batched by the store's latency: the events gathered while a write was in flight go together.
          if (this.pending.length === 0) return;
          await this.flush();
          continue;
        }
        if (step.kind === 'update') {
          this.map(step.update);
          if (this.pending.length >= 256) await this.flush();
        } else await this.settle(step);
      }
    } catch (error) {
      // The replica that took the run over owns its events now (the append is a compare-and-set).
      this.dead = true;
      this.steps.length = 0;
      this.log(`durable run ${this.runId}: events not written (${getErrorMessage(error)})`);
    } finally {
      // Cleared in the body, not after it: a step pushed once this returns starts a new drain.
      this.running = false;
    }
  }

  private map(update: AgentResponseUpdate): void {
    const event: RunEvent | undefined = this.mapper.map(update, this.record!.sessionId);
    // Each leg (a turn up to a pause) has its own mapper, as each served turn has.
    if (update.type === 'finish') this.mapper = new RunEventMapper();
    if (!event) return;
    this.count += 1;
    if (this.count > this.stored) this.pending.push({ seq: this.count, event });
  }

  private async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    await this.runs.append(this.runId, batch);
  }

  private async settle(step: Exclude<Step, { kind: 'update' }>): Promise<void> {
    await this.flush();
    // A pause or an end replayed from the records was recorded by the execution that lived it.
    if (this.count <= this.stored && step.kind === 'paused') return;
    const now = await this.runs.get(this.runId);
    if (!now || isStopped(now.status)) return;
    if (step.kind === 'paused') {
      await this.runs.update(this.runId, { status: 'paused', finishReason: 'awaitingApproval' });
      return;
    }
    if (step.outcome) {
      const reason = step.outcome.reason;
      const status: RunStatus =
        reason === 'cancelled' ? 'cancelled' : reason === 'other' ? 'failed' : 'finished';
      await this.runs.update(this.runId, { status, finishReason: reason, cancelRequested: false });
      return;
    }
    // Stopped by an error: cancelled (the run ends here), or this process is going away (the run
    // goes on in another replica, which writes the rest).
    const host = this.host();
    if (!host || !(await host.cancelled(this.runId).catch(() => false))) return;
    await this.endCancelled(now);
  }

  private async endCancelled(now: RunRecord): Promise<void> {
    const seq = Math.max(now.lastSeq, this.count) + 1;
    this.count = seq;
    await this.runs.append(this.runId, [
      { seq, event: { type: 'finish', reason: 'cancelled', sessionId: now.sessionId } },
    ]);
    await this.runs.update(this.runId, {
      status: 'cancelled',
      finishReason: 'cancelled',
      cancelRequested: false,
    });
  }
}

function isStopped(status: RunStatus): boolean {
  return status === 'finished' || status === 'failed' || status === 'cancelled';
}

/**
 * Ends a durable run that is not executing (parked for approval) as cancelled: its `finish` event
 * and its record, written by the replica that was asked (nobody else writes a parked run's events).
 */
async function endParkedRun(runs: RunStore, record: RunRecord): Promise<void> {
  await runs.append(record.runId, [
    {
      seq: record.lastSeq + 1,
      event: { type: 'finish', reason: 'cancelled', sessionId: record.sessionId },
    },
  ]);
  await runs.update(record.runId, { status: 'cancelled', finishReason: 'cancelled', cancelRequested: false });
}

/**
 * Answers a parked durable run: its record says `running` before the answer goes (the replica
 * executing it may pause it again at once), and says `paused` again if the answer is refused.
 */
export async function resumeDurable(
  durable: DurableRunHost,
  runs: RunStore,
  view: ServedRun,
  record: RunRecord,
  answer: (pending: ToolApprovalRequestUpdate[]) => ApprovalResponse[],
): Promise<ServedRun> {
  const pending = await view.pendingApprovals();
  const approvals = answer(pending);
  checkAnswers(record.runId, pending, approvals);
  await runs.update(record.runId, { status: 'running' });
  try {
    await durable.approve(record.runId, approvals);
  } catch (error) {
    await runs.update(record.runId, { status: 'paused' }).catch(() => undefined);
    if (SessionConflictError.isInstance(error))
      throw new HttpError(
        409,
        'already_resumed',
        `run ${record.runId}: its approvals were already answered`,
        {
          cause: error,
        },
      );
    throw error;
  }
  return view;
}

/**
 * Cancels a durable run wherever it runs: a parked one ends here (nobody else writes its
 * events), a running one ends when the replica executing it sees the cancel.
 */
export async function cancelDurable(
  durable: DurableRunHost,
  runs: RunStore,
  record: RunRecord,
): Promise<RunRecord> {
  if (record.status !== 'running' && record.status !== 'paused') return record;
  await durable.cancel(record.runId);
  if (record.status === 'paused') await endParkedRun(runs, record).catch(() => undefined);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const now = (await runs.get(record.runId)) ?? record;
    if (now.status !== 'running' || Date.now() > deadline) return now;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
