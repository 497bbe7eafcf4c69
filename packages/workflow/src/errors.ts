import { RafError, type RafErrorOptions } from '@raf/core';

const workflowKey = 'raf.error.WorkflowError';
const workflowSymbol = Symbol.for(workflowKey);

/** Why a workflow failed: a graph that does not validate, a node that failed, a refused resume. */
export type WorkflowErrorReason =
  | 'invalid-graph'
  | 'node-failed'
  | 'timeout'
  | 'fingerprint-mismatch'
  | 'no-checkpoint'
  | 'corrupt-checkpoint'
  | 'not-halted'
  | 'expression'
  | 'unanimity';

/** A workflow problem; `reason` tells which, `nodeId` names the node when one is at fault. */
export class WorkflowError extends RafError {
  private readonly [workflowSymbol] = true;
  readonly reason: WorkflowErrorReason;
  readonly nodeId: string | undefined;

  constructor(
    reason: WorkflowErrorReason,
    message: string,
    options: RafErrorOptions & { nodeId?: string } = {},
  ) {
    super('RAF_WORKFLOW', message, options);
    this.name = 'WorkflowError';
    this.reason = reason;
    this.nodeId = options.nodeId;
  }

  static override isInstance(error: unknown): error is WorkflowError {
    return RafError.hasMarker(error, workflowKey);
  }
}
