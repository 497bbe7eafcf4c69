import type { AgentResponseUpdate, JSONValue } from '@raf/core';
import type { HaltRequest } from '../graph/graph-types.js';

/** One workflow output: the value and the node that produced it. */
export interface WorkflowOutput {
  nodeId: string;
  value: JSONValue;
}

/** What a run streams, in order. Extra fields may be added; these will not be renamed. */
export type WorkflowEvent =
  | { type: 'workflow-started'; runId: string; startNodeId: string; nodeIds: string[] }
  | { type: 'resumed'; runId: string; step: number; checkpointId?: string }
  | { type: 'superstep-started'; step: number; nodeIds: string[] }
  | { type: 'superstep-completed'; step: number; checkpointId?: string }
  | { type: 'node-invoking'; nodeId: string; step: number; attempt: number; label?: string }
  | { type: 'node-streaming'; nodeId: string; update: AgentResponseUpdate }
  | { type: 'node-completed'; nodeId: string; step: number; output?: JSONValue }
  | {
      type: 'node-failed';
      nodeId: string;
      step: number;
      attempt: number;
      message: string;
      /** Another try follows. */
      retrying: boolean;
    }
  | { type: 'output'; nodeId: string; value: JSONValue; streamed: boolean }
  | { type: 'halted'; runId: string; nodeId: string; request: HaltRequest; checkpointId?: string }
  | { type: 'completed'; runId: string; outputs: WorkflowOutput[] }
  | { type: 'error'; runId: string; code: string; message: string; nodeId?: string };

export type WorkflowEventType = WorkflowEvent['type'];
