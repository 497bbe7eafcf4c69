import { ApprovalError, type ApprovalResponse, type ChatMessage, type PendingApprovalBatch } from '@raf/core';

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

/**
 * Checks the paused batch against the assistant turn in the history that asked for its calls: an
 * approval is for the call the human was shown, so a call whose tool or arguments differ from that
 * turn (a saved session edited between pause and resume) is refused before anything runs. Calls
 * the history does not hold (a history kept elsewhere) are not compared.
 */
export function checkBatchMatchesHistory(
  batch: PendingApprovalBatch | undefined,
  history: readonly ChatMessage[],
  sessionId?: string,
): void {
  if (!batch) return;
  const asked = new Map<string, { name: string; arguments: string }>();
  for (let i = history.length - 1; i >= 0 && asked.size < batch.toolCalls.length; i--) {
    const message = history[i]!;
    if (message.role !== 'assistant' || !message.toolCalls) continue;
    for (const call of message.toolCalls) if (!asked.has(call.id)) asked.set(call.id, call);
  }
  for (const call of batch.toolCalls) {
    const original = asked.get(call.id);
    if (!original || (original.name === call.name && original.arguments === call.arguments)) continue;
    const where = sessionId ? ` of session ${sessionId}` : '';
    throw new ApprovalError(
      `the paused call ${call.id}${where} is not the call the model asked for (its ${original.name === call.name ? 'arguments' : 'tool'} changed since the pause): the saved session was altered; nothing ran`,
    );
  }
}

export const DEFAULT_DENIAL_REASON = 'User denied';
