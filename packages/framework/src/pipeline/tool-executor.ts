import type { Span } from '@opentelemetry/api';
import {
  getErrorMessage,
  type ITool,
  type JSONValue,
  safeParseToolResult,
  type ToolCall,
  type ToolResult,
  type ToolResume,
  toolFailure,
} from '@raf/core';
import type { CallRecorder } from '../run/turn-recorder.js';
import { manifestOf } from '../runtime-policy/builtin-manifests.js';
import type { RunTrace } from '../telemetry/run-trace.js';
import { CallWatchdog } from './call-watchdog.js';
import type { InputRequestHandler } from './input-requests.js';
import type { LoopHooks } from './step-hooks.js';
import { CALL_CANCELLED, CALL_TIMED_OUT, type ProgressSink, ToolCallContext } from './tool-call-context.js';
import { ToolSuspension } from './tool-suspension.js';
import { ToolTimeouts } from './tool-timeouts.js';

/** A call ready to run, or already answered (`preset`: not found, invalid, denied, guarded). */
export interface PreparedCall {
  call: ToolCall;
  tool?: ITool;
  args?: JSONValue;
  /** The arguments as the tool's `validateArguments` returned them; `execute` gets these. */
  validated?: unknown;
  preset?: ToolResult;
  /** The target the caller approved; the call is refused if the tool now resolves another. */
  approvedTarget?: string;
  /** A human approved this call (resume); other calls are re-asked just before they run. */
  approved?: boolean;
  /** The call suspended the run earlier: its saved state and the answers to its requests. */
  resume?: ToolResume;
}

/** What every call of one loop run shares. */
export interface ToolRun {
  signal: AbortSignal;
  context: unknown;
  sessionId: string | undefined;
  timeouts: ToolTimeouts;
  sink: ProgressSink | undefined;
  /** The time limits of the running batch (one timer for all its calls). */
  watchdog: CallWatchdog;
  /** Set only when a tool hook or tracing wants per-call events (nothing is timed otherwise). */
  observer: ToolObserver | undefined;
  /** Calls of the running batch that suspended (`ToolSuspension`), by call id; made on the first. */
  suspensions?: Map<string, ToolSuspension>;
  /** Told before calls start and as each result completes (the turn journal). */
  recorder?: CallRecorder | undefined;
  /** Answers the questions calls put to the user (`ctx.requestInput`). */
  onInputRequest?: InputRequestHandler | undefined;
}

/** The placeholder result of a suspended call: never sent to the model (the batch pauses). */
export const SUSPENDED_RESULT: ToolResult = Object.freeze({
  ok: false,
  error: 'Suspended: waiting for approval',
}) as ToolResult;

/** Per-call events: the `onToolStart`/`onToolEnd` hooks and the `execute_tool` spans. */
export interface ToolObserver {
  hooks: LoopHooks | undefined;
  trace: RunTrace | undefined;
  /** Hook failures, shown as `warning` updates after the batch. */
  warnings: string[];
}

export const CANCELLED_RESULT: ToolResult = Object.freeze({
  ok: false,
  error: 'Agent run cancelled',
}) as ToolResult;

/** A run with nothing but a signal: default timeouts, no context, hooks or tracing. */
function plainRun(signal: AbortSignal): ToolRun {
  return {
    signal,
    context: undefined,
    sessionId: undefined,
    timeouts: new ToolTimeouts(),
    sink: undefined,
    watchdog: new CallWatchdog(),
    observer: undefined,
  };
}

type Ending = 'ok' | 'failed' | 'timeout' | 'cancelled';

/**
 * One call's result: answered in advance (returned as it is), or executed. Not `async`: most calls
 * go straight to `execute`, without a promise and a turn of their own on the way.
 */
function runOne(prepared: PreparedCall, run: ToolRun): Promise<ToolResult> | ToolResult {
  if (prepared.preset) return prepared.preset;
  const { tool, call } = prepared;
  if (!tool) return toolFailure(`Tool '${call.name}' not found`);
  if (run.signal.aborted) return CANCELLED_RESULT;
  // The gate was decided once, before the batch ran (`planApprovals`), and is not asked again
  // here: a tool whose judgement can change since (a folder swapped for a link) judges its own
  // paths again as it executes (the built-in file tools do), which is the race guard.
  if (prepared.approvedTarget !== undefined && tool.resolveTarget) return runApproved(prepared, tool, run);
  return execute(prepared, tool, run);
}

/** An approved call bound to the target the human was shown: refused if it now resolves another. */
async function runApproved(prepared: PreparedCall, tool: ITool, run: ToolRun): Promise<ToolResult> {
  try {
    const now = await tool.resolveTarget!(prepared.args);
    if (now !== prepared.approvedTarget) {
      return toolFailure(
        `Refused: the approval was for '${prepared.approvedTarget}', but the call now resolves to '${now ?? '(nothing)'}'`,
      );
    }
  } catch (error) {
    if (run.signal.aborted) return CANCELLED_RESULT;
    return toolFailure(`Framework error: ${getErrorMessage(error)}`);
  }
  return execute(prepared, tool, run);
}

export function approvalContext(call: ToolCall, run: Pick<ToolRun, 'sessionId' | 'context'>) {
  return run.sessionId === undefined
    ? { callId: call.id, context: run.context }
    : { callId: call.id, sessionId: run.sessionId, context: run.context };
}

async function execute(prepared: PreparedCall, tool: ITool, run: ToolRun): Promise<ToolResult> {
  const { call } = prepared;
  const ctx = new ToolCallContext(
    run.signal,
    call.name,
    call.id,
    run.sessionId,
    run.context,
    run.timeouts.of(tool),
    run.sink,
    run.watchdog,
  );
  let args: unknown = prepared.args;
  if (prepared.validated !== undefined) {
    args = prepared.validated;
    ctx.argumentsValidated = true;
  }
  // A tool that judges its own calls again as it runs (the built-in file tools) needs to know.
  if (prepared.approved) ctx.approved = true;
  if (prepared.approvedTarget !== undefined) ctx.approvedTarget = prepared.approvedTarget;
  if (prepared.resume) ctx.resume = prepared.resume;
  if (run.onInputRequest) ctx.inputHandler = run.onInputRequest;
  const observer = run.observer;
  let started = 0;
  let span: Span | undefined;
  if (observer) {
    started = performance.now();
    span = observer.trace?.startTool(call.name, call.id, tool.description, prepared.args);
    if (observer.hooks?.onToolStart) {
      try {
        observer.hooks.onToolStart({ callId: call.id, name: call.name, args: prepared.args });
      } catch (error) {
        observer.warnings.push(`onToolStart hook failed: ${getErrorMessage(error)}`);
      }
    }
  }
  let result: ToolResult;
  let ending: Ending = 'ok';
  let thrown: unknown;
  try {
    const work =
      span && observer?.trace
        ? observer.trace.withSpan(span, () => tool.execute(args, ctx))
        : tool.execute(args, ctx);
    const outcome = await ctx.watch(work);
    if (outcome === CALL_CANCELLED) {
      result = CANCELLED_RESULT;
      ending = 'cancelled';
    } else if (outcome === CALL_TIMED_OUT) {
      result = toolFailure(ctx.timeoutMessage());
      ending = 'timeout';
    } else {
      const parsed = safeParseToolResult(outcome);
      result = parsed.success
        ? parsed.value
        : toolFailure(`Framework error: tool ${tool.name} returned no ToolResult (${parsed.error})`);
      if (!result.ok) ending = 'failed';
    }
  } catch (error) {
    if (run.signal.aborted) {
      result = CANCELLED_RESULT;
      ending = 'cancelled';
    } else if (ToolSuspension.isInstance(error) && error.requests.length > 0) {
      result = SUSPENDED_RESULT;
      run.suspensions ??= new Map();
      run.suspensions.set(call.id, error);
    } else if (ctx.timedOut) {
      result = toolFailure(ctx.timeoutMessage());
      ending = 'timeout';
    } else {
      result = toolFailure(`Framework error: ${getErrorMessage(error)}`);
      ending = 'failed';
      thrown = error;
    }
  } finally {
    ctx.dispose();
  }
  if (observer) {
    if (span) observer.trace?.endTool(span, result, ending, thrown);
    if (observer.hooks?.onToolEnd) {
      try {
        observer.hooks.onToolEnd({
          callId: call.id,
          name: call.name,
          result,
          durationMs: performance.now() - started,
        });
      } catch (error) {
        observer.warnings.push(`onToolEnd hook failed: ${getErrorMessage(error)}`);
      }
    }
  }
  return result;
}

/**
 * Runs one model turn's calls. Consecutive `parallel` calls run together; a `sequential` call
 * (writes, edits, moves, delegation) waits for everything before it and runs alone. Results come
 * back in call order whatever order they finished in. With a recorder, each group's calls are
 * recorded as started before any of them runs, and each result as it completes (awaited: a step
 * is kept before the next begins).
 */
export async function executeCalls(
  calls: readonly PreparedCall[],
  runOrSignal: ToolRun | AbortSignal,
): Promise<ToolResult[]> {
  const own = runOrSignal instanceof AbortSignal;
  const run = own ? plainRun(runOrSignal) : runOrSignal;
  const recorder = run.recorder;
  const results: ToolResult[] = new Array(calls.length);
  const settle = (i: number, result: ToolResult): Promise<void> | void => {
    results[i] = result;
    // A suspended call has no result yet: it runs again on resume.
    if (recorder && result !== SUSPENDED_RESULT) return recorder.result(calls[i]!.call, result);
  };
  try {
    let i = 0;
    while (i < calls.length) {
      const start = i;
      if (isSequential(calls[i]!)) i++;
      else while (i < calls.length && !isSequential(calls[i]!)) i++;
      // Awaited only when the recorder writes (a journal): the in-memory one returns nothing.
      const started = recorder?.started(startedIds(calls, start, i));
      if (started) await started;
      if (i - start === 1) {
        const settled = settle(start, await runOne(calls[start]!, run));
        if (settled) await settled;
        continue;
      }
      const group: (Promise<void> | void)[] = [];
      for (let j = start; j < i; j++) {
        const result = runOne(calls[j]!, run);
        group.push(result instanceof Promise ? result.then((r) => settle(j, r)) : settle(j, result));
      }
      await Promise.all(group);
    }
  } finally {
    // The run's watchdog outlives the batch (the runner stops it when the run ends).
    if (own) run.watchdog.stop();
    else run.watchdog.idle();
  }
  return results;
}

function isSequential(prepared: PreparedCall): boolean {
  return (
    prepared.tool !== undefined &&
    !prepared.preset &&
    manifestOf(prepared.tool).executionMode === 'sequential'
  );
}

/** The calls of `calls[from, to)` that will run (not answered in advance). */
function startedIds(calls: readonly PreparedCall[], from: number, to: number): string[] {
  const ids: string[] = [];
  for (let i = from; i < to; i++) if (!calls[i]!.preset) ids.push(calls[i]!.call.id);
  return ids;
}
