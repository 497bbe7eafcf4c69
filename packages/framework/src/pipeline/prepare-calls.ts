import {
  getErrorMessage,
  type ITool,
  type JSONValue,
  type PendingApprovalBatch,
  type ToolApprovalRequestUpdate,
  type ToolCall,
  toolFailure,
} from '@raf/core';
import { type ApprovalDecisions, DEFAULT_DENIAL_REASON } from '../approval/approval-batch.js';
import { ApprovalRequiredTool } from '../approval/approval-required-tool.js';
import { checkArguments } from '../tools/argument-validator.js';
import { approvalContext, type PreparedCall, type ToolRun } from './tool-executor.js';

/** Finds each call's tool and checks its arguments; failures become results the model reads. */
export function prepareCalls(calls: readonly ToolCall[], tools: ReadonlyMap<string, ITool>): PreparedCall[] {
  return calls.map((call) => {
    const tool = tools.get(call.name);
    if (!tool) return { call, preset: toolFailure(`Tool '${call.name}' not found`) };
    const check = checkArguments(tool, call.arguments);
    if (!check.ok) return { call, tool, preset: toolFailure(check.error) };
    return check.validated === undefined
      ? { call, tool, args: check.args }
      : { call, tool, args: check.args, validated: check.validated };
  });
}

export interface PlannedApproval {
  update: ToolApprovalRequestUpdate;
  target?: string;
}

/** Whether any runnable call's tool has an approval gate: most batches have none and skip `planApprovals`. */
export function anyGated(prepared: readonly PreparedCall[]): boolean {
  for (const { tool, preset } of prepared) if (!preset && tool?.requiresApproval) return true;
  return false;
}

/** Asks each runnable call's tool whether it needs approval (per call, with its arguments). */
export async function planApprovals(
  prepared: readonly PreparedCall[],
  run: Pick<ToolRun, 'sessionId' | 'context'>,
): Promise<PlannedApproval[]> {
  const planned: PlannedApproval[] = [];
  for (const { call, tool, args, preset } of prepared) {
    if (preset || !tool) continue;
    let gated: boolean;
    let description =
      tool instanceof ApprovalRequiredTool ? (tool.approvalReason ?? tool.description) : tool.description;
    try {
      gated = tool.requiresApproval ? await tool.requiresApproval(args, approvalContext(call, run)) : false;
    } catch (error) {
      // Fail closed: a policy that cannot decide asks the human.
      gated = true;
      description = `${description} (approval check failed: ${getErrorMessage(error)})`;
    }
    if (!gated) continue;
    const target = tool.resolveTarget
      ? await Promise.resolve(tool.resolveTarget(args)).catch(() => undefined)
      : undefined;
    const update: ToolApprovalRequestUpdate = {
      type: 'tool-approval-request',
      callId: call.id,
      name: call.name,
      arguments: args as JSONValue,
      description,
    };
    if (target !== undefined) update.resolvedTarget = target;
    planned.push(target === undefined ? { update } : { update, target });
  }
  return planned;
}

/**
 * The paused batch as it runs on resume: ungated and approved calls run; denied or unanswered
 * gated calls get `Rejected: <reason>`; approved calls stay bound to the target they were shown.
 * Calls that already ran keep their results; suspended calls run again with their state and the
 * answers to their own requests.
 */
export function prepareResumedCalls(
  batch: PendingApprovalBatch,
  decisions: ApprovalDecisions,
  tools: ReadonlyMap<string, ITool>,
): PreparedCall[] {
  const gated = new Set(batch.gatedCallIds);
  return prepareCalls(batch.toolCalls, tools).map((prepared) => {
    const id = prepared.call.id;
    const done = batch.results?.[id];
    if (done) return { call: prepared.call, preset: done };
    const suspended = batch.suspended?.[id];
    if (suspended) {
      if (prepared.preset) return prepared;
      const approvals = suspended.requests.flatMap((r) => {
        const decision = decisions.get(r.callId);
        return decision ? [decision] : [];
      });
      return { ...prepared, resume: { state: suspended.state, approvals } };
    }
    if (!gated.has(id) || prepared.preset) return prepared;
    const decision = decisions.get(id);
    if (!decision?.approved) {
      return {
        call: prepared.call,
        preset: toolFailure(`Rejected: ${decision?.reason || DEFAULT_DENIAL_REASON}`),
      };
    }
    const target = batch.resolvedTargets?.[id];
    return target === undefined
      ? { ...prepared, approved: true }
      : { ...prepared, approved: true, approvedTarget: target };
  });
}
