import type { WorkflowEvent } from '../engine/events.js';
import { parseRunState, runStateJSON } from '../engine/run-state.js';
import { WorkflowError } from '../errors.js';
import type { Executor } from '../graph/graph-types.js';
import type { Workflow } from '../workflow.js';

/**
 * A node that runs another workflow on its message. The child's agent updates stream as this
 * node's; a pause inside it pauses the parent (the child's state rides in this node's state) and
 * the answer reaches it on resume. The output is the child's last output (all of them with `all`).
 */
export function subWorkflowExecutor(child: Workflow, options: { all?: boolean } = {}): Executor {
  return {
    kind: 'sub-workflow',
    label: child.name,
    async handle(message, context) {
      const saved = context.getNodeState();
      const onEvent = (event: WorkflowEvent) => {
        if (event.type === 'node-streaming') context.emit(event.update);
      };
      const common = { signal: context.signal, onEvent, checkpoints: undefined } as const;
      const run =
        saved !== undefined && context.resume
          ? child.resume({
              ...common,
              state: parseRunState(saved),
              ...(context.resume.answer !== undefined && { answer: context.resume.answer }),
              ...(context.resume.approvals && { approvals: context.resume.approvals }),
            })
          : child.run(message, { ...common, runId: `${context.nodeId}` });
      const result = await run.result;
      if (result.status === 'halted') {
        context.setNodeState(runStateJSON(result.state));
        const first = result.halted[0]!;
        return { halt: first.request };
      }
      context.setNodeState(undefined);
      if (result.status !== 'completed')
        throw new WorkflowError(
          'node-failed',
          `sub-workflow "${child.name}" ${result.status}: ${result.error?.message ?? ''}`,
          { nodeId: context.nodeId },
        );
      const values = result.outputs.map((o) => o.value);
      if (options.all) return { output: values };
      const last = values.at(-1);
      return last === undefined ? {} : { output: last };
    },
  };
}
