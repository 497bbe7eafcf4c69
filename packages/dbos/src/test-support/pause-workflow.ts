import {
  functionExecutor,
  humanInputExecutor,
  Workflow,
  WorkflowAgent,
  WorkflowBuilder,
} from '@raf/workflow';

/**
 * `start` → the question `first` → `slow` (slow enough for a kill to land inside it) → the
 * question `second` → `end`, whose output is the answer. `effect` is each node's side effect:
 * `slow` reports when it starts (`slow-start`) and when it finished its work (`slow`).
 */
export function pauseWorkflow(effect: (what: string) => void): WorkflowAgent {
  const builder = new WorkflowBuilder().setStart('start');
  builder.addNode(
    'start',
    functionExecutor((x) => {
      effect('start');
      return x;
    }),
  );
  builder.addNode('first', humanInputExecutor({ prompt: (x) => `first answer to ${String(x)}?` }));
  builder.addNode(
    'slow',
    functionExecutor(async (x) => {
      effect('slow-start');
      await new Promise((resolve) => setTimeout(resolve, 1500));
      effect('slow');
      return x;
    }),
  );
  builder.addNode('second', humanInputExecutor({ prompt: (x) => `second answer after ${String(x)}?` }));
  builder.addNode(
    'end',
    functionExecutor((x) => `end: ${String(x)}`),
    { output: true },
  );
  builder.addEdge('start', 'first');
  builder.addEdge('first', 'slow');
  builder.addEdge('slow', 'second');
  builder.addEdge('second', 'end');
  return new WorkflowAgent(new Workflow(builder.build(), { name: 'pauses' }));
}
