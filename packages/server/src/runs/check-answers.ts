import type { ApprovalResponse, ToolApprovalRequestUpdate } from '@raf/core';
import { HttpError } from '../http/http-error.js';

/** Every pending call answered once, no other call: else a 400 naming the calls. */
export function checkAnswers(
  runId: string,
  requests: ToolApprovalRequestUpdate[],
  approvals: ApprovalResponse[],
): void {
  const pending = new Set(requests.map((r) => r.callId));
  const unknown = approvals.filter((a) => !pending.has(a.callId)).map((a) => a.callId);
  if (unknown.length > 0)
    throw new HttpError(
      400,
      'unknown_call',
      `run ${runId} has no pending approval for call ${unknown.join(', ')}`,
    );
  const answered = new Set(approvals.map((a) => a.callId));
  if (answered.size !== approvals.length)
    throw new HttpError(400, 'duplicate_call', 'a call is answered twice');
  const missing = [...pending].filter((id) => !answered.has(id));
  if (missing.length > 0)
    throw new HttpError(400, 'missing_approval', `no decision for call ${missing.join(', ')}`);
}
