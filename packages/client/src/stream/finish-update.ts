import type { AgentResponseUpdate, FinishReason, Usage } from '@raf/core';

// Both vocabularies: Chat Completions `finish_reason` and Messages `stop_reason`.
const FINISH: Record<string, FinishReason> = {
  stop: 'stop',
  end_turn: 'stop',
  stop_sequence: 'stop',
  length: 'length',
  max_tokens: 'length',
  tool_calls: 'toolCalls',
  function_call: 'toolCalls',
  tool_use: 'toolCalls',
  content_filter: 'contentFilter',
  refusal: 'contentFilter',
};

function mapFinishReason(raw: string): { reason: FinishReason; rawReason?: string } {
  const reason = FINISH[raw];
  return reason ? { reason } : { reason: 'other', rawReason: raw };
}

/**
 * The `finish` that ends an answer: the provider's reason mapped (or, when it sent none, what the
 * calls imply), and `toolCalls` whenever calls are waiting: some servers say "stop" after tool
 * calls, and the loop needs to know.
 */
export function finishUpdate(
  raw: string | undefined,
  calls: number,
  usage: Usage | undefined,
): AgentResponseUpdate {
  let finish: { reason: FinishReason; rawReason?: string };
  if (raw !== undefined) finish = mapFinishReason(raw);
  else finish = { reason: calls > 0 ? 'toolCalls' : 'stop' };
  if (finish.reason === 'stop' && calls > 0) finish = { reason: 'toolCalls' };
  const update: AgentResponseUpdate = { type: 'finish', ...finish };
  if (usage) update.usage = usage;
  return update;
}
