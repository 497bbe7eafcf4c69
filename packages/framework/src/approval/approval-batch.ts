import { ApprovalError, type ApprovalResponse, type PendingApprovalBatch } from '@raf/core';

/** What the caller decided for each gated call of a paused batch. */
export type ApprovalDecisions = Map<string, ApprovalResponse>;

/**
 * Checks answers against the paused batch before anything runs: every id must be a gated call of
 * the batch, answered once. Unanswered gated calls are allowed (they count as denied).
 */
export function checkApprovals(
  batch: PendingApprovalBatch | undefined,
  approvals: readonly ApprovalResponse[] | undefined,
  sessionId?: string,
): ApprovalDecisions {
  const where = sessionId ? ` in session ${sessionId}` : '';
  if (!batch) {
    throw new ApprovalError(
      `there is no paused run waiting for approval${where}; approvals cannot be applied`,
    );
  }
  const gated = new Set(batch.gatedCallIds);
  const decisions: ApprovalDecisions = new Map();
  for (const approval of approvals ?? []) {
    if (!approval || typeof approval.callId !== 'string' || typeof approval.approved !== 'boolean') {
      throw new ApprovalError('each approval needs a string "callId" and a boolean "approved"');
    }
    if (!gated.has(approval.callId)) {
      const known = batch.toolCalls.some((call) => call.id === approval.callId);
      throw new ApprovalError(
        known
          ? `call ${approval.callId} did not ask for approval${where}; only ${[...gated].join(', ')} did`
          : `unknown call id ${approval.callId}${where}; the paused calls waiting for approval are ${[...gated].join(', ')}`,
      );
    }
    if (decisions.has(approval.callId)) {
      throw new ApprovalError(`call ${approval.callId} is answered twice${where}`);
    }
    decisions.set(approval.callId, approval);
  }
  return decisions;
}

export const DEFAULT_DENIAL_REASON = 'User denied';
