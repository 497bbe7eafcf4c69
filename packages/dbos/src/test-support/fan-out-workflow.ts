import type { JSONValue } from '@raf/core';
import { functionExecutor, Workflow, WorkflowAgent, WorkflowBuilder } from '@raf/workflow';

export const BRANCHES = 6;

/**
 * `start` → a fan-out to six branches (three run at once, each slow enough for a kill to land
 * inside the superstep) → a fan-in `join` whose output is the answer. `effect` is each node's
 * side effect, called as it finishes its work.
 */
export function fanOutWorkflow(effect: (nodeId: string) => void): WorkflowAgent {
  const builder = new WorkflowBuilder().setStart('start');
  builder.addNode(
    'start',
    functionExecutor((x) => x),
  );
  const branches: string[] = [];
  for (let b = 0; b < BRANCHES; b++) {
    const id = `b${b}`;
    builder.addNode(
      id,
      functionExecutor(async (x) => {
        await new Promise((resolve) => setTimeout(resolve, 250 + 100 * b));
        effect(id);
        return `${id}:${String(x)}`;
      }),
    );
    branches.push(id);
  }
  builder.addFanOut('start', branches);
  builder.addNode(
    'join',
    functionExecutor((xs) => (xs as JSONValue[]).map(String).sort().join(',')),
    { output: true },
  );
  builder.addFanIn(branches, 'join');
  return new WorkflowAgent(new Workflow(builder.build(), { name: 'fan-out', maxParallel: 3 }));
}
