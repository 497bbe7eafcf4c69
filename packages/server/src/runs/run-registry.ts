import { randomUUID } from 'node:crypto';
import {
  type ApprovalResponse,
  approvalBatchKey,
  type ChatMessage,
  SessionConflictError,
  type SessionSnapshot,
  type ToolApprovalRequestUpdate,
} from '@raf/core';
import { AgentSession, pendingApprovalRequests, type RafStore } from '@raf/framework';
import type { RunRecord, RunStore } from '../events/run-store.js';
import { HttpError, notFound } from '../http/http-error.js';
import { checkApprovalReasons } from './approval-reason.js';
import { checkAnswers } from './check-answers.js';
import { cancelDurable, type DurableRunHost, resumeDurable } from './durable-runs.js';
import { OrphanRuns } from './orphan-runs.js';
import { executeRun } from './run-executor.js';
import { type AnswerInput, answerQuestions } from './run-questions.js';
import { endOrphanedRun, newRunRecord } from './run-records.js';
import type { ServedAgents } from './served-agents.js';
import { ServedRun } from './served-run.js';
import { type RunLimits, TenantQuotas } from './tenant-quotas.js';
import { storeSessionId } from './tenant-sessions.js';

export type { RunLimits } from './tenant-quotas.js';

export interface StartRunOptions {
  /** The turn's text, or a user message with content parts (images, files) from `/v1`. */
  input: string | ChatMessage;
  /** Continue this conversation (the tenant's own namespace); absent: a new one. */
  sessionId?: string;
  tenant: string;
  /** Aborting it cancels the run (a protocol whose run lives as long as its request). */
  signal?: AbortSignal;
}

export interface RunRegistryOptions {
  agents: ServedAgents;
  /** Sessions, leases, journals and approval claims (`createStore(url)`). */
  store: RafStore;
  /** Run records and events (`openRunStore(url)`). */
  runs: RunStore;
  limits?: RunLimits;
  /**
   * Durable runs (`raf serve --durable`): the agents it handles run as DBOS workflows, finished
   * by another replica when theirs dies; their events are written by `DurableEvents`.
   */
  durable?: DurableRunHost;
}

/** The session metadata key naming the served agent a session belongs to. */
const AGENT_KEY = 'raf.serve.agent';

/**
 * Every run the server knows, whichever protocol started it: the `/v1` API and the protocol
 * endpoints mounted beside it start, read, approve and cancel runs here. A tenant sees only its
 * own runs and sessions: any other answers 404, exactly like one that does not exist.
 */
export class RunRegistry {
  readonly agents: ServedAgents;
  private readonly store: RafStore;
  private readonly runs: RunStore;
  private readonly durable: DurableRunHost | undefined;
  private readonly quotas: TenantQuotas;
  /** Runs executing in this replica, by run id. */
  private readonly live = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private closed = false;
  /** Ends runs a dead replica left `running` when they are looked at (`OrphanRuns`). */
  private readonly orphans: OrphanRuns;

  constructor(options: RunRegistryOptions) {
    this.agents = options.agents;
    this.store = options.store;
    this.runs = options.runs;
    this.durable = options.durable;
    this.quotas = new TenantQuotas(options.limits);
    // A durable run's owner is DBOS's to judge (another replica takes it over).
    this.orphans = new OrphanRuns(
      this.store,
      this.runs,
      (record) => this.live.has(record.runId) || this.durable?.handles(record.agent) === true,
    );
  }

  /** Counts an open event stream of the tenant (429 past its limit); call the returned function when it ends. */
  openStream(tenant: string): () => void {
    return this.quotas.openStream(tenant);
  }

  /** Starts a turn on the agent; returns once the run is recorded (its events follow). */
  async start(agentName: string, options: StartRunOptions): Promise<ServedRun> {
    const served = this.agents.get(agentName);
    const sessionId = options.sessionId ?? randomUUID();
    const storeId = storeSessionId(options.tenant, sessionId);
    const input = options.input;
    if (typeof input === 'string' ? input.trim() === '' : input.content.length === 0)
      throw new HttpError(400, 'invalid_field', 'input: expected text');
    this.reserve(options.tenant);
    let lease: Awaited<ReturnType<RafStore['sessions']['acquireLease']>> | undefined;
    try {
      lease = await this.lease(storeId, sessionId);
      const snapshot = await this.store.sessions.load(storeId);
      const session = snapshot ? AgentSession.fromJSON(snapshot) : new AgentSession(storeId);
      const owner = session.metadata[AGENT_KEY];
      if (owner !== undefined && owner !== served.name)
        throw new HttpError(409, 'wrong_agent', `session ${sessionId} belongs to agent ${String(owner)}`);
      if (session.pendingApproval)
        throw new HttpError(
          409,
          'awaiting_approval',
          `session ${sessionId} is waiting for approvals: answer them on its paused run first`,
        );
      session.metadata[AGENT_KEY] = served.name;
      const record = newRunRecord(served.name, sessionId, options.tenant);
      if (this.durable?.handles(served.name)) {
        // The workflow loads the session itself (on whichever replica runs it): saved first,
        // with the agent's name, and the lease let go, for no replica holds a durable run's.
        await this.store.sessions.save(session.toJSON(), {
          expectedRevision: snapshot?.revision ?? 0,
          lease,
        });
        await this.runs.create(record);
        await lease.release();
        lease = undefined;
        try {
          await this.durable.start({
            runId: record.runId,
            sessionId: storeId,
            agent: served.name,
            // Parts go with the run's recorded input (base64), so a replica taking it over sends them too.
            input,
          });
        } catch (error) {
          // Never started: the record says so rather than `running` for ever.
          await this.runs
            .update(record.runId, { status: 'failed', finishReason: 'other' })
            .catch(() => undefined);
          throw error;
        }
        this.release(options.tenant);
        return this.view(record);
      }
      await this.runs.create(record);
      this.launch(record, {
        served: served.name,
        session,
        revision: snapshot?.revision ?? 0,
        lease,
        input: options.input,
        signal: options.signal,
      });
      lease = undefined;
      return this.view(record);
    } catch (error) {
      this.release(options.tenant);
      await lease?.release().catch(() => undefined);
      throw error;
    }
  }

  /** The tenant's run; `undefined` for an unknown run or another tenant's. */
  async get(runId: string, tenant: string): Promise<ServedRun | undefined> {
    const record = await this.record(runId, tenant);
    return record && this.view(record);
  }

  /** The tenant's newest run on its session `sessionId`, if any. */
  async latestRun(sessionId: string, tenant: string): Promise<ServedRun | undefined> {
    const record = await this.runs.latestRun(tenant, sessionId);
    return record && this.view(await this.orphans.settle(record));
  }

  /** Like `get`, but a 404 `HttpError` when the tenant cannot see the run. */
  async require(runId: string, tenant: string): Promise<ServedRun> {
    const run = await this.get(runId, tenant);
    if (!run) throw notFound(`run ${runId}`);
    return run;
  }

  /**
   * Answers a paused run's approvals and resumes it (in this replica: any replica can, the
   * session is in the store). Exactly one answer resumes a batch; a second is 409.
   */
  async approve(runId: string, tenant: string, approvals: ApprovalResponse[]): Promise<ServedRun> {
    checkApprovalReasons(approvals);
    return this.resume(runId, tenant, () => approvals);
  }

  /**
   * Resumes a paused run with the answers `answer` gives for its pending requests; `cancel`: the
   * run stops once those answers are its calls' results (denials: no tool and no model runs).
   */
  private async resume(
    runId: string,
    tenant: string,
    answer: (pending: ToolApprovalRequestUpdate[]) => ApprovalResponse[],
    cancel = false,
  ): Promise<ServedRun> {
    const record = await this.record(runId, tenant);
    if (!record) throw notFound(`run ${runId}`);
    if (record.status !== 'paused')
      throw new HttpError(
        409,
        'not_awaiting_approval',
        `run ${runId} is ${record.status}, not waiting for approvals`,
      );
    if (this.durable?.handles(record.agent))
      return resumeDurable(this.durable, this.runs, this.view(record), record, answer);
    const storeId = storeSessionId(tenant, record.sessionId);
    this.reserve(tenant);
    let lease: Awaited<ReturnType<RafStore['sessions']['acquireLease']>> | undefined;
    try {
      lease = await this.lease(storeId, record.sessionId);
      const snapshot = await this.store.sessions.load(storeId);
      const batch = snapshot?.pendingApproval;
      const current = await this.runs.get(runId);
      if (cancel && current?.status === 'paused' && !batch) {
        // Paused with no batch (its session deleted elsewhere): nothing resumes it, a cancel ends it.
        await endOrphanedRun(this.runs, current);
        this.release(tenant);
        await lease.release().catch(() => undefined);
        lease = undefined;
        return this.view(current);
      }
      if (!snapshot || !batch || current?.status !== 'paused')
        throw new HttpError(409, 'not_awaiting_approval', `run ${runId} is not waiting for approvals`);
      const approvals = answer(pendingApprovalRequests(batch));
      checkAnswers(runId, pendingApprovalRequests(batch), approvals);
      if (!(await this.store.sessions.claimApproval(storeId, approvalBatchKey(batch))))
        throw new HttpError(409, 'already_resumed', `run ${runId}: its approvals were already answered`);
      const resumed = await this.runs.update(runId, { status: 'running' });
      this.launch(resumed ?? record, {
        served: record.agent,
        session: AgentSession.fromJSON(snapshot),
        revision: snapshot.revision ?? 0,
        lease,
        approvals,
        // The denials are recorded as the calls' results; then the run stops before the model.
        ...(cancel && {
          cancelOnceAnswered: [
            ...batch.gatedCallIds.filter((id) => batch.toolCalls.some((c) => c.id === id)),
            ...Object.keys(batch.suspended ?? {}),
          ],
        }),
      });
      lease = undefined;
      return this.view(resumed ?? record);
    } catch (error) {
      this.release(tenant);
      await lease?.release().catch(() => undefined);
      throw error;
    }
  }

  /**
   * Cancels the run: running here, it stops now; running on another replica, that replica stops
   * it when it sees the request; paused, its pending calls are answered as denied ("cancelled")
   * and it ends `cancelled` without running a tool or the model, so the session takes a new run.
   * A stopped run is left as it is.
   */
  async cancel(runId: string, tenant: string): Promise<RunRecord> {
    // A cancel of a paused run can lose the race to an approval of it (the approval claimed the
    // batch or holds the session): the run is running then, so the cancel is tried again as
    // for a running run, never refused and never reported as done while the run goes on.
    for (let attempt = 0; ; attempt++) {
      // Settled now: a run whose replica died is ended, and the cancel says how it ended.
      const record = await this.record(runId, tenant, true);
      if (!record) throw notFound(`run ${runId}`);
      if (this.durable?.handles(record.agent)) return cancelDurable(this.durable, this.runs, record);
      const here = this.live.get(runId);
      if (here) {
        here.controller.abort(new Error('cancelled through the API'));
        await here.done;
      } else if (record.status === 'running') await this.runs.update(runId, { cancelRequested: true });
      else if (record.status === 'paused') {
        const denied = (pending: ToolApprovalRequestUpdate[]) =>
          pending.map((r) => ({ callId: r.callId, approved: false, reason: 'The run was cancelled' }));
        try {
          await this.resume(runId, tenant, denied, true);
        } catch (error) {
          if (attempt < 20 && error instanceof HttpError && error.status === 409) {
            await new Promise((resolve) => setTimeout(resolve, 25));
            continue;
          }
          throw error;
        }
        await this.live.get(runId)?.done;
      }
      return (await this.runs.get(runId)) ?? record;
    }
  }

  /**
   * Answers questions the run's calls wait on (from any replica: the calls wait on the store).
   * Each answer is checked against its question's form; the first answer of a question wins, a
   * second is a 409. A question just asked may not be stored yet when its event is read: it is
   * waited for a moment.
   */
  async answer(runId: string, tenant: string, answers: AnswerInput[]): Promise<void> {
    const record = await this.record(runId, tenant);
    if (!record) throw notFound(`run ${runId}`);
    await answerQuestions(this.runs, record, answers);
  }

  /** The tenant's session as the store has it, or `undefined`. */
  async session(sessionId: string, tenant: string): Promise<SessionSnapshot | undefined> {
    const snapshot = await this.store.sessions.load(storeSessionId(tenant, sessionId));
    return snapshot && { ...snapshot, id: sessionId };
  }

  /** Deletes the tenant's session (409 while a run holds it or is paused on it); `false`: none. */
  async deleteSession(sessionId: string, tenant: string): Promise<boolean> {
    const storeId = storeSessionId(tenant, sessionId);
    const lease = await this.lease(storeId, sessionId);
    try {
      if (!(await this.store.sessions.load(storeId))) return false;
      // A paused run's batch is in the session: deleted, the run would stay `paused` for ever.
      const latest = await this.runs.latestRun(tenant, sessionId);
      if (latest?.status === 'paused')
        throw new HttpError(
          409,
          'awaiting_approval',
          `session ${sessionId} has run ${latest.runId} waiting for approvals: answer or cancel it first`,
        );
      await this.store.sessions.delete(storeId);
      return true;
    } finally {
      await lease.release().catch(() => undefined);
    }
  }

  /** The run store (protocols keep their own records beside the runs: A2A tasks). */
  get runStore(): RunStore {
    return this.runs;
  }

  /** Runs executing in this replica. */
  get running(): number {
    return this.live.size;
  }

  /** Stops accepting runs, cancels those running here and waits for them to record it. */
  async close(): Promise<void> {
    this.closed = true;
    for (const run of this.live.values()) run.controller.abort(new Error('the server is stopping'));
    await Promise.all([...this.live.values()].map((run) => run.done));
  }

  /**
   * The tenant's run record; one a dead replica left `running` is ended first (`OrphanRuns`), so
   * a read, its events, a cancel see the truth. `settleNow`: checked whatever the last check.
   */
  private async record(runId: string, tenant: string, settleNow = false): Promise<RunRecord | undefined> {
    if (!/^[A-Za-z0-9-]{1,64}$/.test(runId)) return undefined;
    const record = await this.runs.get(runId);
    return record && record.tenant === tenant ? this.orphans.settle(record, settleNow) : undefined;
  }

  private view(record: RunRecord): ServedRun {
    const storeId = storeSessionId(record.tenant, record.sessionId);
    return new ServedRun(
      this.runs,
      record.runId,
      record.agent,
      record.sessionId,
      record.tenant,
      async () => {
        const current = await this.runs.get(record.runId);
        if (current?.status !== 'paused') return [];
        const batch = (await this.store.sessions.load(storeId))?.pendingApproval;
        return batch ? pendingApprovalRequests(batch) : [];
      },
      // A stream that waits on a running run: its replica may die meanwhile.
      (current) => this.orphans.settle(current),
    );
  }

  /** The session's lease, now or never: a second run on a busy session is a 409, not a wait. */
  private async lease(storeId: string, sessionId: string) {
    try {
      return await this.store.sessions.acquireLease(storeId, { waitMs: 0 });
    } catch (error) {
      // A locked SQLite file is reported as a conflict by the store, but the store is busy,
      // not the session (a brand-new session id has no run to be busy with): a 503 to retry.
      if (storeLocked(error))
        throw new HttpError(
          503,
          'store_busy',
          'the state store is busy (locked by another writer): try again',
          {
            cause: error,
          },
        );
      if (SessionConflictError.isInstance(error))
        throw new HttpError(409, 'session_busy', `session ${sessionId} has a run in progress`, {
          cause: error,
        });
      throw error;
    }
  }

  private reserve(tenant: string): void {
    if (this.closed) throw new HttpError(503, 'stopping', 'the server is stopping');
    this.quotas.reserveRun(tenant);
  }

  private release(tenant: string): void {
    this.quotas.releaseRun(tenant);
  }

  private launch(
    record: RunRecord,
    turn: Omit<Parameters<typeof executeRun>[0], 'record' | 'agents' | 'store' | 'runs' | 'controller'>,
  ): void {
    const controller = new AbortController();
    const signal = turn.signal;
    const onAbort = () => controller.abort(signal?.reason);
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = executeRun({
      ...turn,
      record,
      agents: this.agents,
      store: this.store,
      runs: this.runs,
      controller,
    })
      .catch(() => undefined)
      .finally(() => {
        signal?.removeEventListener('abort', onAbort);
        this.live.delete(record.runId);
        this.release(record.tenant);
      });
    this.live.set(record.runId, { controller, done });
  }
}

/** SQLite's "database is locked" (`SQLITE_BUSY`/`SQLITE_LOCKED`), however the store wrapped it. */
function storeLocked(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return true;
  }
  return false;
}
