import type { DBOSClient, WorkflowStatus } from '@dbos-inc/dbos-sdk';
import {
  type ApprovalResponse,
  ConfigError,
  getErrorMessage,
  parseStoreUrl,
  SessionConflictError,
  SessionError,
  type ToolApprovalRequestUpdate,
} from '@raf/core';
import { openPostgresStore } from '@raf/postgres';
import * as z from 'zod';
import { closeCancelledBatch } from './cancelled-batch.js';
import { DELEGATION_WORKFLOW, delegationOutcomeSchema, delegationSpecSchema } from './delegation-spec.js';
import { DurableTables } from './durable-tables.js';
import { loadDbos } from './load-sdk.js';
import { type ApproveOptions, answerPause, type DurableAnswer } from './pause-answer.js';
import {
  approvalTopic,
  type DurableAgentRef,
  RUN_WORKFLOW,
  type RunState,
  runOutcomeSchema,
  runSpecSchema,
  runStateSchema,
  STATUS_EVENT,
  type WorkflowQuestion,
} from './run-spec.js';
import { dbosSystemUrl } from './system-url.js';

const unreadableStatus = (runId: string, why: string) =>
  `run ${runId}: its status event (${STATUS_EVENT}) is unreadable (${why.length > 300 ? `${why.slice(0, 300)}…` : why}): whether it waits for an answer is unknown`;

/** A database no durable run ever launched on has no DBOS schema yet: it holds no runs. */
async function noSchemaYet<T, F>(query: Promise<T>, none: F): Promise<T | F> {
  try {
    return await query;
  } catch (error) {
    if ((error as { code?: unknown }).code === '42P01' || (error as { code?: unknown }).code === '3F000')
      return none;
    throw error;
  }
}

export type DurableRunStatus = 'pending' | 'running' | 'paused' | 'finished' | 'failed' | 'cancelled';

/** One run as `raf runs list|show` prints it (`--json`). */
export interface DurableRunInfo {
  runId: string;
  status: DurableRunStatus;
  agent?: DurableAgentRef;
  sessionId?: string;
  createdAt: string;
  updatedAt?: string;
  /** The DBOS executor (process) that holds or last held it. */
  executor?: string;
  queue?: string;
  /** How it finished (SPEC §3 finish reason), its answer and its error. */
  reason?: string;
  text?: string;
  error?: string;
  /** A paused run: the calls waiting for an answer. */
  requests?: ToolApprovalRequestUpdate[];
  /** A paused workflow: the questions waiting for an answer (`raf approve ID --answer TEXT`). */
  questions?: WorkflowQuestion[];
  /**
   * Something about the run to look at: its status event is unreadable (it may be paused, for
   * what is unknown), or the parked run ignored a message that was no answer (it still waits).
   */
  warning?: string;
  /** Its sub-agents' delegations (child workflows on the delegation queue), `raf runs show` only. */
  delegations?: DurableDelegationInfo[];
}

/** One delegation of a durable run: the child workflow `<run>/<call id>` and the worker that holds it. */
export interface DurableDelegationInfo {
  runId: string;
  callId?: string;
  subAgent?: string;
  status: 'pending' | 'running' | 'finished' | 'failed' | 'cancelled';
  executor?: string;
  text?: string;
  error?: string;
}

/**
 * Reads and steers durable runs from any process without running them (a DBOS client on the
 * store's database): `raf runs list|show|cancel` and `raf approve`.
 */
export class DurableControl {
  private constructor(
    private readonly client: DBOSClient,
    private readonly tables: DurableTables,
    private readonly store: string,
  ) {}

  static async open(store: string): Promise<DurableControl> {
    if (parseStoreUrl(store).kind !== 'postgres')
      throw new ConfigError('durable runs live in a postgres://… store (--store postgres://…)');
    await loadDbos();
    const { DBOSClient } = await import('@dbos-inc/dbos-sdk');
    const tables = await DurableTables.open(store);
    try {
      const client = await DBOSClient.create({
        systemDatabaseUrl: dbosSystemUrl(store),
        applicationName: 'raf',
      });
      return new DurableControl(client, tables, store);
    } catch (error) {
      await tables.close();
      throw new ConfigError(`cannot reach the durable runs of ${tables.where}: ${getErrorMessage(error)}`, {
        cause: error,
      });
    }
  }

  async list(options: { limit?: number } = {}): Promise<DurableRunInfo[]> {
    const runs = await noSchemaYet(
      this.client.listWorkflows({
        workflowName: RUN_WORKFLOW,
        sortDesc: true,
        limit: options.limit ?? 100,
        loadInput: true,
        loadOutput: true,
      }),
      [],
    );
    return Promise.all(runs.map((run) => this.describe(run)));
  }

  async show(runId: string): Promise<DurableRunInfo | undefined> {
    const run = await noSchemaYet(this.client.getWorkflow(runId), undefined);
    if (!run || run.workflowName !== RUN_WORKFLOW) return undefined;
    const info = await this.describe(run);
    const delegations = await this.delegations(runId);
    if (delegations.length > 0) info.delegations = delegations;
    return info;
  }

  /** The delegations of run `runId`, oldest first. */
  async delegations(runId: string): Promise<DurableDelegationInfo[]> {
    const children = await noSchemaYet(
      this.client.listWorkflows({
        workflowName: DELEGATION_WORKFLOW,
        workflow_id_prefix: `${runId}/`,
        loadInput: true,
        loadOutput: true,
      }),
      [],
    );
    return children.map((child) => {
      const info: DurableDelegationInfo = { runId: child.workflowID, status: 'running' };
      const spec = delegationSpecSchema.safeParse(child.input?.[0]);
      if (spec.success) {
        info.callId = spec.data.callId;
        info.subAgent = spec.data.subAgent;
      }
      if (child.executorId) info.executor = child.executorId;
      if (child.status === 'ENQUEUED' || child.status === 'DELAYED') info.status = 'pending';
      else if (child.status === 'CANCELLED') info.status = 'cancelled';
      else if (child.status === 'SUCCESS') {
        const outcome = delegationOutcomeSchema.safeParse(child.output);
        info.status = outcome.success && outcome.data.status === 'done' ? 'finished' : 'failed';
        if (outcome.success && outcome.data.status === 'done') info.text = outcome.data.text;
        if (outcome.success && outcome.data.status === 'failed') info.error = outcome.data.error;
      } else if (child.status !== 'PENDING') {
        info.status = 'failed';
        if (child.error) info.error = getErrorMessage(child.error);
      }
      return info;
    });
  }

  async cancel(runId: string): Promise<DurableRunInfo> {
    const run = await this.require(runId);
    if (run.status === 'pending' || run.status === 'running' || run.status === 'paused') {
      await this.client.cancelWorkflow(runId);
      // Its delegations stop with it (they are children by id, not by DBOS's parent link).
      for (const child of run.delegations ?? [])
        if (child.status === 'pending' || child.status === 'running')
          await this.client.cancelWorkflow(child.runId).catch(() => undefined);
      // A parked run's session still holds its approval batch: nobody runs the run to close it.
      if (run.status === 'paused' && run.sessionId) {
        const sessions = await openPostgresStore(this.store);
        try {
          await closeCancelledBatch(sessions, run.sessionId);
        } finally {
          await sessions.close().catch(() => undefined);
        }
      }
    }
    return (await this.show(runId)) ?? run;
  }

  /**
   * Answers a paused run. A claim: of two processes answering the same pause exactly one sends
   * its answer; the other gets a `SessionConflictError` (exit 5). The claim and the message commit
   * together: an answer that fails (or a process killed) before the commit claimed nothing, and a
   * `SessionError` says so (the same answer again then goes through). The run goes on wherever a
   * worker holds it. An answer of the wrong kind (`answers` for an approval, a decision for a
   * workflow's question) is a `ConfigError`, and nothing is claimed.
   */
  async answer(runId: string, options: ApproveOptions): Promise<DurableAnswer> {
    const run = await this.require(runId);
    const { state, unreadable } = await this.state(runId);
    if (unreadable && (run.status === 'pending' || run.status === 'running'))
      throw new SessionError(
        `${unreadable}; nothing was answered (raf runs show ${runId}; raf runs cancel ${runId} ends the run)`,
      );
    if (run.status !== 'paused' || state?.state !== 'paused')
      throw new SessionConflictError(
        runId,
        'claimed',
        `run ${runId} is not waiting for an answer (${run.status})`,
      );
    const { message, given } = answerPause(runId, state, options);
    const topic = approvalTopic(state.pause);
    let claimed: boolean;
    try {
      // The message is written in the claim's transaction: claimed means sent (DBOS's system
      // tables are in the store's database), so no failure in between can strand the run.
      claimed = await this.tables.claimApproval(runId, state.pause, (db) =>
        this.client.sendInTransaction(db, runId, message, topic, `raf-approve-${runId}-${state.pause}`),
      );
    } catch (error) {
      throw new SessionError(
        `run ${runId}: the answer could not be sent (${getErrorMessage(error)}); nothing was claimed, the run still waits: answer again`,
        { cause: error },
      );
    }
    if (!claimed)
      throw new SessionConflictError(runId, 'claimed', `run ${runId}: this pause was already answered`);
    return given;
  }

  /** `answer`, for the approvals of a pause: the decisions sent. */
  async approve(runId: string, options: ApproveOptions): Promise<ApprovalResponse[]> {
    return (await this.answer(runId, options)).approvals;
  }

  /** The run's recorded steps in order (`model:<n>`, `tool:<callId>`, `session:…`), with their outputs. */
  async steps(runId: string): Promise<{ steps: { name: string; output: unknown; error?: string }[] }> {
    const steps = (await this.client.listWorkflowSteps(runId)) ?? [];
    return {
      steps: steps.map((step) => ({
        name: step.name,
        output: step.output,
        ...(step.error && { error: getErrorMessage(step.error) }),
      })),
    };
  }

  async close(): Promise<void> {
    await this.client.destroy().catch(() => undefined);
    await this.tables.close().catch(() => undefined);
  }

  private async require(runId: string): Promise<DurableRunInfo> {
    const run = await this.show(runId);
    if (!run) throw new ConfigError(`no durable run ${runId} in ${this.tables.where}`);
    return run;
  }

  /**
   * The run's `raf.status` event: no `state` before it set one; `unreadable` (why, naming the run)
   * when it does not parse. Never mistaken for "not paused": a caller says the event is unreadable.
   */
  private async state(runId: string): Promise<{ state?: RunState; unreadable?: string }> {
    let raw: unknown;
    try {
      raw = await this.client.getEvent(runId, STATUS_EVENT, 0);
    } catch (error) {
      // A value DBOS cannot deserialize (not JSON, no serializer marker); a database error is no
      // verdict on the event and is thrown as it is.
      if (!(error instanceof SyntaxError || error instanceof TypeError)) throw error;
      return { unreadable: unreadableStatus(runId, getErrorMessage(error)) };
    }
    if (raw === null) return {};
    const parsed = runStateSchema.safeParse(raw);
    if (!parsed.success)
      return { unreadable: unreadableStatus(runId, z.prettifyError(parsed.error).replace(/\s+/g, ' ')) };
    return { state: parsed.data };
  }

  private async describe(run: WorkflowStatus): Promise<DurableRunInfo> {
    const info: DurableRunInfo = {
      runId: run.workflowID,
      status: 'running',
      createdAt: new Date(run.createdAt).toISOString(),
    };
    if (run.updatedAt) info.updatedAt = new Date(run.updatedAt).toISOString();
    if (run.executorId) info.executor = run.executorId;
    if (run.queueName) info.queue = run.queueName;
    const spec = runSpecSchema.safeParse(run.input?.[0]);
    if (spec.success) {
      info.agent = spec.data.agent;
      info.sessionId = spec.data.sessionId;
    }
    switch (run.status) {
      case 'ENQUEUED':
      case 'DELAYED':
      case 'PENDING': {
        // A parked run whose process exited is put back on the queue for a worker: still paused
        // (its answer waits in the store for whichever worker dequeues it), not merely pending.
        info.status = run.status === 'PENDING' ? 'running' : 'pending';
        // An unreadable status event keeps the workflow's status, with a warning: the run may be paused.
        const { state, unreadable } = await this.state(run.workflowID);
        if (unreadable) info.warning = unreadable;
        if (state?.state === 'paused') {
          info.status = 'paused';
          info.requests = state.requests;
          if (state.questions?.length) info.questions = state.questions;
          if (state.warning) info.warning = state.warning;
        }
        break;
      }
      case 'SUCCESS': {
        const outcome = runOutcomeSchema.safeParse(run.output);
        info.status = 'finished';
        if (outcome.success) {
          info.reason = outcome.data.reason;
          info.text = outcome.data.text;
          if (outcome.data.error) info.error = outcome.data.error.message;
          if (outcome.data.reason === 'cancelled') info.status = 'cancelled';
          else if (outcome.data.error || outcome.data.reason === 'other') info.status = 'failed';
        }
        break;
      }
      case 'CANCELLED':
        info.status = 'cancelled';
        break;
      default:
        info.status = 'failed';
        if (run.error) info.error = getErrorMessage(run.error);
    }
    return info;
  }
}
