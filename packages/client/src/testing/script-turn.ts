import type { AgentResponseUpdate, FinishReason, JSONValue, Usage } from '@raf/core';

export interface ScriptToolCall {
  /** Defaults to `call_<turn>_<position>`. */
  id?: string;
  name: string;
  /** A JSON text, or a value that is serialized. */
  arguments?: string | JSONValue;
}

/** One model turn, as both the scripted client and the mock server understand it. */
export interface ScriptTurn {
  text?: string;
  /** The text as explicit chunks (otherwise it is split after each space). */
  textChunks?: string[];
  reasoning?: string;
  toolCalls?: ScriptToolCall[];
  /** Defaults to `toolCalls` when there are calls, else `stop`. */
  finishReason?: FinishReason;
  usage?: Usage;
  id?: string;
  model?: string;
}

export function callArguments(call: ScriptToolCall): string {
  if (call.arguments === undefined) return '{}';
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
}

export function callId(call: ScriptToolCall, turn: number, position: number): string {
  return call.id ?? `call_${turn}_${position}`;
}

export function textChunks(turn: ScriptTurn): string[] {
  if (turn.textChunks) return turn.textChunks;
  if (!turn.text) return [];
  return turn.text.match(/\S*\s*/g)?.filter((piece) => piece !== '') ?? [turn.text];
}

export function turnFinishReason(turn: ScriptTurn): FinishReason {
  return turn.finishReason ?? (turn.toolCalls && turn.toolCalls.length > 0 ? 'toolCalls' : 'stop');
}

/** The updates a real client would yield for this turn. */
export function scriptTurnToUpdates(turn: ScriptTurn, turnIndex: number): AgentResponseUpdate[] {
  const updates: AgentResponseUpdate[] = [];
  if (turn.id !== undefined || turn.model !== undefined) {
    const metadata: AgentResponseUpdate = { type: 'response-metadata' };
    if (turn.id !== undefined) metadata.id = turn.id;
    if (turn.model !== undefined) metadata.model = turn.model;
    updates.push(metadata);
  }
  if (turn.reasoning) updates.push({ type: 'reasoning-delta', delta: turn.reasoning });
  for (const delta of textChunks(turn)) updates.push({ type: 'text-delta', delta });
  const calls = (turn.toolCalls ?? []).map((call, i) => ({
    id: callId(call, turnIndex, i),
    name: call.name,
    args: callArguments(call),
  }));
  for (const call of calls) {
    updates.push({ type: 'tool-call-start', callId: call.id, name: call.name });
    updates.push({ type: 'tool-call-args', callId: call.id, delta: call.args });
  }
  for (const call of calls) {
    updates.push({ type: 'tool-call-end', callId: call.id, name: call.name, arguments: call.args });
  }
  if (turn.usage) updates.push({ type: 'usage', usage: turn.usage });
  const finish: AgentResponseUpdate = { type: 'finish', reason: turnFinishReason(turn) };
  if (turn.usage) finish.usage = turn.usage;
  updates.push(finish);
  return updates;
}
