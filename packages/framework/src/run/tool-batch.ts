import {
  type AgentResponseUpdate,
  type ChatMessage,
  getErrorMessage,
  type PendingApprovalBatch,
  RafError,
  type ToolCall,
  type ToolResult,
  toolResultMessage,
} from '@raf/core';
import type { PlannedApproval } from '../pipeline/prepare-calls.js';
import type { ProgressChannel } from '../pipeline/progress-channel.js';
import { executeCalls, type PreparedCall } from '../pipeline/tool-executor.js';
import type { ToolSuspension } from '../pipeline/tool-suspension.js';
import type { RunState } from './run-state.js';
import type { StepDeps } from './step.js';

/** A batch of calls executing, and the channel their progress lines arrive on. */
export interface RunningBatch {
  readonly prepared: PreparedCall[];
  readonly execution: Promise<ToolResult[]>;
  readonly channel: ProgressChannel;
}

/**
 * Starts a batch. The step waits with `batch.channel.next(batch.execution)`: the results, or
 * `PROGRESS` when lines are waiting (it yields `batch.channel.drain()` and waits again), then
 * `endBatch`. Plain functions, not a generator inside the step's generator: a round then costs
 * no generator object and no extra turns to pass each batch of updates through.
 */
export function startBatch(prepared: PreparedCall[], deps: Pick<StepDeps, 'calls'>): RunningBatch {
  const run = deps.calls;
  const execution = executeCalls(prepared, run).catch((error: unknown) => {
    // executeCalls turns tool failures into results: what reaches here is the journal refusing a
    // step (a lost lease: `SessionConflictError`, CLI exit 5), kept as it is, or a bug worth surfacing.
    if (RafError.isInstance(error)) throw error;
    throw new Error(`tool execution failed: ${getErrorMessage(error)}`, { cause: error });
  });
  return { prepared, execution, channel: run.sink as ProgressChannel };
}

/**
 * The batch's end: its results go to the conversation (state and journal) and `updates` is what
 * to yield (the last progress lines, then the results in call order). When a call suspended
 * (`ToolSuspension`), nothing goes to the conversation: the batch is paused with the other
 * calls' results (`state.pending`), returned as `suspended`, and `updates` holds only progress.
 */
export function endBatch(
  batch: RunningBatch,
  results: ToolResult[],
  state: RunState,
  deps: Pick<StepDeps, 'calls' | 'journal'>,
): { updates: AgentResponseUpdate[]; called: AgentResponseUpdate[]; suspended?: PendingApprovalBatch } {
  const { prepared, channel } = batch;
  const run = deps.calls;
  const suspensions = run.suspensions;
  if (suspensions && suspensions.size > 0) {
    run.suspensions = undefined;
    const paused = pausedBatch(prepared, results, suspensions, state.round);
    state.pending = paused;
    deps.journal.pending(paused);
    return { updates: channel.drain(), called: [], suspended: paused };
  }
  const produced: ChatMessage[] = [];
  const called: AgentResponseUpdate[] = channel.drain();
  for (let i = 0; i < prepared.length; i++) {
    const { call } = prepared[i]!;
    const result = results[i]!;
    produced.push(toolResultMessage(result, call.id));
    called.push({ type: 'tool-called', callId: call.id, name: call.name, result });
  }
  const warnings = run.observer?.warnings;
  if (warnings && warnings.length > 0) {
    for (const message of warnings.splice(0)) called.push({ type: 'warning', message });
  }
  deps.journal.messages(produced);
  for (const message of produced) state.messages.push(message);
  return { updates: called, called };
}

/** The batch paused by suspended calls: the others' results kept, each suspended call's state and requests. */
function pausedBatch(
  prepared: readonly PreparedCall[],
  results: readonly ToolResult[],
  suspensions: ReadonlyMap<string, ToolSuspension>,
  round: number,
): PendingApprovalBatch {
  const done: Record<string, ToolResult> = {};
  const suspended: NonNullable<PendingApprovalBatch['suspended']> = {};
  const gatedCallIds: string[] = [];
  for (let i = 0; i < prepared.length; i++) {
    const id = prepared[i]!.call.id;
    const suspension = suspensions.get(id);
    if (suspension) {
      suspended[id] = { requests: suspension.requests, state: suspension.state };
      for (const request of suspension.requests) gatedCallIds.push(request.callId);
    } else done[id] = results[i]!;
  }
  const batch: PendingApprovalBatch = {
    toolCalls: prepared.map((p) => p.call),
    gatedCallIds,
    round,
    suspended,
  };
  if (Object.keys(done).length > 0) batch.results = done;
  return batch;
}

/**
 * The batch paused on gated calls. `prepared` answers kept with it (calls in doubt after a crash)
 * are its `results`: the resume never runs them.
 */
export function pausedForApproval(
  calls: ToolCall[],
  approvals: readonly PlannedApproval[],
  round: number,
  prepared?: readonly PreparedCall[],
): PendingApprovalBatch {
  const batch: PendingApprovalBatch = {
    toolCalls: calls,
    gatedCallIds: approvals.map((a) => a.update.callId),
    round,
  };
  const targets: Record<string, string> = {};
  let targeted = false;
  for (const a of approvals) {
    if (a.target === undefined) continue;
    targets[a.update.callId] = a.target;
    targeted = true;
  }
  if (targeted) batch.resolvedTargets = targets;
  const results: Record<string, ToolResult> = {};
  let answered = false;
  for (const p of prepared ?? []) {
    if (!p.preset) continue;
    results[p.call.id] = p.preset;
    answered = true;
  }
  if (answered) batch.results = results;
  return batch;
}

/** Ids of the calls answered by tool messages at the end of the conversation. */
export function answeredCalls(conversation: readonly ChatMessage[]): Set<string> {
  const ids = new Set<string>();
  for (let i = conversation.length - 1; i >= 0; i--) {
    const message = conversation[i]!;
    if (message.role !== 'tool') break;
    if (message.toolCallId !== undefined) ids.add(message.toolCallId);
  }
  return ids;
}

/** The approval requests of the suspended calls, in call order. */
export function suspendedRequests(batch: PendingApprovalBatch): AgentResponseUpdate[] {
  return Object.values(batch.suspended ?? {}).flatMap((s) => s.requests);
}
