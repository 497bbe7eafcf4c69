import {
  type ChatMessage,
  type ISession,
  type ITool,
  type ToolCall,
  type ToolResult,
  toolFailure,
  toolResultMessage,
} from '@raf/core';
import { prepareCalls } from '../pipeline/prepare-calls.js';
import type { PreparedCall } from '../pipeline/tool-executor.js';
import { manifestOf } from '../runtime-policy/builtin-manifests.js';

/**
 * A turn that stopped between the model asking for tools and all their results being kept (a
 * crash, a `kill -9`, a caller that stopped reading): the last assistant message has calls without
 * a tool result, and no batch is paused for approval.
 */
export interface InterruptedTurn {
  /** The calls without a result, in the order the model asked for them. */
  calls: ToolCall[];
  /** Those that started (journaled `calls-started`) and may or may not have taken effect. */
  inDoubt: ReadonlySet<string>;
  /** The tool round the turn was in. */
  round: number;
}

export const INTERRUPTED_ERROR =
  'Interrupted: the run stopped while this call was running; it may or may not have taken effect. ' +
  'Check before calling it again.';
export const NOT_STARTED_ERROR =
  'Not run: the run stopped before this call started, and the conversation went on with new input. ' +
  'Call it again if it is still needed.';

/** The session's interrupted turn, if its history ends in one (SPEC §14.1). */
export function interruptedTurn(session: ISession): InterruptedTurn | undefined {
  if (session.pendingApproval) return undefined;
  const messages = session.messages;
  let at = messages.length - 1;
  const answered = new Set<string>();
  while (at >= 0 && messages[at]!.role === 'tool') {
    const id = messages[at]!.toolCallId;
    if (id !== undefined) answered.add(id);
    at--;
  }
  const assistant = messages[at];
  if (assistant?.role !== 'assistant' || !assistant.toolCalls?.length) return undefined;
  const calls = assistant.toolCalls.filter((call) => !answered.has(call.id));
  if (calls.length === 0) return undefined;
  // A session that keeps no `inFlight` tells nothing: every call without a result is in doubt.
  const inFlight = session.inFlight;
  const inDoubt = new Set(
    inFlight === undefined
      ? calls.map((c) => c.id)
      : calls.filter((c) => inFlight.includes(c.id)).map((c) => c.id),
  );
  return { calls, inDoubt, round: roundOf(messages, at) };
}

/** Tool rounds of the turn before the assistant message at `at` (assistant tool calls since the last user message). */
function roundOf(messages: readonly ChatMessage[], at: number): number {
  let round = 0;
  for (let i = at - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === 'user') break;
    if (message.role === 'assistant' && message.toolCalls?.length) round++;
  }
  return round;
}

/**
 * The interrupted calls as the loop continues them: a call in doubt runs again only when its tool
 * says it is idempotent, else the model reads that it was interrupted; a call that never started
 * goes through the usual pipeline (arguments, approval gate, execution).
 */
export function prepareInterruptedCalls(
  turn: InterruptedTurn,
  tools: ReadonlyMap<string, ITool>,
): PreparedCall[] {
  return prepareCalls(turn.calls, tools).map((prepared) => {
    if (prepared.preset || !turn.inDoubt.has(prepared.call.id)) return prepared;
    if (prepared.tool && manifestOf(prepared.tool).idempotent === true) return prepared;
    return { call: prepared.call, preset: toolFailure(INTERRUPTED_ERROR) };
  });
}

/**
 * Closes an interrupted turn without running anything, when the caller goes on with new input:
 * each call without a result is answered with an error (in doubt, or never started), so the
 * history is whole again before the new input joins it.
 */
export function closingResults(turn: InterruptedTurn): ChatMessage[] {
  return turn.calls.map((call) => {
    const result: ToolResult = toolFailure(turn.inDoubt.has(call.id) ? INTERRUPTED_ERROR : NOT_STARTED_ERROR);
    return toolResultMessage(result, call.id);
  });
}
