import type { ApprovalResponse, JSONValue, ToolApprovalRequestUpdate } from '@raf/core';
import { sessionSchemaParts } from '@raf/core/internal';
import { answersFor, raisedRequests, type SubAgentOutcome } from '@raf/framework';
import * as z from 'zod';
import { type DelegationOutcome, delegationOutcomeSchema } from './delegation-spec.js';
import { approvalsSchema } from './run-spec.js';

const json: z.ZodType<JSONValue> = z.json() as z.ZodType<JSONValue>;

/** A sub-agent's approval request, with its own call id: the sessions' own schema of one. */
const askedSchema = sessionSchemaParts().approvalRequest;

/** The event a delegation publishes its `k`-th own pause in (a worker-local call asked), and the answer's topic. */
export const childPauseKey = (k: number) => `raf.delegation.pause.${k}`;
export const childAnswerTopic = (k: number) => `raf.delegation.answer.${k}`;

/** A child's own pause: its sub-agent's loop ended its turn waiting for these (its own call ids). */
export const childPauseSchema = z.object({ requests: z.array(askedSchema).min(1) });

/**
 * The answer to a child's own pause (message `raf.delegation.answer.<k>`): the decisions, and the
 * deadline its time runs to from there, decided once by the coordinator. The message is recorded
 * by DBOS, so a replay of the child on another worker reads the same deadline. A bare list of
 * decisions is what an older coordinator sent: the child then counts its time from the answer.
 */
export const childAnswerSchema = z.union([
  z.object({ approvals: approvalsSchema, deadline: z.number().int().positive() }),
  approvalsSchema.transform((approvals) => ({ approvals, deadline: undefined })),
]);
export interface ChildAnswer {
  approvals: ApprovalResponse[];
  deadline: number;
}

/**
 * Where a durable delegation stopped for approval (SPEC §14.2), kept by the coordinator's
 * delegation tool while the run is parked (`ToolSuspension` state) and read back on resume: `n`
 * is the child's next proxied call, `k` its own pauses answered so far; `ask` is what waits — the
 * proxied call `n` (run here once approved), or the child's own pause `k` (answered by message).
 */
export const delegationPauseSchema = z.object({
  n: z.number().int().nonnegative(),
  k: z.number().int().nonnegative(),
  ask: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('proxy'), request: askedSchema }),
    z.object({ kind: z.literal('local'), requests: z.array(askedSchema).min(1) }),
  ]),
});
export type DelegationPause = z.infer<typeof delegationPauseSchema>;
type Asked = z.infer<typeof askedSchema>;

/** What the coordinator's step `delegate:<call id>[:<n>.<k>]` returns: the child's outcome, or a pause. */
export const delegationStepSchema = z.union([
  delegationOutcomeSchema,
  z.object({ status: z.literal('paused'), agent: z.string(), pause: delegationPauseSchema }),
]);
export type DelegationStep = DelegationOutcome | { status: 'paused'; agent: string; pause: DelegationPause };

function requestOf(asked: Asked): ToolApprovalRequestUpdate {
  const { resolvedTarget, agentPath, ...rest } = asked;
  return {
    ...rest,
    ...(resolvedTarget !== undefined && { resolvedTarget }),
    ...(agentPath !== undefined && { agentPath }),
  };
}

/**
 * The step's result as the delegation tool reads it: a pause becomes a paused sub-agent outcome
 * whose requests are named as a plain run names them (ids `<call id>/<sub-agent's id>`, `agentPath`
 * the sub-agent), so the coordinator's run parks with them and `raf approve` answers them.
 */
export function stepOutcome(step: DelegationStep, callId: string): SubAgentOutcome {
  if (step.status !== 'paused') return step;
  const { ask } = step.pause;
  const asked = ask.kind === 'proxy' ? [ask.request] : ask.requests;
  return {
    status: 'paused',
    agent: step.agent,
    requests: raisedRequests(step.agent, callId, asked.map(requestOf)),
    state: json.parse(step.pause),
  };
}

/** The human's answer to a paused delegation's proxied call: approved with the target shown, or denied. */
export interface ProxyDecision {
  /** The sub-agent's id of the call that was shown. */
  callId: string;
  approved: boolean;
  reason?: string;
  /** The target the human was shown (`null`: none), believed by the coordinator's gate. */
  target: string | null;
}

/** A resumed delegation: where it goes on, and the answers to what waited (the sub-agent's own ids). */
export interface ResumedDelegation {
  pause: DelegationPause;
  /** Every request that waited, answered (one left out is denied). */
  answers: ApprovalResponse[];
}

/** Reads a resumed delegation's saved state and the answers meant for it. */
export function resumedPause(
  state: JSONValue,
  callId: string,
  approvals: readonly ApprovalResponse[],
): ResumedDelegation {
  const parsed = delegationPauseSchema.safeParse(state);
  if (!parsed.success)
    throw new Error(
      `the saved state of durable delegation ${callId} is not one its pause left (${parsed.error.issues[0]?.message ?? 'invalid'})`,
    );
  const pause = parsed.data;
  const given = answersFor(callId, approvals);
  const asked = pause.ask.kind === 'proxy' ? [pause.ask.request] : pause.ask.requests;
  const answers = asked.map(
    (request) =>
      given.find((a) => a.callId === request.callId) ?? { callId: request.callId, approved: false },
  );
  return { pause, answers };
}

/** The decision on the proxied call a resumed delegation waited at. */
export function proxyDecision(resumed: ResumedDelegation): ProxyDecision | undefined {
  const { ask } = resumed.pause;
  if (ask.kind !== 'proxy') return undefined;
  const answer = resumed.answers[0];
  const decision: ProxyDecision = {
    callId: ask.request.callId,
    approved: answer?.approved === true,
    target: ask.request.resolvedTarget ?? null,
  };
  if (answer?.reason) decision.reason = answer.reason;
  return decision;
}
