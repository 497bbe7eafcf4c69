import type { JSONValue } from '@raf/core';
import type { CheckpointStore } from '../checkpoint/checkpoint-store.js';
import { FileCheckpointStore } from '../checkpoint/file-checkpoint-store.js';
import { functionExecutor } from '../executors/function-executor.js';
import { WorkflowBuilder } from '../graph/workflow-builder.js';
import { Workflow } from '../workflow.js';

const mix = (x: number, salt: number) => (x * 31 + salt * 7919) % 1_000_003;
const pause = () => new Promise((r) => setTimeout(r, 4));

/**
 * 20 nodes: a chain of 5, a fan-out to 6 branches of 2, a fan-in, a tail of 2. Every node waits a
 * little (so a kill lands mid-run), writes a variable, and the branches add outputs of their own.
 */
export function crashWorkflow(
  dir: string,
  options: { store?: CheckpointStore; ran?: (nodeId: string) => void } = {},
): Workflow {
  const builder = new WorkflowBuilder().setStart('n0');
  const step = (id: string, salt: number, yields = false) =>
    builder.addNode(
      id,
      functionExecutor(async (x, context) => {
        await pause();
        const value = mix(x as number, salt);
        context.state.set(id, value);
        if (yields) context.yieldOutput(`${id}=${value}`);
        options.ran?.(id);
        return value;
      }),
    );
  for (let i = 0; i < 5; i++) {
    step(`n${i}`, i);
    if (i > 0) builder.addEdge(`n${i - 1}`, `n${i}`);
  }
  const ends: string[] = [];
  for (let b = 0; b < 6; b++) {
    step(`b${b}`, 10 + b);
    step(`c${b}`, 20 + b, true);
    builder.addEdge(`b${b}`, `c${b}`);
    ends.push(`c${b}`);
  }
  builder.addFanOut('n4', ['b0', 'b1', 'b2', 'b3', 'b4', 'b5']);
  builder.addNode(
    'join',
    functionExecutor(async (xs) => {
      await pause();
      return (xs as number[]).reduce((s, v) => mix(s + v, 99), 0) as JSONValue;
    }),
  );
  builder.addFanIn(ends, 'join');
  step('t0', 40);
  builder.addEdge('join', 't0');
  builder
    .addNode(
      't1',
      functionExecutor((x) => `final ${x}`),
      { output: true },
    )
    .addEdge('t0', 't1');
  return new Workflow(builder.build(), {
    checkpoints: options.store ?? new FileCheckpointStore(dir),
    maxParallel: 3,
  });
}
