import type { WorkflowEvent } from '../engine/events.js';
import type { WorkflowRun } from '../workflow.js';

/** Every event of a run, and a compact trace of them for assertions. */
export async function collect(run: WorkflowRun): Promise<WorkflowEvent[]> {
  const events: WorkflowEvent[] = [];
  for await (const event of run) events.push(event);
  return events;
}

export function trace(events: readonly WorkflowEvent[]): string[] {
  return events.flatMap((e) => {
    switch (e.type) {
      case 'superstep-started':
        return [`step ${e.step}: ${e.nodeIds.join(',')}`];
      case 'node-failed':
        return [`failed ${e.nodeId}#${e.attempt}${e.retrying ? ' retrying' : ''}`];
      case 'output':
        return [`output ${e.nodeId}=${JSON.stringify(e.value)}`];
      case 'halted':
        return [`halted ${e.nodeId}`];
      case 'resumed':
        return [`resumed at ${e.step}`];
      case 'completed':
        return ['completed'];
      case 'error':
        return [`error ${e.code}`];
      default:
        return [];
    }
  });
}
