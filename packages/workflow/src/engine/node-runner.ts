import { CancelledError, getErrorMessage, type JSONValue, RafError, TimeoutError } from '@raf/core';
import { timerDelay } from '@raf/core/internal';
import { WorkflowError } from '../errors.js';
import type {
  GraphNode,
  NodeContext,
  NodeResult,
  ResumeData,
  RetryOptions,
  WorkflowState,
} from '../graph/graph-types.js';
import type { WorkflowEvent } from './events.js';
import type { HaltedNode, RunState } from './run-state.js';

/** What one node did in a superstep. */
export interface NodeOutcome {
  nodeId: string;
  outputs: JSONValue[];
  yields: JSONValue[];
  halts: HaltedNode[];
  fallbacks: [target: string, message: JSONValue][];
}

export interface NodeRunnerContext {
  run: RunState;
  state: WorkflowState;
  signal: AbortSignal;
  emit: (event: WorkflowEvent) => void;
  resume: Map<string, ResumeData>;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });

function delayOf(retry: RetryOptions, attempt: number): number {
  const backoff = retry.backoff;
  if (!backoff) return 0;
  if (backoff.type === 'fixed') return backoff.delayMs;
  return Math.min(backoff.maxMs, backoff.baseMs * 2 ** (attempt - 1));
}

const isCancellation = (error: unknown) => CancelledError.isInstance(error);

/** Rejects with the signal's reason when it aborts first: an executor that ignores its signal cannot hold the run. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Runs a node on each of its messages of this superstep, with its retries and timeout. */
export async function runNode(
  node: GraphNode,
  messages: readonly JSONValue[],
  step: number,
  context: NodeRunnerContext,
): Promise<NodeOutcome> {
  const outcome: NodeOutcome = { nodeId: node.id, outputs: [], yields: [], halts: [], fallbacks: [] };
  for (const message of messages) {
    const resume = context.resume.get(node.id);
    context.resume.delete(node.id);
    await invoke(node, message, step, context, outcome, resume);
  }
  return outcome;
}

async function invoke(
  node: GraphNode,
  message: JSONValue,
  step: number,
  context: NodeRunnerContext,
  outcome: NodeOutcome,
  resume: ResumeData | undefined,
): Promise<void> {
  const { emit, run } = context;
  const retry = node.retry;
  const maxRetries = retry?.maxRetries ?? 0;
  for (let attempt = 1; ; attempt++) {
    const label = node.executor.label;
    emit({
      type: 'node-invoking',
      nodeId: node.id,
      step,
      attempt,
      ...(label !== undefined && label !== node.id && { label }),
    });
    const yields: JSONValue[] = [];
    let timer: NodeJS.Timeout | undefined;
    let signal = context.signal;
    if (node.timeoutMs !== undefined) {
      const controller = new AbortController();
      const ms = node.timeoutMs;
      timer = setTimeout(
        () =>
          controller.abort(
            new TimeoutError(`node "${node.id}" timed out after ${ms} ms`, { phase: 'total', timeoutMs: ms }),
          ),
        timerDelay(ms),
      );
      signal = AbortSignal.any([context.signal, controller.signal]);
    }
    const nodeContext: NodeContext = {
      nodeId: node.id,
      step,
      attempt,
      signal,
      state: context.state,
      resume,
      emit: (update) => emit({ type: 'node-streaming', nodeId: node.id, update }),
      yieldOutput: (value) => {
        yields.push(value);
      },
      getNodeState: () => run.nodeState[node.id],
      setNodeState: (value) => {
        if (value === undefined) delete run.nodeState[node.id];
        else run.nodeState[node.id] = value;
      },
    };
    try {
      const handled = node.executor.handle(message, nodeContext);
      const result: NodeResult =
        handled instanceof Promise ? await raceAbort(handled, signal) : (handled as NodeResult);
      if (result.halt) {
        outcome.halts.push({ nodeId: node.id, input: message, request: result.halt });
        outcome.yields.push(...yields);
        return;
      }
      outcome.yields.push(...yields);
      if (result.output !== undefined) outcome.outputs.push(result.output);
      emit({
        type: 'node-completed',
        nodeId: node.id,
        step,
        ...(result.output !== undefined && { output: result.output }),
      });
      return;
    } catch (error) {
      if (context.signal.aborted) throw context.signal.reason;
      const retrying =
        attempt <= maxRetries && (retry?.retryOn ? retry.retryOn(error) : !isCancellation(error));
      emit({
        type: 'node-failed',
        nodeId: node.id,
        step,
        attempt,
        message: getErrorMessage(error),
        retrying,
      });
      if (retrying) {
        await sleep(delayOf(retry as RetryOptions, attempt), context.signal);
        continue;
      }
      const exhausted = retry?.onExhausted ?? 'fail';
      if (exhausted === 'skip') return;
      if (typeof exhausted === 'object') {
        outcome.fallbacks.push([exhausted.fallback, message]);
        return;
      }
      if (WorkflowError.isInstance(error) && error.nodeId === node.id) throw error;
      throw new WorkflowError('node-failed', `node "${node.id}" failed: ${getErrorMessage(error)}`, {
        cause: error,
        nodeId: node.id,
      });
    } finally {
      if (timer) clearTimeout(timer);
    }
  }
}

/** The code and message of an error event. */
export function describeFailure(error: unknown): { code: string; message: string; nodeId?: string } {
  const nodeId = WorkflowError.isInstance(error) ? error.nodeId : undefined;
  return {
    code: RafError.isInstance(error) ? error.code : 'RAF_WORKFLOW',
    message: getErrorMessage(error),
    ...(nodeId !== undefined && { nodeId }),
  };
}
