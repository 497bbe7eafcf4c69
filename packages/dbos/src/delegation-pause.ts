import type { ApprovalResponse, JSONValue, ToolApprovalRequestUpdate } from '@raf/core';
import { answersFor, raisedRequests, type SubAgentOutcome } from '@raf/framework';
import * as z from 'zod';
import { type DelegationOutcome, delegationOutcomeSchema } from './delegation-spec.js';

const json: z.ZodType<JSONValue> = z.json() as z.ZodType<JSONValue>;

/** A sub-agent's approval request, with its own call id (as the sub-agent's loop raised it). */
const askedSchema = z.object({
  type: z.literal('tool-approval-request'),
  callId: z.string(),
  name: z.string(),
  arguments: json,
  description: z.string(),
  resolvedTarget: z.string().optional(),
  agentPath: z.array(z.string()).optional(),
});

/**
 * Where a durable delegation stopped for approval (SPEC §14.2), kept by the coordinator's
 * delegation tool while the run is parked (`ToolSuspension` state) and read back on resume:
 * `n` is the child's proxied call waiting for the answer (the next one its line serves).
 */
export const delegationPauseSchema = z.object({
  n: z.number().int().nonnegative(),
  request: askedSchema,
});
export type DelegationPause = z.infer<typeof delegationPauseSchema>;

/** What the coordinator's step `delegate:<call id>[:<n>]` returns: the child's outcome, or a pause. */
export const delegationStepSchema = z.union([
  delegationOutcomeSchema,
  z.object({ status: z.literal('paused'), agent: z.string(), pause: delegationPauseSchema }),
]);
export type DelegationStep = DelegationOutcome | { status: 'paused'; agent: string; pause: DelegationPause };

/**
 * The step's result as the delegation tool reads it: a pause becomes a paused sub-agent outcome
 * whose requests are named as a plain run names them (ids `<call id>/<sub-agent's id>`, `agentPath`
 * the sub-agent), so the coordinator's run parks with them and `raf approve` answers them.
 */
export function stepOutcome(step: DelegationStep, callId: string): SubAgentOutcome {
  if (step.status !== 'paused') return step;
  const { resolvedTarget, agentPath, ...rest } = step.pause.request;
  const asked: ToolApprovalRequestUpdate = {
    ...rest,
    ...(resolvedTarget !== undefined && { resolvedTarget }),
    ...(agentPath !== undefined && { agentPath }),
  };
  return {
    status: 'paused',
    agent: step.agent,
    requests: raisedRequests(step.agent, callId, [asked]),
    state: json.parse(step.pause),
  };
}

/** The human's answer to a paused delegation's request: approved with the target shown, or denied. */
export interface ProxyDecision {
  approved: boolean;
  reason?: string;
  /** The target the human was shown (`null`: none), believed by the coordinator's gate. */
  target: string | null;
}

/** Reads a resumed delegation's saved state and the answer meant for its request. */
export function resumedPause(
  state: JSONValue,
  callId: string,
  approvals: readonly ApprovalResponse[],
): { pause: DelegationPause; decision: ProxyDecision } {
  const parsed = delegationPauseSchema.safeParse(state);
  if (!parsed.success)
    throw new Error(
      `the saved state of durable delegation ${callId} is not one its pause left (${parsed.error.issues[0]?.message ?? 'invalid'})`,
    );
  const pause = parsed.data;
  const answer = answersFor(callId, approvals).find((a) => a.callId === pause.request.callId);
  const decision: ProxyDecision = {
    approved: answer?.approved === true,
    target: pause.request.resolvedTarget ?? null,
  };
  if (answer?.reason) decision.reason = answer.reason;
  return { pause, decision };
}
