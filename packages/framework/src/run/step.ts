import {
  type AgentResponseUpdate,
  assistantMessage,
  CancelledError,
  type ChatClientRunOptions,
  type ChatMessage,
  type FinishUpdate,
  type IChatClient,
  type PendingApprovalBatch,
} from '@raf/core';
import { updateBatches } from '@raf/core/internal';
import type { LoopGuard } from '../pipeline/loop-guard.js';
import {
  anyGated,
  type PlannedApproval,
  planApprovals,
  prepareCalls,
  prepareResumedCalls,
} from '../pipeline/prepare-calls.js';
import { PROGRESS } from '../pipeline/progress-channel.js';
import type { LoopHooks, StepResult } from '../pipeline/step-hooks.js';
import { prepareStep, type StepRequest, stepFinished, type ToolIndex } from '../pipeline/step-runner.js';
import type { PreparedCall, ToolRun } from '../pipeline/tool-executor.js';
import type { RunTrace } from '../telemetry/run-trace.js';
import { prepareInterruptedCalls } from './interrupted-turn.js';
import { TurnReader } from './model-turn.js';
import type { RunState } from './run-state.js';
import { answeredCalls, endBatch, pausedForApproval, startBatch, suspendedRequests } from './tool-batch.js';

/** What the runner does after a step. */
export type RunNext =
  /** The model answered without calling tools: the run ends with its finish. */
  | { type: 'final'; finish: FinishUpdate }
  /** Tools ran: the model is called again (unless a stop condition or the round limit says no). */
  | { type: 'again' }
  /** Waiting for a human (gated calls, a call that suspended): `state.pending` holds the batch. */
  | { type: 'paused' }
  | { type: 'cancelled' }
  /** The model's answer ended in an `error` update. */
  | { type: 'failed' }
  | { type: 'stopped'; reason: StopReason };

export type StopReason = 'loopGuard' | 'stopCondition' | 'maxRounds';

export interface StepOutcome {
  state: RunState;
  next: RunNext;
}

/** Where each change a step makes to the run is kept as it happens (the session and its journal). */
export interface RunJournal {
  /** Messages the step added to the conversation, in order: an assistant turn before its calls run. */
  messages(messages: ChatMessage[]): void;
  /** The batch the run paused on (`undefined`: the paused batch was taken up and runs now). */
  pending(batch: PendingApprovalBatch | undefined): void;
  /**
   * The changes so far are durable once this settles (the turn journal; nothing to wait for
   * without one). A paused batch is written before its requests are shown: a crash while a human
   * decides resumes as a paused approval, not as a turn without its model answer.
   */
  flush(): Promise<void> | void;
}

/** What a step works with besides the state. */
export interface StepDeps {
  /** The model: a leaf client, or one in model-level decorators (every model call passes them). */
  client: IChatClient;
  /** The tools this step offers (governance and views applied), with their definitions. */
  tools: ToolIndex;
  /** This step's model request: the tools' definitions, the signal, the run's model options. */
  request: ChatClientRunOptions;
  /** What every tool call of the run shares: signal, context, timeouts, progress, the recorder. */
  calls: ToolRun;
  journal: RunJournal;
  guard: LoopGuard;
  hooks: LoopHooks | undefined;
  /** The run's trace (`undefined`: nothing records). */
  trace: RunTrace | undefined;
  /** The steps so far, kept when stop conditions or `onStepFinish` read them (timed then). */
  steps: StepResult[] | undefined;
  timed: boolean;
}

const AGAIN: RunNext = Object.freeze({ type: 'again' });
const PAUSED: RunNext = Object.freeze({ type: 'paused' });
const CANCELLED: RunNext = Object.freeze({ type: 'cancelled' });
const FAILED: RunNext = Object.freeze({ type: 'failed' });
const DEFAULT_FINISH: FinishUpdate = Object.freeze({ type: 'finish', reason: 'stop' });

/**
 * Advances the run by one step and says what comes next. Its updates stream out as it goes (one
 * batch per network read of the model); it returns the state after the step (the same object,
 * advanced) and `next`. A state holding answers to its paused batch, or a turn a crash
 * interrupted, runs those calls first, without a model call. Otherwise: one model call, then its
 * calls through one pipeline: arguments checked, the approval gate decided once per call, the
 * calls executed (a tool re-checks its own paths as it executes: the race guard stays there).
 */
export function step(
  state: RunState,
  deps: StepDeps,
): AsyncGenerator<readonly AgentResponseUpdate[], StepOutcome, undefined> {
  return state.approvals !== undefined || state.interrupted !== undefined
    ? resumeStep(state, deps)
    : modelStep(state, deps);
}

async function* resumeStep(
  state: RunState,
  deps: StepDeps,
): AsyncGenerator<readonly AgentResponseUpdate[], StepOutcome, undefined> {
  let prepared: PreparedCall[];
  const { pending, approvals, interrupted } = state;
  state.approvals = undefined;
  state.interrupted = undefined;
  if (approvals !== undefined && pending) {
    // The answered batch leaves the session before its calls run: a crash from here on leaves an
    // interrupted turn (calls in doubt), never a batch that could be approved twice.
    state.pending = undefined;
    deps.journal.pending(undefined);
    const decisions = new Map(approvals.map((a) => [a.callId, a]));
    // Results the journal kept before a crash are in the history already: not added twice.
    const answered = answeredCalls(state.messages);
    prepared = prepareResumedCalls(pending, decisions, deps.tools.byName).filter(
      (p) => !answered.has(p.call.id),
    );
  } else if (interrupted) {
    const turn = { calls: interrupted.calls, inDoubt: new Set(interrupted.inDoubt), round: state.round };
    prepared = prepareInterruptedCalls(turn, deps.tools.byName);
    const gated = anyGated(prepared) ? await planApprovals(prepared, deps.calls) : [];
    if (gated.length > 0) {
      yield await pause(state, deps, pausedForApproval(turn.calls, gated, state.round, prepared), gated);
      return { state, next: PAUSED };
    }
  } else return { state, next: AGAIN };
  const batch = startBatch(prepared, deps);
  let results = await batch.channel.next(batch.execution);
  for (; results === PROGRESS; results = await batch.channel.next(batch.execution))
    yield batch.channel.drain();
  const ran = endBatch(batch, results, state, deps);
  if (ran.updates.length > 0) yield ran.updates;
  if (deps.calls.signal.aborted) return { state, next: CANCELLED };
  if (ran.suspended) {
    yield await keptRequests(deps, suspendedRequests(ran.suspended));
    return { state, next: PAUSED };
  }
  return { state, next: AGAIN };
}

async function* modelStep(
  state: RunState,
  deps: StepDeps,
): AsyncGenerator<readonly AgentResponseUpdate[], StepOutcome, undefined> {
  const { hooks, trace, steps, timed } = deps;
  const started = timed ? performance.now() : 0;
  let request: StepRequest = { options: deps.request, byName: deps.tools.byName };
  if (hooks?.prepareStep) {
    const change = await prepareStep(hooks, state.round, state.messages, deps.tools, deps.request);
    request = change.request;
    if (change.messages) state.messages = change.messages;
  }
  // The model's batches pass straight through (no generator between): most updates of a run are these.
  const turn = new TurnReader(state);
  const chat = trace?.startChat(deps.client.modelId, deps.client.provider, request.options.modelOptions);
  try {
    for await (const batch of updateBatches(deps.client, state.messages, request.options)) {
      const forward = turn.read(batch);
      if (forward.length > 0) yield forward;
    }
  } catch (thrown) {
    if (chat) trace?.endChat(chat, { error: thrown });
    if (CancelledError.isInstance(thrown) || deps.calls.signal.aborted) return { state, next: CANCELLED };
    throw thrown;
  }
  if (chat) trace?.endChat(chat, turn.outcome());
  // A client may end a cancelled stream without throwing: its partial answer is not kept.
  if (deps.calls.signal.aborted) return { state, next: CANCELLED };
  if (turn.failed) return { state, next: FAILED };
  const assistant = assistantMessage(turn.text, turn.calls.length > 0 ? turn.calls : undefined);
  if (turn.reasoning) assistant.reasoning = turn.reasoning;
  if (turn.calls.length === 0) {
    deps.journal.messages([assistant]);
    state.messages.push(assistant);
    const finish = turn.finish ?? DEFAULT_FINISH;
    if (timed) {
      const warning = await stepFinished(hooks, steps, state.round, turn, [], finish.reason, started);
      if (warning) yield warning;
    }
    return { state, next: { type: 'final', finish } };
  }

  const prepared = prepareCalls(turn.calls, request.byName);
  const guarded = deps.guard.check(prepared);
  // Always asked, guard or not: a gated call never runs without its human decision.
  const gated = anyGated(prepared) ? await planApprovals(prepared, deps.calls) : [];
  // The assistant message is kept before its calls run: a crash then leaves an interrupted turn.
  deps.journal.messages([assistant]);
  state.messages.push(assistant);
  if (gated.length > 0) {
    if (timed) {
      const warning = await stepFinished(hooks, steps, state.round, turn, [], 'toolCalls', started);
      if (warning) yield warning;
    }
    yield await pause(state, deps, pausedForApproval(turn.calls, gated, state.round), gated);
    return { state, next: PAUSED };
  }
  // The calls run; their progress lines pass on as they come, then their results.
  const batch = startBatch(prepared, deps);
  let results = await batch.channel.next(batch.execution);
  for (; results === PROGRESS; results = await batch.channel.next(batch.execution))
    yield batch.channel.drain();
  const ran = endBatch(batch, results, state, deps);
  if (ran.updates.length > 0) yield ran.updates;
  if (deps.calls.signal.aborted) return { state, next: CANCELLED };
  if (timed) {
    const warning = await stepFinished(hooks, steps, state.round, turn, ran.called, 'toolCalls', started);
    if (warning) yield warning;
  }
  if (ran.suspended) {
    yield await keptRequests(deps, suspendedRequests(ran.suspended));
    return { state, next: PAUSED };
  }
  if (guarded) {
    yield [{ type: 'warning', code: 'loop-guard', message: guarded }];
    return { state, next: { type: 'stopped', reason: 'loopGuard' } };
  }
  return { state, next: AGAIN };
}

/** Keeps the paused batch (state, session, journal) and returns the approval requests to show. */
function pause(
  state: RunState,
  deps: StepDeps,
  batch: PendingApprovalBatch,
  gated: readonly PlannedApproval[],
): Promise<AgentResponseUpdate[]> {
  state.pending = batch;
  deps.journal.pending(batch);
  return keptRequests(
    deps,
    gated.map((a) => a.update),
  );
}

/**
 * The requests of a paused batch, once the batch (and the assistant message before it) is in the
 * journal: a reader that acts on a request (`raf run --approve all`, a human) finds it durable.
 */
async function keptRequests(deps: StepDeps, requests: AgentResponseUpdate[]): Promise<AgentResponseUpdate[]> {
  const flushed = deps.journal.flush();
  if (flushed) await flushed;
  return requests;
}
