import type { PendingApprovalBatch, ToolApprovalRequestUpdate } from '@raf/core';

/**
 * The approval requests of a paused session, rebuilt from its pending batch (a sub-agent's as it
 * asked them): what `raf run` prints and `raf serve` answers with after a restart.
 */
export function pendingApprovalRequests(batch: PendingApprovalBatch): ToolApprovalRequestUpdate[] {
  const nested = Object.values(batch.suspended ?? {}).flatMap((s) => s.requests);
  const own = batch.toolCalls
    .filter((call) => batch.gatedCallIds.includes(call.id))
    .map((call) => {
      let args: unknown = call.arguments;
      try {
        args = JSON.parse(call.arguments);
      } catch {}
      const target = batch.resolvedTargets?.[call.id];
      return {
        type: 'tool-approval-request' as const,
        callId: call.id,
        name: call.name,
        arguments: args as ToolApprovalRequestUpdate['arguments'],
        description: call.name,
        ...(target !== undefined && { resolvedTarget: target }),
      };
    });
  return [...own, ...nested];
}
