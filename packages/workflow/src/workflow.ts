import { randomUUID } from 'node:crypto';
import type { ApprovalResponse, JSONValue } from '@raf/core';
import type { CheckpointStore } from './checkpoint/checkpoint-store.js';
import type { EngineOptions, WorkflowResult } from './engine/engine.js';
import { executeRun } from './engine/engine.js';
import { EventQueue } from './engine/event-queue.js';
import type { WorkflowEvent } from './engine/events.js';
import { parseRunState, type RunState } from './engine/run-state.js';
import { WorkflowError } from './errors.js';
import type { ResumeData } from './graph/graph-types.js';
import type { WorkflowGraph } from './graph/workflow-graph.js';

export interface WorkflowOptions {
  /** A name for the workflow (its agent's name). */
  name?: string;
  description?: string;
  /** Where checkpoints go after each superstep (none by default). */
  checkpoints?: CheckpointStore;
  /** Nodes of one superstep run at most this many at once (default 8). */
  maxParallel?: number;
  /** The whole run, across supersteps. */
  timeoutMs?: number;
}

export interface RunOptions {
  /** Names the run's checkpoints (default a random UUID). */
  runId?: string;
  signal?: AbortSignal;
  /** Overrides the workflow's store for this run. */
  checkpoints?: CheckpointStore;
  timeoutMs?: number;
  maxParallel?: number;
  /** Every event, as it happens (also when only `result` is read). */
  onEvent?: (event: WorkflowEvent) => void;
}

export interface ResumeOptions extends Omit<RunOptions, 'runId'> {
  runId?: string;
  /** The checkpoint to continue from (default the run's newest). */
  checkpointId?: string;
  /** Continue from this state instead of a stored checkpoint (`result.state` of a halted run). */
  state?: RunState;
  /** Answers of paused human-input nodes, by node id. */
  answers?: Record<string, JSONValue>;
  /** The answer when one node is paused. */
  answer?: JSONValue;
  /** Decisions for paused tool approvals (agent nodes). */
  approvals?: readonly ApprovalResponse[];
}

/**
 * One run: iterate it for the events, or await `result` for the outcome (then events reach only
 * `onEvent`, and none are kept).
 */
export class WorkflowRun implements AsyncIterable<WorkflowEvent> {
  private started: Promise<WorkflowResult> | undefined;
  private queue: EventQueue<WorkflowEvent> | undefined;

  constructor(
    private readonly start: (emit: (event: WorkflowEvent) => void) => Promise<WorkflowResult>,
    private readonly onEvent?: (event: WorkflowEvent) => void,
  ) {}

  get result(): Promise<WorkflowResult> {
    this.started ??= this.start((event) => {
      this.onEvent?.(event);
      this.queue?.push(event);
    });
    return this.started;
  }

  [Symbol.asyncIterator](): AsyncIterator<WorkflowEvent> {
    if (this.started) throw new Error('this run has started; iterate it before reading result');
    const queue = new EventQueue<WorkflowEvent>();
    this.queue = queue;
    this.result.then(
      () => queue.end(),
      (error: unknown) => queue.fail(error),
    );
    return queue[Symbol.asyncIterator]();
  }
}

/**
 * A graph with its run settings. `run(input)` starts a run; `resume(...)` continues one from a
 * checkpoint (refused when the graph changed since); `asAgent()` makes it an agent.
 */
export class Workflow {
  readonly graph: WorkflowGraph;
  readonly name: string;
  readonly description: string | undefined;
  readonly options: WorkflowOptions;

  constructor(graph: WorkflowGraph, options: WorkflowOptions = {}) {
    this.graph = graph;
    this.options = options;
    this.name = options.name ?? 'workflow';
    this.description = options.description;
  }

  run(input: JSONValue, options: RunOptions = {}): WorkflowRun {
    return new WorkflowRun(async (emit) => {
      const run: RunState = {
        version: 1,
        runId: options.runId ?? randomUUID(),
        fingerprint: this.graph.fingerprint,
        step: 0,
        status: 'running',
        pending: [[this.graph.startNodeId, [input]]],
        fanIn: {},
        state: {},
        nodeState: {},
        edgeCounts: {},
        outputs: [],
        halted: [],
      };
      emit({
        type: 'workflow-started',
        runId: run.runId,
        startNodeId: this.graph.startNodeId,
        nodeIds: [...this.graph.nodes.keys()],
      });
      return executeRun(this.engineOptions(options, emit), run, new Map(), undefined);
    }, options.onEvent);
  }

  resume(options: ResumeOptions): WorkflowRun {
    return new WorkflowRun(async (emit) => {
      const store = options.checkpoints ?? this.options.checkpoints;
      let run: RunState;
      let parentId: string | undefined;
      if (options.state) run = parseRunState(structuredClone(options.state));
      else {
        if (!options.runId) throw new WorkflowError('no-checkpoint', 'resume needs a runId (or a state)');
        if (!store) throw new WorkflowError('no-checkpoint', 'resume needs a checkpoint store (or a state)');
        const checkpoint = await store.load(options.runId, options.checkpointId, {
          ...(options.signal && { signal: options.signal }),
        });
        if (!checkpoint)
          throw new WorkflowError(
            'no-checkpoint',
            `no checkpoint ${options.checkpointId ? `"${options.checkpointId}" ` : ''}for run "${options.runId}"`,
          );
        run = parseRunState(checkpoint.state);
        parentId = checkpoint.id;
      }
      if (run.fingerprint !== this.graph.fingerprint) {
        throw new WorkflowError(
          'fingerprint-mismatch',
          `cannot resume run "${run.runId}": its checkpoint was taken on another graph (fingerprint ${run.fingerprint}, this workflow is ${this.graph.fingerprint}); the workflow changed since — start a new run`,
        );
      }
      const resume = resumeData(run, options);
      emit({
        type: 'resumed',
        runId: run.runId,
        step: run.step,
        ...(parentId !== undefined && { checkpointId: parentId }),
      });
      if (run.status === 'completed') {
        emit({ type: 'completed', runId: run.runId, outputs: run.outputs });
        return { runId: run.runId, status: 'completed', outputs: run.outputs, halted: [], state: run };
      }
      run.pending = [...run.halted.map((h): [string, JSONValue[]] => [h.nodeId, [h.input]]), ...run.pending];
      run.halted = [];
      run.status = 'running';
      return executeRun(this.engineOptions(options, emit), run, resume, parentId);
    }, options.onEvent);
  }

  private engineOptions(options: RunOptions, emit: (event: WorkflowEvent) => void): EngineOptions {
    return {
      graph: this.graph,
      store: options.checkpoints ?? this.options.checkpoints,
      signal: options.signal,
      timeoutMs: options.timeoutMs ?? this.options.timeoutMs,
      maxParallel: options.maxParallel ?? this.options.maxParallel ?? 8,
      emit,
    };
  }
}

/** Matches the caller's answers to the paused nodes; a paused node left without one is an error. */
function resumeData(run: RunState, options: ResumeOptions): Map<string, ResumeData> {
  const data = new Map<string, ResumeData>();
  for (const halted of run.halted) {
    if (halted.request.kind === 'approval') {
      if (!options.approvals)
        throw new WorkflowError(
          'not-halted',
          `run "${run.runId}" is waiting for approval of ${halted.request.requests.map((r) => r.name).join(', ')} at node "${halted.nodeId}": resume with approvals`,
          { nodeId: halted.nodeId },
        );
      data.set(halted.nodeId, { approvals: options.approvals });
      continue;
    }
    const answer = options.answers?.[halted.nodeId] ?? (run.halted.length === 1 ? options.answer : undefined);
    if (answer === undefined)
      throw new WorkflowError(
        'not-halted',
        `run "${run.runId}" is waiting for input at node "${halted.nodeId}" (${halted.request.prompt}): resume with an answer`,
        { nodeId: halted.nodeId },
      );
    data.set(halted.nodeId, { answer });
  }
  return data;
}
