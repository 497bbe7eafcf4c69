import type { ApprovalResponse, JSONValue, SessionSnapshot, ToolApprovalRequestUpdate } from '@raf/core';

/** What a paused delegation keeps (in the root session): the sub-agent's session and what it asked. */
export interface PausedDelegation {
  agent: string;
  session: SessionSnapshot;
  /** The sub-agent's own requests, with its own call ids. */
  requests: ToolApprovalRequestUpdate[];
}

/** The sub-agent's requests as the root shows them: ids made unique in the root session, `agentPath` set. */
export function raisedRequests(
  agent: string,
  callId: string,
  requests: readonly ToolApprovalRequestUpdate[],
): ToolApprovalRequestUpdate[] {
  return requests.map((request) => ({
    ...request,
    callId: `${callId}/${request.callId}`,
    agentPath: [agent, ...(request.agentPath ?? [])],
  }));
}

/** The root's answers as the sub-agent reads them: its own call ids, only answers meant for it. */
export function answersFor(callId: string, approvals: readonly ApprovalResponse[]): ApprovalResponse[] {
  const prefix = `${callId}/`;
  return approvals
    .filter((a) => a.callId.startsWith(prefix))
    .map((a) => ({ ...a, callId: a.callId.slice(prefix.length) }));
}

/** Reads the state a paused delegation saved; anything else is refused (a session edited by hand). */
export function pausedDelegation(state: JSONValue, agent: string): PausedDelegation {
  const value = state as Partial<PausedDelegation> | null;
  if (
    !value ||
    typeof value !== 'object' ||
    value.agent !== agent ||
    !value.session ||
    !Array.isArray(value.requests)
  ) {
    throw new Error(`the saved state of this delegation to ${agent} is not one a paused delegation left`);
  }
  return value as PausedDelegation;
}

/**
 * Which of the sub-agent's own requests the human approved, with the target they were shown: a
 * proxied call that claims an approval is believed only for these.
 */
export function approvedTargets(
  paused: PausedDelegation,
  answers: readonly ApprovalResponse[],
): Map<string, string | undefined> {
  const approved = new Map<string, string | undefined>();
  for (const answer of answers) {
    if (!answer.approved) continue;
    const request = paused.requests.find((r) => r.callId === answer.callId);
    if (request) approved.set(request.callId, request.resolvedTarget);
  }
  return approved;
}
