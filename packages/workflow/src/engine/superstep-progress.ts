import type { JSONValue } from '@raf/core';
import type { WorkflowState } from '../graph/graph-types.js';
import type { NodeOutcome } from './node-runner.js';
import type { RunState } from './run-state.js';

/** A variable a node set (`value`) or deleted (no `value`) while it ran. */
export interface StateWrite {
  key: string;
  value?: JSONValue;
}

/** A node of the superstep in progress that finished: what it produced and wrote. */
export interface FinishedNode {
  /** Its place in the superstep's batch (`RunState.pending` when the superstep started). */
  index: number;
  outcome: NodeOutcome;
  writes: StateWrite[];
  /** Its private state after it ran (absent: none). */
  nodeState?: { value: JSONValue };
}

/**
 * The nodes of a superstep that finished while others still ran (SPEC §14.1): kept in a checkpoint
 * of their own, so a resume after a crash runs only the unfinished ones.
 */
export interface SuperstepProgress {
  step: number;
  done: FinishedNode[];
}

/** The run's variables, recording what one node writes (the others' writes are not its own). */
export class TrackingState implements WorkflowState {
  constructor(
    private readonly inner: WorkflowState,
    private readonly writes: StateWrite[],
  ) {}
  get(key: string): JSONValue | undefined {
    return this.inner.get(key);
  }
  set(key: string, value: JSONValue): void {
    this.inner.set(key, value);
    this.writes.push({ key, value: structuredClone(value) });
  }
  delete(key: string): void {
    this.inner.delete(key);
    this.writes.push({ key });
  }
  has(key: string): boolean {
    return this.inner.has(key);
  }
  keys(): string[] {
    return this.inner.keys();
  }
}

/**
 * The state a progress checkpoint stores: the run as the superstep began (`base`, its batch still
 * pending) with only the finished nodes' writes and private state, never a running node's
 * half-done ones (it runs again on resume). Writes are final values: applying one twice is a no-op.
 */
export function progressState(base: RunState, step: number, done: readonly FinishedNode[]): RunState {
  const run = structuredClone(base);
  for (const node of done) {
    for (const write of node.writes) {
      if (write.value === undefined) delete run.state[write.key];
      else run.state[write.key] = write.value;
    }
    const id = node.outcome.nodeId;
    if (node.nodeState) run.nodeState[id] = node.nodeState.value;
    else delete run.nodeState[id];
  }
  run.progress = { step, done: structuredClone([...done]) };
  return run;
}
