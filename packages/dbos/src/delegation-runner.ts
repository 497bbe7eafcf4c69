import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import { type AgentResponseUpdate, type ApprovalResponse, getErrorMessage, type ITool } from '@raf/core';
import {
  type ChatClientAgent,
  type DelegationRunner,
  delegationTimedOut,
  delegationTimeoutMs,
  type SubAgentOutcome,
  type SubAgentRunRequest,
  type SubAgentSpec,
  SubAgentsProvider,
  subAgentRoutes,
} from '@raf/framework';
import {
  type ChildAnswer,
  childAnswerTopic,
  childPauseKey,
  childPauseSchema,
  type DelegationStep,
  delegationStepSchema,
  proxyDecision,
  type ResumedDelegation,
  resumedPause,
  stepOutcome,
} from './delegation-pause.js';
import {
  DELEGATION_WORKFLOW,
  type DelegationOutcome,
  type DelegationSpec,
  deadlineSignal,
  delegationOutcomeSchema,
  delegationSpecSchema,
  PROGRESS_EVENT,
  progressSchema,
  proxyAnswerTopic,
  proxyCallKey,
} from './delegation-spec.js';
import type { DurableTables } from './durable-tables.js';
import type { Dbos } from './load-sdk.js';
import { serveProxiedCall } from './proxied-serve.js';
import type { DurableAgentRef } from './run-spec.js';

/** What a coordinator's delegations need of the process's runtime. */
export interface DelegationHost {
  dbos: Dbos;
  tables: DurableTables;
  /** A DBOS client on the store (outside any workflow: a step may use it). */
  client(): Promise<DBOSClient>;
  queue: string;
  appVersion: string;
}

const ENDED = new Set(['SUCCESS', 'ERROR', 'CANCELLED', 'MAX_RECOVERY_ATTEMPTS_EXCEEDED']);
// How long one wait for the next proxied call lasts before the child's status is looked at.
const POLL_SECONDS = 0.2;

/** The delegating provider of an agent, if it has sub-agents. */
export function subAgentsOf(agent: ChatClientAgent): SubAgentsProvider | undefined {
  return agent.contextProviders.find((p): p is SubAgentsProvider => p instanceof SubAgentsProvider);
}

/**
 * The delegations of one durable run (SPEC §14.2): each is the step `delegate:<call id>` of the
 * coordinator's workflow, whose result is the sub-agent's. The step enqueues the sub-agent as the
 * child workflow `<run>/<call id>` on the delegation queue (any worker runs it; enqueueing the
 * same id again is a no-op, so a recovered coordinator finds the same child) and, while it runs,
 * answers its proxied calls here, with the coordinator's own instances of the tools: its
 * argument checks, path guard and approval gate. A recovered coordinator whose step had finished
 * gets the recorded result: a finished child is not run again.
 */
export class DurableDelegationRunner implements DelegationRunner {
  private readonly routes = new Map<string, Promise<Map<string, ITool>>>();

  constructor(
    private readonly host: DelegationHost,
    private readonly coordinator: ChatClientAgent,
    private readonly provider: SubAgentsProvider,
    private readonly parent: { runId: string; agent: DurableAgentRef },
  ) {}

  get subAgents() {
    return this.provider.subAgents;
  }

  async run(request: SubAgentRunRequest): Promise<SubAgentOutcome> {
    const spec = this.provider.subAgents.find((s) => s.name === request.agent);
    if (!spec) {
      const names = this.provider.subAgents.map((s) => s.name).join(', ');
      return {
        status: 'failed',
        agent: request.agent,
        error: `there is no sub-agent named '${request.agent}'; there are ${names}`,
      };
    }
    // Resumed after its pause for approval: the step goes on from the call that waited.
    let resumed: ResumedDelegation | undefined;
    try {
      if (request.resume)
        resumed = resumedPause(request.resume.state, request.callId, request.resume.approvals);
    } catch (error) {
      return { status: 'failed', agent: spec.name, error: getErrorMessage(error) };
    }
    const input: DelegationSpec = {
      runId: `${this.parent.runId}/${request.callId}`,
      parentRunId: this.parent.runId,
      callId: request.callId,
      subAgent: spec.name,
      task: request.task,
      agent: this.parent.agent,
    };
    try {
      // Called before any await: the steps of a `delegate_parallel` are numbered in task order.
      const recorded = await this.host.dbos.runStep(
        () => this.delegate(spec, input, request.signal, resumed, request.onUpdate),
        {
          name: resumed
            ? `delegate:${request.callId}:${resumed.pause.n}.${resumed.pause.k}`
            : `delegate:${request.callId}`,
        },
      );
      return stepOutcome(delegationStepSchema.parse(recorded), request.callId);
    } catch (error) {
      return { status: 'failed', agent: spec.name, error: getErrorMessage(error) };
    }
  }

  private async delegate(
    spec: SubAgentSpec,
    input: DelegationSpec,
    signal: AbortSignal | undefined,
    resumed?: ResumedDelegation,
    onUpdate?: (update: AgentResponseUpdate) => void,
  ): Promise<DelegationStep> {
    const client = await this.host.client();
    const childId = input.runId;
    // The child's finished calls, passed on as they come (a resumed step has shown those before).
    const progress = async () => {
      const seen = progressSchema.safeParse(await client.getEvent<unknown>(childId, PROGRESS_EVENT, 0));
      return seen.success ? seen.data : [];
    };
    let reported = onUpdate && resumed ? (await progress()).length : 0;
    const report = async () => {
      if (!onUpdate) return;
      const seen = await progress();
      for (const call of seen.slice(reported))
        onUpdate({ type: 'tool-called', callId: call.callId, name: call.name, result: { ok: call.ok } });
      reported = Math.max(reported, seen.length);
    };
    const timeoutMs = delegationTimeoutMs(spec);
    // Enqueued once, with its deadline; a resumed delegation's child is parked at its proxied call
    // `pause.n` or at its own pause `pause.k`.
    if (!resumed)
      await client.enqueue(
        {
          workflowName: DELEGATION_WORKFLOW,
          queueName: this.host.queue,
          workflowID: childId,
          appVersion: this.host.appVersion,
        },
        { ...input, deadline: Date.now() + timeoutMs } satisfies DelegationSpec,
      );
    let k = resumed?.pause.k ?? 0;
    let answerOwn: ApprovalResponse[] | undefined;
    if (resumed?.pause.ask.kind === 'local') {
      answerOwn = resumed.answers;
      k++;
    }
    // The child's clock as recorded: this step run again after a crash, and the child replayed
    // on another worker, read the same deadline.
    const deadline = await this.clockOf(client, childId, k, timeoutMs);
    const proxied = await this.proxiedOf(spec);
    const calls = new AbortController();
    const stop = () => {
      calls.abort();
      void client.cancelWorkflow(childId).catch(() => undefined);
    };
    signal?.addEventListener('abort', stop, { once: true });
    // A proxied call still running at the deadline stops with the delegation.
    const callSignal = AbortSignal.any([calls.signal, deadlineSignal(deadline)]);
    try {
      if (answerOwn)
        // Keyed by the pause: a recovered coordinator answering again does not send twice. The
        // deadline goes with the answer: the child's recorded message is its clock from there.
        await client.send(
          childId,
          { approvals: answerOwn, deadline } satisfies ChildAnswer,
          childAnswerTopic(k - 1),
          `${childId}/approval/${k - 1}`,
        );
      const decision = resumed && proxyDecision(resumed);
      for (let n = resumed?.pause.n ?? 0; ; ) {
        if (signal?.aborted) return { status: 'failed', agent: spec.name, error: 'cancelled' };
        const left = deadline - Date.now();
        if (left <= 0) return await this.timedOut(client, childId, spec.name, timeoutMs);
        const wait = Math.min(POLL_SECONDS, left / 1000);
        const call = await client.getEvent<unknown>(childId, proxyCallKey(n), wait);
        if (call !== null) {
          const answer = resumed?.pause.n === n ? decision : undefined;
          // A child that gave up while the human decided (its own timeout): the approved call does
          // not run for nobody; the child's outcome is the delegation's.
          if (answer !== undefined && ENDED.has((await client.getWorkflow(childId))?.status ?? '')) break;
          // Its clock ran out while the human decided: the child is cancelled and the delegation
          // timed out, so the approved call does not run behind its back.
          if (answer !== undefined && Date.now() >= deadline)
            return await this.timedOut(client, childId, spec.name, timeoutMs);
          const result = await serveProxiedCall(this.host.tables, {
            childId,
            n,
            raw: call,
            proxied,
            agent: spec.name,
            signal: callSignal,
            decision: answer,
          });
          // Needs approval: this step ends with the pause; the coordinator's run parks with it
          // (waits are not allowed inside a step) and a later step answers this very call.
          if ('approval' in result) {
            await report();
            return {
              status: 'paused',
              agent: spec.name,
              pause: { n, k, ask: { kind: 'proxy', request: result.approval } },
            };
          }
          // Keyed by the call: a recovered coordinator answering again does not send twice.
          await client.send(childId, { result }, proxyAnswerTopic(n), `${childId}/proxy/${n}`);
          n++;
          continue;
        }
        // The child parked itself (a worker-local call asked): so does the coordinator's run.
        const own = await client.getEvent<unknown>(childId, childPauseKey(k), 0);
        if (own !== null) {
          const { requests } = childPauseSchema.parse(own);
          await report();
          return { status: 'paused', agent: spec.name, pause: { n, k, ask: { kind: 'local', requests } } };
        }
        await report();
        const status = await client.getWorkflow(childId);
        if (status && ENDED.has(status.status)) break;
      }
      await report();
      const outcome = await client.retrieveWorkflow(childId).getResult();
      return delegationOutcomeSchema.parse(outcome);
    } catch (error) {
      return { status: 'failed', agent: spec.name, error: getErrorMessage(error) };
    } finally {
      signal?.removeEventListener('abort', stop);
      calls.abort();
    }
  }

  /**
   * The child's deadline after its `k`-th own pause was answered. Before any (`k` 0): the one its
   * enqueue recorded. After one, its time starts again (a plain run's resumed delegation gets
   * its full time too) from the first run of the step that answered it, recorded once in
   * `raf_durable_calls` as `(<child>, resumed:<k-1>)`: a crash and a rerun of that step, or of a
   * later one (a proxied call's pause), never moves it. A proxied call's pause does not restart it.
   */
  private async clockOf(client: DBOSClient, childId: string, k: number, timeoutMs: number): Promise<number> {
    if (k === 0) return this.deadlineOf(client, childId, timeoutMs);
    return (await this.host.tables.firstMarkedAt(childId, `resumed:${k - 1}`)) + timeoutMs;
  }

  /**
   * The child's deadline as its first enqueue recorded it: a recovered coordinator's enqueue of
   * the same id was a no-op, and its time counts from the first. A child enqueued before
   * deadlines were recorded gets its full time from now.
   */
  private async deadlineOf(client: DBOSClient, childId: string, timeoutMs: number): Promise<number> {
    const status = await client.getWorkflow(childId);
    const recorded = delegationSpecSchema.safeParse(status?.input?.[0]);
    return recorded.success && recorded.data.deadline !== undefined
      ? recorded.data.deadline
      : Date.now() + timeoutMs;
  }

  /**
   * The delegation ran out of its time: the child workflow is cancelled (its worker stops it at
   * its next step, and its own timeout signal has stopped its model call) and the model reads
   * the same error as after a plain run's timeout. A child that ended just in time keeps its
   * outcome.
   */
  private async timedOut(
    client: DBOSClient,
    childId: string,
    agent: string,
    timeoutMs: number,
  ): Promise<DelegationOutcome> {
    await client.cancelWorkflow(childId);
    const status = await client.getWorkflow(childId);
    if (status?.status === 'SUCCESS') {
      const outcome = delegationOutcomeSchema.safeParse(status.output);
      if (outcome.success) return outcome.data;
    }
    return { status: 'failed', agent, error: delegationTimedOut(timeoutMs) };
  }

  private proxiedOf(spec: SubAgentSpec): Promise<Map<string, ITool>> {
    let known = this.routes.get(spec.name);
    if (!known) {
      const governance = this.coordinator.governance;
      known = subAgentRoutes(spec, governance ? { governance } : {}).then((r) => r.proxied);
      this.routes.set(spec.name, known);
    }
    return known;
  }
}
