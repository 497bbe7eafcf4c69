import { type JSONValue, RafError, type RafErrorOptions, type ToolApprovalRequestUpdate } from '@raf/core';

const suspensionKey = 'raf.error.ToolSuspension';
const suspensionSymbol = Symbol.for(suspensionKey);

/**
 * Thrown by a tool whose work waits for a human decision made elsewhere (a delegation whose
 * sub-agent paused for approval). The loop finishes the batch's other calls, keeps their results
 * and this call's `state` in the session's paused batch, streams `requests` as
 * `tool-approval-request` updates and ends the run with `awaitingApproval`. On resume the call runs
 * again with `ctx.resume = { state, approvals }`. `requests` need call ids unique in the session
 * (prefix them with `ctx.callId`); `state` must be plain JSON.
 */
export class ToolSuspension extends RafError {
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: the brand `isInstance` looks for
  private readonly [suspensionSymbol] = true;
  readonly requests: ToolApprovalRequestUpdate[];
  readonly state: JSONValue;

  constructor(requests: ToolApprovalRequestUpdate[], state: JSONValue, options?: RafErrorOptions) {
    super(
      'RAF_TOOL_SUSPENDED',
      `the call waits for approval of ${requests.map((r) => r.callId).join(', ')}`,
      options,
    );
    this.name = 'ToolSuspension';
    this.requests = requests;
    this.state = state;
  }

  static override isInstance(error: unknown): error is ToolSuspension {
    return RafError.hasMarker(error, suspensionKey);
  }
}
