import type { JSONValue } from '@raf/core';
import type { Executor, NodeContext } from '../graph/graph-types.js';

export interface HumanInputOptions {
  /** What to ask; a function builds it from the node's input. */
  prompt: string | ((input: JSONValue, context: NodeContext) => string);
  /** Named in the pause so a UI can show where the answer goes. */
  variable?: string;
}

/**
 * A node that pauses the run until a person answers (`workflow.resume({ answer })`, also after a
 * restart, from a checkpoint); its output is the answer.
 */
export function humanInputExecutor(options: HumanInputOptions): Executor {
  return {
    kind: 'human-input',
    label: typeof options.prompt === 'string' ? options.prompt : 'human input',
    handle(input, context) {
      const answer = context.resume?.answer;
      if (answer !== undefined) return { output: answer };
      const prompt = typeof options.prompt === 'string' ? options.prompt : options.prompt(input, context);
      return {
        halt: {
          kind: 'input',
          prompt,
          ...(options.variable !== undefined && { variable: options.variable }),
        },
      };
    },
  };
}
