import type { JSONValue } from '@raf/core';
import * as z from 'zod';
import type { HaltRequest } from '../graph/graph-types.js';
import type { WorkflowOutput } from './events.js';
import type { SuperstepProgress } from './superstep-progress.js';

/** A node waiting for an answer, with the message it was running on. */
export interface HaltedNode {
  nodeId: string;
  input: JSONValue;
  request: HaltRequest;
}

/**
 * Everything a run needs to continue, as plain JSON: what each checkpoint stores. The messages
 * waiting for the next superstep, the fan-in barriers, the variables, each node's private state,
 * how often each loopback edge was taken, the outputs so far and the paused nodes.
 */
export interface RunState {
  version: 1;
  runId: string;
  fingerprint: string;
  /** The number of the next superstep. */
  step: number;
  status: 'running' | 'halted' | 'completed' | 'failed';
  pending: [nodeId: string, messages: JSONValue[]][];
  fanIn: Record<string, Record<string, JSONValue>>;
  state: Record<string, JSONValue>;
  nodeState: Record<string, JSONValue>;
  edgeCounts: Record<string, number>;
  outputs: WorkflowOutput[];
  halted: HaltedNode[];
  /** The superstep `step` was in progress: the nodes of it that finished (run again: the others). */
  progress?: SuperstepProgress;
}

const json: z.ZodType<JSONValue> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(json), z.record(z.string(), json)]),
);

// A halt's request is plain JSON (a question, approval requests): kept and read back as such.
const halted = z.object({ nodeId: z.string(), input: json, request: z.record(z.string(), json) });

const runStateSchema = z.object({
  version: z.literal(1),
  runId: z.string(),
  fingerprint: z.string(),
  step: z.number().int(),
  status: z.enum(['running', 'halted', 'completed', 'failed']),
  pending: z.array(z.tuple([z.string(), z.array(json)])),
  fanIn: z.record(z.string(), z.record(z.string(), json)),
  state: z.record(z.string(), json),
  nodeState: z.record(z.string(), json),
  edgeCounts: z.record(z.string(), z.number()),
  outputs: z.array(z.object({ nodeId: z.string(), value: json })),
  halted: z.array(halted),
  progress: z
    .object({
      step: z.number().int(),
      done: z.array(
        z.object({
          index: z.number().int().nonnegative(),
          outcome: z.object({
            nodeId: z.string(),
            outputs: z.array(json),
            yields: z.array(json),
            halts: z.array(halted),
            fallbacks: z.array(z.tuple([z.string(), json])),
          }),
          writes: z.array(z.object({ key: z.string(), value: json.optional() })),
          nodeState: z.object({ value: json }).optional(),
        }),
      ),
    })
    .optional(),
});

/** Checks a stored run state (a checkpoint read from disk) before a run continues from it. */
export function parseRunState(value: unknown): RunState {
  return runStateSchema.parse(value) as RunState;
}

/** A run state as the plain JSON it is (a parent node or a session keeps it): what reads back with `parseRunState`. */
export function runStateJSON(state: RunState): JSONValue {
  return runStateSchema.parse(state);
}

export function safeParseRunState(
  value: unknown,
): { success: true; data: RunState } | { success: false; error: string } {
  const parsed = runStateSchema.safeParse(value);
  return parsed.success
    ? { success: true, data: parsed.data as RunState }
    : {
        success: false,
        error: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
      };
}
