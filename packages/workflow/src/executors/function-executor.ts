import type { JSONValue } from '@raf/core';
import type { Executor, NodeContext, NodeResult } from '../graph/graph-types.js';

/** A node that runs a function: its return value is the node's output (`undefined`: send nothing). */
export function functionExecutor(
  fn: (input: JSONValue, context: NodeContext) => JSONValue | undefined | Promise<JSONValue | undefined>,
  label?: string,
): Executor {
  return {
    kind: 'function',
    ...(label !== undefined && { label }),
    handle(input, context): NodeResult | Promise<NodeResult> {
      const value = fn(input, context);
      if (value instanceof Promise) return value.then((v) => (v === undefined ? {} : { output: v }));
      return value === undefined ? {} : { output: value };
    },
  };
}

/** Passes its input on unchanged (a gateway or a join point). */
export function passThrough(label = 'pass'): Executor {
  return { kind: 'function', label, handle: (input) => ({ output: input }) };
}
