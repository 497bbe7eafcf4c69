import {
  getErrorMessage,
  type ITool,
  type JSONValue,
  safeParseToolResult,
  type ToolCall,
  type ToolExecutionContext,
  type ToolResult,
  toolFailure,
} from '@raf/core';
import { manifestOf } from '../runtime-policy/builtin-manifests.js';

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
}

/** The signal of a run nobody can cancel: watching it would only cost listeners. */
export const NEVER_ABORTED: AbortSignal = new AbortController().signal;

export const CANCELLED_RESULT: ToolResult = Object.freeze({
  ok: false,
  error: 'Agent run cancelled',
}) as ToolResult;

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | typeof CANCELLED_RESULT> {
  if (signal.aborted) return Promise.resolve(CANCELLED_RESULT);
  if (signal === NEVER_ABORTED) return work;
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(CANCELLED_RESULT);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
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

async function runOne(
  prepared: PreparedCall,
  signal: AbortSignal,
  sessionId: string | undefined,
): Promise<ToolResult> {
  if (prepared.preset) return prepared.preset;
  const { tool, call } = prepared;
  if (!tool) return toolFailure(`Tool '${call.name}' not found`);
  if (signal.aborted) return CANCELLED_RESULT;
  try {
    if (prepared.approvedTarget !== undefined && tool.resolveTarget) {
      const now = await tool.resolveTarget(prepared.args);
      if (now !== prepared.approvedTarget) {
        return toolFailure(
          `Refused: the approval was for '${prepared.approvedTarget}', but the call now resolves to '${now ?? '(nothing)'}'`,
        );
      }
    }
    // The gate was asked before the batch ran; a path can change since (a folder swapped for a
    // link). A call nobody approved that would now need approval is refused, not run.
    if (!prepared.approved && tool.requiresApproval && (await tool.requiresApproval(prepared.args))) {
      return toolFailure(
        `Refused: ${call.name} now needs approval (its target changed after it was checked); call it again`,
      );
    }
    const context: ToolExecutionContext = { signal, callId: call.id };
    if (sessionId !== undefined) context.sessionId = sessionId;
    // A tool that judges its own calls again as it runs (the built-in file tools) needs to know.
    if (prepared.approved) context.approved = true;
    if (prepared.approvedTarget !== undefined) context.approvedTarget = prepared.approvedTarget;
    let args: unknown = prepared.args;
    if (prepared.validated !== undefined) {
      args = prepared.validated;
      context.argumentsValidated = true;
    }
    // A tool that ignores the signal cannot hold a cancelled run: its late result is dropped.
    const result = await untilAborted(tool.execute(args, context), signal);
    if (result === CANCELLED_RESULT) return result;
    const parsed = safeParseToolResult(result);
    return parsed.success
      ? parsed.value
      : toolFailure(`Framework error: tool ${tool.name} returned no ToolResult (${parsed.error})`);
  } catch (error) {
    if (signal.aborted) return CANCELLED_RESULT;
    return toolFailure(`Framework error: ${getErrorMessage(error)}`);
  }
}

/**
 * Runs one model turn's calls. Consecutive `parallel` calls run together; a `sequential` call
 * (writes, edits, moves, delegation) waits for everything before it and runs alone. Results come
 * back in call order whatever order they finished in.
 */
export async function executeCalls(
  calls: readonly PreparedCall[],
  signal: AbortSignal,
  sessionId?: string,
): Promise<ToolResult[]> {
  const results: ToolResult[] = new Array(calls.length);
  let group: Promise<void>[] = [];
  for (let i = 0; i < calls.length; i++) {
    const prepared = calls[i]!;
    const sequential =
      prepared.tool !== undefined &&
      !prepared.preset &&
      manifestOf(prepared.tool).executionMode === 'sequential';
    if (sequential) {
      await Promise.all(group);
      group = [];
      results[i] = await runOne(prepared, signal, sessionId);
    } else {
      group.push(
        runOne(prepared, signal, sessionId).then((result) => {
          results[i] = result;
        }),
      );
    }
  }
  await Promise.all(group);
  return results;
}
