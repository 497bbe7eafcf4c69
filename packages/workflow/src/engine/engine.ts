import { setMaxListeners } from 'node:events';
import { CancelledError, type JSONValue, TimeoutError } from '@raf/core';
import { timerDelay } from '@raf/core/internal';
import type { CheckpointStore } from '../checkpoint/checkpoint-store.js';
import { checkpointId } from '../checkpoint/checkpoint-store.js';
import { WorkflowError } from '../errors.js';
import type { Edge, ResumeData } from '../graph/graph-types.js';
import type { WorkflowGraph } from '../graph/workflow-graph.js';
import type { WorkflowEvent, WorkflowOutput } from './events.js';
import { describeFailure, type NodeOutcome, type NodeRunnerContext, runNode } from './node-runner.js';
import { RecordState } from './record-state.js';
import type { HaltedNode, RunState } from './run-state.js';
import { type FinishedNode, progressState, type StateWrite, TrackingState } from './superstep-progress.js';

/** How a run ended. `state` continues it (`workflow.resume({ state })`) without a checkpoint store. */
export interface WorkflowResult {
  runId: string;
  status: 'completed' | 'halted' | 'failed' | 'cancelled';
  outputs: WorkflowOutput[];
  halted: HaltedNode[];
  error?: { code: string; message: string; nodeId?: string };
  state: RunState;
  /** The last checkpoint saved. */
  checkpointId?: string;
}

export interface EngineOptions {
  graph: WorkflowGraph;
  store: CheckpointStore | undefined;
  signal: AbortSignal | undefined;
  timeoutMs: number | undefined;
  maxParallel: number;
  emit: (event: WorkflowEvent) => void;
}

/** Runs supersteps until nothing is pending, a node pauses, a node fails or the run is stopped. */
export async function executeRun(
  options: EngineOptions,
  run: RunState,
  resume: Map<string, ResumeData>,
  parentId: string | undefined,
): Promise<WorkflowResult> {
  const { graph, store, emit } = options;
  const controller = new AbortController();
  const signals = [controller.signal, ...(options.signal ? [options.signal] : [])];
  let timer: NodeJS.Timeout | undefined;
  if (options.timeoutMs !== undefined) {
    const ms = options.timeoutMs;
    timer = setTimeout(
      () =>
        controller.abort(
          new TimeoutError(`the workflow timed out after ${ms} ms`, { phase: 'total', timeoutMs: ms }),
        ),
      timerDelay(ms),
    );
  }
  const signal = signals.length === 1 ? controller.signal : AbortSignal.any(signals);
  // Every node of a wide superstep listens to it at once.
  setMaxListeners(0, signal);
  const state = new RecordState(run.state);
  const context: NodeRunnerContext = { run, state, signal, emit, resume };
  let lastCheckpoint = parentId;
  const result = (status: WorkflowResult['status'], error?: WorkflowResult['error']): WorkflowResult => ({
    runId: run.runId,
    status,
    outputs: run.outputs,
    halted: run.halted,
    ...(error && { error }),
    state: run,
    ...(lastCheckpoint !== undefined && { checkpointId: lastCheckpoint }),
  });
  try {
    while (run.pending.length > 0) {
      if (signal.aborted) throw signal.reason;
      const step = run.step;
      const batch = run.pending;
      // Resumed inside a superstep: the nodes that finished before the crash are not run again.
      const resumed = run.progress?.step === step ? run.progress.done : [];
      delete run.progress;
      // A wide superstep keeps each node that finishes while others run (a checkpoint per node).
      const base = store && batch.length > 1 ? structuredClone(run) : undefined;
      run.pending = [];
      emit({ type: 'superstep-started', step, nodeIds: batch.map(([id]) => id) });
      const done: FinishedNode[] = [...resumed];
      let saving = Promise.resolve();
      const outcomes = await runBounded(
        batch.map((entry, index) => ({ entry, index })),
        options.maxParallel,
        async ({ entry: [id, messages], index }) => {
          const before = resumed.find((d) => d.index === index);
          if (before) return before.outcome;
          const writes: StateWrite[] = [];
          const tracked = base ? { ...context, state: new TrackingState(state, writes) } : context;
          const outcome = await runNode(graph.nodes.get(id)!, messages, step, tracked);
          if (!base || !store) return outcome;
          const own = run.nodeState[id];
          done.push({ index, outcome, writes, ...(own !== undefined && { nodeState: { value: own } }) });
          if (done.length < batch.length) {
            const snapshot = progressState(base, step, done);
            saving = saving.then(async () => {
              const progressId = checkpointId(step);
              await store.save(
                {
                  id: progressId,
                  runId: run.runId,
                  step,
                  fingerprint: run.fingerprint,
                  ...(lastCheckpoint !== undefined && { parentId: lastCheckpoint }),
                  createdAt: new Date().toISOString(),
                  state: snapshot,
                },
                { signal },
              );
              lastCheckpoint = progressId;
            });
            await saving;
          }
          return outcome;
        },
      );
      const next = new Map<string, JSONValue[]>();
      for (const outcome of outcomes) route(graph, run, state, outcome, next, emit);
      run.pending = [...next];
      run.step = step + 1;
      if (run.halted.length > 0) run.status = 'halted';
      if (store) {
        const id = checkpointId(step);
        await store.save(
          {
            id,
            runId: run.runId,
            step,
            fingerprint: run.fingerprint,
            ...(lastCheckpoint !== undefined && { parentId: lastCheckpoint }),
            createdAt: new Date().toISOString(),
            state: run,
          },
          { signal },
        );
        lastCheckpoint = id;
      }
      emit({
        type: 'superstep-completed',
        step,
        ...(lastCheckpoint !== undefined && { checkpointId: lastCheckpoint }),
      });
      if (run.halted.length > 0) {
        for (const halted of run.halted)
          emit({
            type: 'halted',
            runId: run.runId,
            nodeId: halted.nodeId,
            request: halted.request,
            ...(lastCheckpoint !== undefined && { checkpointId: lastCheckpoint }),
          });
        return result('halted');
      }
    }
    run.status = 'completed';
    emit({ type: 'completed', runId: run.runId, outputs: run.outputs });
    return result('completed');
  } catch (error) {
    const cancelled = signal.aborted && !TimeoutError.isInstance(signal.reason);
    const failure = describeFailure(
      signal.aborted ? (signal.reason ?? new CancelledError('the workflow was cancelled')) : error,
    );
    if (!signal.aborted) run.status = 'failed';
    emit({ type: 'error', runId: run.runId, ...failure });
    return result(cancelled ? 'cancelled' : 'failed', failure);
  } finally {
    if (timer) clearTimeout(timer);
  }
}

/** Each node's outputs along its edges, in node order: the next superstep's messages. */
function route(
  graph: WorkflowGraph,
  run: RunState,
  state: RecordState,
  outcome: NodeOutcome,
  next: Map<string, JSONValue[]>,
  emit: (event: WorkflowEvent) => void,
): void {
  const enqueue = (target: string, message: JSONValue) => {
    const list = next.get(target);
    if (list) list.push(message);
    else next.set(target, [message]);
  };
  const node = graph.nodes.get(outcome.nodeId)!;
  for (const value of outcome.yields) {
    run.outputs.push({ nodeId: node.id, value });
    emit({ type: 'output', nodeId: node.id, value, streamed: false });
  }
  for (const value of outcome.outputs) {
    if (node.output) {
      run.outputs.push({ nodeId: node.id, value });
      emit({ type: 'output', nodeId: node.id, value, streamed: node.executor.kind === 'agent' });
    }
    for (const edge of graph.outgoing.get(node.id) ?? []) deliver(edge, node.id, value, run, state, enqueue);
  }
  for (const [target, message] of outcome.fallbacks) enqueue(target, message);
  run.halted.push(...outcome.halts);
}

function holds(edge: Edge, test: () => boolean): boolean {
  try {
    return test();
  } catch (error) {
    throw new WorkflowError(
      'node-failed',
      `the condition of edge ${edge.sources.join(',')} → ${edge.targets.join(',')} failed: ${(error as Error).message}`,
      { cause: error, ...(edge.sources[0] !== undefined && { nodeId: edge.sources[0] }) },
    );
  }
}

function deliver(
  edge: Edge,
  source: string,
  value: JSONValue,
  run: RunState,
  state: RecordState,
  enqueue: (target: string, message: JSONValue) => void,
): void {
  switch (edge.kind) {
    case 'direct': {
      const condition = edge.condition;
      if (condition && !holds(edge, () => condition(value, state))) return;
      if (edge.loopback) {
        const taken = run.edgeCounts[edge.id] ?? 0;
        if (taken >= edge.loopback.maxIterations) return;
        run.edgeCounts[edge.id] = taken + 1;
      }
      enqueue(edge.targets[0]!, value);
      return;
    }
    case 'fan-out':
      for (const target of edge.targets) enqueue(target, value);
      return;
    case 'switch': {
      const chosen = (edge.cases ?? []).find((c) => {
        const when = c.when;
        return !when || holds(edge, () => when(value, state));
      });
      if (chosen) enqueue(chosen.target, value);
      return;
    }
    case 'fan-in': {
      const buffer = run.fanIn[edge.id] ?? {};
      run.fanIn[edge.id] = buffer;
      buffer[source] = value;
      if (edge.sources.every((s) => Object.hasOwn(buffer, s))) {
        delete run.fanIn[edge.id];
        enqueue(
          edge.targets[0]!,
          edge.sources.map((s) => buffer[s] as JSONValue),
        );
      }
      return;
    }
  }
}

/** Runs the tasks with at most `limit` at once; results in input order. */
async function runBounded<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  if (items.length === 1) return [await task(items[0]!)];
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  return results;
}
